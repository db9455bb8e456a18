"""A training batch norm and a layer norm with a weight and a bias are one node each, as torch's
native_batch_norm and native_layer_norm (Notes [batch norm's normalisation] and [layer norm's
rows] in ops/nn_ops.py). Expected values are torch 2.13's, written out (torch is not a test
dependency); gradcheck and the kernel against the differentiable VJP run from the op table
(tests/nn_samples.py)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

X = [[[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], [[-2.0, 0.0, 1.5], [2.0, 2.5, -0.5]]]
G = [[[1.0, -1.0, 0.5], [2.0, 0.0, -1.0]], [[0.25, 3.0, -2.0], [1.0, 1.0, 1.0]]]
W, B = [1.5, -0.5], [0.25, 1.0]

# torch 2.13, float64, eps=1e-3, momentum=0.3, running stats (0.1, -0.2) and (1, 2)
Y64 = [[[0.18189861776763028, 0.9991152045560681, 2.633548378132944],
        [1.1929190315032097, 1.6889965410828915, 0.3661231822037397]],
       [[-2.2697511425976833, -0.6353179690208075, 0.5905069111618492],
        [0.6968415219235277, 0.5314823520636337, 1.5236373712229976]]]
GX64 = [[[0.5640523401696856, -0.8926679277416965, 0.6885827637719473],
         [-0.4081348705960314, 0.33770359206445155, 0.44335050986182106]],
        [[-0.5819988169181232, 2.020772608081068, -1.7987409673628811],
         [-0.16181831409715022, -0.18995224183745255, -0.021148675395638722]]]
GW64, GB64 = [-2.3948986085050046, -1.543352252025677], [1.75, 4.0]
# torch 2.13, float64, eps=1e-5 (the default), the same x, w, b and g
GX64_EPS5 = [[[0.5641308784049033, -0.8927512218437197, 0.6888363350984497],
              [-0.40820906010191327, 0.3378275552857989, 0.44339981250997024]],
             [[-0.582245432252146, 2.021012978653526, -1.7989835380610133],
              [-0.16187572368317094, -0.19002793952208513, -0.021114644488600044]]]
GW64_EPS5 = [-2.395250557625546, -1.5436865916989289]
RUNNING_MEAN, RUNNING_VAR = [0.39499999999999996, 0.18499999999999997], [1.9124999999999996, 2.2225]
# torch 2.13, float32, eps=1e-5, no running stats
Y32 = [[[0.18188858032226562, 0.9992252588272095, 2.6338987350463867],
        [1.1929608583450317, 1.689145803451538, 0.3659859299659729]],
       [[-2.2701215744018555, -0.6354480981826782, 0.5905569195747375],
        [0.6967759132385254, 0.5313808917999268, 1.523750901222229]]]
GX32 = [[[0.5641309022903442, -0.8927512168884277, 0.6888363361358643],
         [-0.40820902585983276, 0.33782759308815, 0.4433998465538025]],
        [[-0.5822454690933228, 2.021012783050537, -1.7989835739135742],
         [-0.16187570989131927, -0.19002793729305267, -0.02111463062465191]]]
GW32 = [-2.3952507972717285, -1.5436867475509644]


def _leaves(dtype):
    return (ng.tensor(X, dtype=dtype, requires_grad=True), ng.tensor(W, dtype=dtype, requires_grad=True),
            ng.tensor(B, dtype=dtype, requires_grad=True))


def test_values_gradients_and_running_statistics_are_torchs_in_float64():
    x, w, b = _leaves(ng.float64)
    running_mean = ng.tensor([0.1, -0.2], dtype=ng.float64)
    running_var = ng.tensor([1.0, 2.0], dtype=ng.float64)
    y = F.batch_norm(x, running_mean, running_var, w, b, training=True, momentum=0.3, eps=1e-3)
    y.backward(ng.tensor(G, dtype=ng.float64))
    np.testing.assert_allclose(y.detach().numpy(), Y64, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(x.grad.numpy(), GX64, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(w.grad.numpy(), GW64, rtol=1e-14)
    np.testing.assert_allclose(b.grad.numpy(), GB64, rtol=1e-15)
    np.testing.assert_allclose(running_mean.numpy(), RUNNING_MEAN, rtol=1e-15)
    np.testing.assert_allclose(running_var.numpy(), RUNNING_VAR, rtol=1e-15)
    assert running_mean._version == 0 and running_var._version == 0      # as torch's kernel


def test_values_and_gradients_are_torchs_in_float32():
    x, w, b = _leaves(ng.float32)
    y = F.batch_norm(x, None, None, w, b, training=True)
    y.backward(ng.tensor(G, dtype=ng.float32))
    assert y.dtype == x.grad.dtype == w.grad.dtype == ng.float32
    np.testing.assert_allclose(y.detach().numpy(), Y32, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), GX32, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), GW32, rtol=2e-6)


def test_the_node_is_torchs_native_batch_norm():
    x, w, b = _leaves(ng.float64)
    y = F.batch_norm(x, None, None, w, b, training=True)
    node = y.grad_fn
    assert node.name() == "NativeBatchNormBackward0"
    assert [n.name() for n, _ in node.next_functions] == ["torch::autograd::AccumulateGrad"] * 3
    assert node._saved_input is x and node._saved_weight is w
    assert node._saved_eps == 1e-5 and node._saved_training is True
    assert node._saved_running_mean is None
    # the mean (torch's result2 is 1 / sqrt(var + eps), which numgrad does not keep)
    np.testing.assert_allclose(node._saved_result1.numpy(), [1.0833333333333333] * 2, rtol=1e-15)
    assert not node._saved_result1.requires_grad     # torch 2.13: the statistics are no outputs
    seen = []
    node.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (len(grad_inputs), len(grad_outputs))))
    y.sum().backward()
    assert seen == [(3, 1)]           # torch 2.13: the statistics are no outputs its hooks see


def test_the_input_changed_in_place_is_torchs_version_error():
    x, w, b = _leaves(ng.float64)
    h = x * 1
    y = F.batch_norm(h, None, None, w, b, training=True)
    with ng.no_grad():
        h.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[numgrad.DoubleTensor \[2, 2, 3\]\], which is output "
                                           r"0 of Mul, is at version 1; expected version 0"):
        y.sum().backward()
    assert x.grad is None and w.grad is None


@pytest.mark.parametrize("wanted", [(True, False, False), (False, True, False), (False, False, True),
                                    (False, True, True)])
def test_only_the_gradients_asked_for_are_computed(wanted):
    x, w, b = _leaves(ng.float64)
    for t, want in zip((x, w, b), wanted):
        t.requires_grad_(want)
    F.batch_norm(x, None, None, w, b, training=True).backward(ng.tensor(G, dtype=ng.float64))
    for t, want, expected in zip((x, w, b), wanted, (GX64_EPS5, GW64_EPS5, GB64)):
        if want:
            np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-13, atol=1e-15)
        else:
            assert t.grad is None


# ---- layer norm -------------------------------------------------------------------------------
LN_W, LN_B = [1.5, -0.5, 2.0], [0.25, 1.0, -1.0]
# torch 2.13, eps=1e-3, normalized over the last dim
LN_Y = {ng.float64: [[[-1.353052267458421, 1.1335876889548684, 1.6717537790973673],
                      [-0.05299011722953162, 1.5554818815874747, 1.625914349322608]],
                     [[-1.6676196479669096, 0.9418903136979725, 1.3243874520811025],
                      [1.0117796322672392, 0.5556285478441103, -3.7931919849798788]]],
        ng.float32: [[[-1.3530521392822266, 1.1335875988006592, 1.6717538833618164],
                      [-0.052990175783634186, 1.5554819107055664, 1.6259143352508545]],
                     [[-1.6676197052001953, 0.941890299320221, 1.324387788772583],
                      [1.01177978515625, 0.5556285381317139, -3.79319167137146]]]}
LN_GX = {ng.float64: [[[0.2863328957275917, -0.42937060964885854, 0.14303771392126685],
                       [1.4840816676800694, -0.9272543446455689, -0.5568273230345003]],
                      [[-0.12291286502373899, 0.28851558144365286, -0.16560271641991475],
                       [0.7001604080310377, -0.5839459125803775, -0.11621449545066054]]],
         ng.float32: [[[0.28633296489715576, -0.429370641708374, 0.1430375576019287],
                       [1.4840818643569946, -0.9272545576095581, -0.556827187538147]],
                      [[-0.12291312217712402, 0.288515567779541, -0.165602445602417],
                       [0.7001602649688721, -0.5839459300041199, -0.11621451377868652]]]}
LN_GW = {ng.float64: [-1.284438521094648, 1.5045764000336816, -4.3660021744580035],
         ng.float32: [-1.2844386100769043, 1.5045764446258545, -4.366002082824707]}
LN_GB = [4.25, 3.0, -1.5]


@pytest.mark.parametrize("dtype, tolerance", [(ng.float64, 1e-14), (ng.float32, 2e-6)])
def test_layer_norm_values_and_gradients_are_torchs(dtype, tolerance):
    x = ng.tensor(X, dtype=dtype, requires_grad=True)
    w = ng.tensor(LN_W, dtype=dtype, requires_grad=True)
    b = ng.tensor(LN_B, dtype=dtype, requires_grad=True)
    y = F.layer_norm(x, (3,), w, b, eps=1e-3)
    y.backward(ng.tensor(G, dtype=dtype))
    assert y.dtype == x.grad.dtype == dtype
    for got, expected in ((y.detach(), LN_Y[dtype]), (x.grad, LN_GX[dtype]), (w.grad, LN_GW[dtype]),
                          (b.grad, LN_GB)):
        np.testing.assert_allclose(got.numpy(), expected, rtol=tolerance, atol=tolerance)


def test_the_layer_norm_node_is_torchs_native_layer_norm():
    x = ng.tensor(X, dtype=ng.float64, requires_grad=True)
    w = ng.tensor([[1.5, -0.5, 2.0]] * 2, dtype=ng.float64, requires_grad=True)
    b = ng.zeros(2, 3, dtype=ng.float64, requires_grad=True)
    y = F.layer_norm(x, (2, 3), w, b)
    node = y.grad_fn
    assert node.name() == "NativeLayerNormBackward0"
    assert [n.name() for n, _ in node.next_functions] == ["torch::autograd::AccumulateGrad"] * 3
    assert node._saved_input is x and node._saved_weight is w and node._saved_bias is b
    assert node._saved_normalized_shape == (2, 3)
    seen = []
    node.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (len(grad_inputs), len(grad_outputs))))
    y.sum().backward()
    assert seen == [(3, 1)]                         # torch 2.13
    np.testing.assert_allclose(b.grad.numpy(), np.full((2, 3), 2.0))


@pytest.mark.parametrize("wanted", [(True, False, False), (False, True, False), (False, False, True)])
def test_layer_norm_computes_only_the_gradients_asked_for(wanted):
    x = ng.tensor(X, dtype=ng.float64, requires_grad=wanted[0])
    w = ng.tensor(LN_W, dtype=ng.float64, requires_grad=wanted[1])
    b = ng.tensor(LN_B, dtype=ng.float64, requires_grad=wanted[2])
    F.layer_norm(x, (3,), w, b, eps=1e-3).backward(ng.tensor(G, dtype=ng.float64))
    for t, want, expected in zip((x, w, b), wanted, (LN_GX[ng.float64], LN_GW[ng.float64], LN_GB)):
        if want:
            np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-14, atol=1e-15)
        else:
            assert t.grad is None


@pytest.mark.parametrize("shape, normalized", [((2, 0), (0,)), ((0, 3), (3,))])
def test_layer_norm_of_empty_rows_or_an_empty_normalized_shape(shape, normalized):
    x = ng.zeros(*shape, requires_grad=True)
    w, b = ng.ones(*normalized, requires_grad=True), ng.zeros(*normalized, requires_grad=True)
    y = F.layer_norm(x, normalized, w, b)
    y.sum().backward()
    # torch 2.13: empty results, and zero parameter gradients over no rows
    assert y.shape == shape and x.grad.shape == shape
    assert w.grad.tolist() == [0.0] * normalized[0] and b.grad.tolist() == [0.0] * normalized[0]


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_layer_norm_keeps_each_rows_mean_and_rstd_as_torch(dtype):
    # rows [1, 3] and [2, 6]: means 2 and 4, biased variances 1 and 4
    x = ng.tensor([[[1.0, 3.0]], [[2.0, 6.0]]], dtype=dtype, requires_grad=True)
    w, b = ng.ones(2, dtype=dtype, requires_grad=True), ng.zeros(2, dtype=dtype, requires_grad=True)
    node = F.layer_norm(x, (2,), w, b, eps=0.25).grad_fn
    mean, rstd = node._saved_result1, node._saved_result2
    # torch 2.13: the input's shape with the normalised dims kept as 1, the input's dtype, and
    # no gradient
    assert mean.shape == rstd.shape == (2, 1, 1) and mean.dtype == rstd.dtype == dtype
    assert not mean.requires_grad and not rstd.requires_grad
    assert mean.flatten().tolist() == [2.0, 4.0]
    np.testing.assert_allclose(rstd.flatten().numpy(), [1 / np.sqrt(1.25), 1 / np.sqrt(4.25)],
                               rtol=1e-7 if dtype == ng.float32 else 1e-16)


def test_layer_norm_statistics_of_an_empty_normalized_shape_are_torchs():
    x = ng.zeros(3, 0, requires_grad=True)
    w, b = ng.ones(0, requires_grad=True), ng.zeros(0, requires_grad=True)
    node = F.layer_norm(x, (0,), w, b).grad_fn
    # torch 2.13: a mean of 0 and an rstd of NaN per row
    assert node._saved_result1.tolist() == [[0.0]] * 3
    assert np.isnan(node._saved_result2.numpy()).all() and node._saved_result2.shape == (3, 1)


# ---- group norm: one node, as torch's native_group_norm ----------------------------------------
GN_X = [[[1.0, 2.0, 4.0], [0.5, -1.0, 3.0], [2.0, 0.0, 1.0], [-3.0, 1.5, 2.5]],
        [[-2.0, 0.0, 1.5], [2.0, 2.5, -0.5], [1.0, 1.0, 4.0], [0.0, -1.0, 2.0]]]
GN_W, GN_B = [1.5, -0.5, 2.0, 0.25], [0.1, 0.2, -0.3, 0.0]
GN_G = np.linspace(-1, 1.3, 24).reshape(2, 4, 3)
# torch 2.13, F.group_norm(x, 2, w, b, eps=1e-3) in float64
GN_MEAN = [[1.5833333333333335, 0.6666666666666665], [0.5833333333333334, 1.1666666666666667]]
GN_RSTD = [[0.6083115699211652, 0.5499359209224934], [0.638565322156833, 0.6358701380567092]]
GN_Y = [[[-0.4322726236810196, 0.4801947312007282, 2.305129440964224],
         [0.5295021003739646, 0.9857357778148385, -0.23088736202749194],
         [1.1664957891266494, -1.0332478945633243, 0.06662394728166254],
         [-0.5041079275122856, 0.11456998352551949, 0.25205396375614286]],
        [[-2.374440623357728, -0.45874465688722893, 0.9780273179656453],
         [-0.25231710319442335, -0.4119584337336316, 0.5458895495016179],
         [-0.5119567126855697, -0.5119567126855697, 3.3032641156546854],
         [-0.18546212359987355, -0.34442965811405085, 0.13247294542848106]]]
GN_GX = [[[-0.6672387440890213, -0.4489034998879004, -0.10347974697383346],
          [0.39459340590866127, 0.17354506434318387, 0.6514835206989101],
          [-0.25048242347336724, -0.17722354477068777, -0.048872207845279514],
          [0.0838971515370173, 0.1802842368941727, 0.2123967876581446]],
         [[0.027362848812399684, 0.2131974654633217, 0.3765196275323944],
          [-0.1437484417190646, -0.15316425324505697, -0.32016724684399417],
          [0.3811521417635447, 0.5083261693748866, 0.06987601200384641],
          [-0.27283439616746774, -0.06839624772192271, -0.6181236792528869]]]
GN_GW = [-1.2568711878149805, 1.675720366246381, 1.401494483675611, -1.4779716300514143]
GN_GB = [-1.7999999999999998, 0.0, 1.8, 3.599999999999999]


def _group_norm_leaves(dtype):
    return (ng.tensor(v, dtype=dtype, requires_grad=True) for v in (GN_X, GN_W, GN_B))


@pytest.mark.parametrize("dtype, tolerance", [(ng.float64, 1e-14), (ng.float32, 2e-6)])
def test_group_norm_values_gradients_and_statistics_are_torchs(dtype, tolerance):
    x, w, b = _group_norm_leaves(dtype)
    y = F.group_norm(x, 2, w, b, eps=1e-3)
    node = y.grad_fn
    mean, rstd = node._saved_result1, node._saved_result2
    y.backward(ng.tensor(GN_G, dtype=dtype))
    assert y.dtype == x.grad.dtype == mean.dtype == dtype
    for got, expected in ((y.detach(), GN_Y), (x.grad, GN_GX), (w.grad, GN_GW), (b.grad, GN_GB),
                          (mean.detach(), GN_MEAN), (rstd.detach(), GN_RSTD)):
        np.testing.assert_allclose(got.numpy(), expected, rtol=tolerance, atol=tolerance)


def test_the_group_norm_node_is_torchs_native_group_norm():
    x, w, b = _group_norm_leaves(ng.float64)
    y = F.group_norm(x, 2, w, b, eps=1e-3)
    node = y.grad_fn
    assert node.name() == "NativeGroupNormBackward0"
    assert [n.name() for n, _ in node.next_functions] == ["torch::autograd::AccumulateGrad"] * 3
    assert node._saved_input is x and node._saved_weight is w
    assert (node._saved_N, node._saved_C, node._saved_HxW, node._saved_group) == (2, 4, 3, 2)
    assert node._saved_eps == 1e-3
    # torch 2.13: the statistics are outputs of the node, which its hooks see
    assert node._saved_result1.grad_fn.name() == "NativeGroupNormBackward0"
    seen = []
    node.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (len(grad_inputs), len(grad_outputs))))
    y.sum().backward()
    assert seen == [(3, 3)]


def test_group_norm_gradients_through_its_statistics():
    # d/dx of sum(mean) + sum(rstd) through the saved statistics: 1 / D for the mean, and
    # -rstd^3 (x - mean) / D for the rstd, D = 6 elements a group
    x, w, b = _group_norm_leaves(ng.float64)
    node = F.group_norm(x, 2, w, b, eps=1e-3).grad_fn
    (node._saved_result1.sum() + node._saved_result2.sum()).backward()
    groups = np.array(GN_X).reshape(2, 2, 6)
    rstd = np.array(GN_RSTD)[..., None]
    expected = 1 / 6 - rstd ** 3 * (groups - np.array(GN_MEAN)[..., None]) / 6
    np.testing.assert_allclose(x.grad.numpy(), expected.reshape(2, 4, 3), rtol=1e-14)
    # (torch leaves w.grad and b.grad None here; numgrad's kernel writes zeros)
    assert w.grad.tolist() == b.grad.tolist() == [0.0] * 4


@pytest.mark.parametrize("shape", [(2, 4, 0), (0, 4, 3)])
def test_group_norm_of_empty_groups_is_torchs(shape):
    x = ng.zeros(*shape, requires_grad=True)
    w, b = ng.ones(4, requires_grad=True), ng.zeros(4, requires_grad=True)
    y = F.group_norm(x, 2, w, b)
    node = y.grad_fn
    mean, rstd = node._saved_result1, node._saved_result2
    y.sum().backward()
    assert y.shape == x.grad.shape == shape and mean.shape == rstd.shape == (shape[0], 2)
    assert b.grad.tolist() == [0.0] * 4
    if shape[0]:
        # torch 2.13: groups of no element have a mean of 0 and an rstd of NaN, and the
        # weight's gradient is NaN
        assert mean.tolist() == [[0.0, 0.0]] * 2 and np.isnan(rstd.detach().numpy()).all()
        assert np.isnan(w.grad.numpy()).all()
    else:
        assert w.grad.tolist() == [0.0] * 4


# torch 2.13's NativeBatchNormBackward0 attributes of F.batch_norm(x, ...) in float64, x of
# (4, 3) = arange(12) ** 1.5: the training statistics per channel (mean, 1 / sqrt(var + eps))
BN_X = np.arange(12.0).reshape(4, 3) ** 1.5
BN_MEAN = [11.723273, 14.785759, 18.279764]
BN_INVSTD = [0.097329, 0.086587, 0.079094]


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_nodes_keep_torchs_attributes_in_every_mode(training, affine):
    x = ng.tensor(BN_X, requires_grad=True)
    w, b = (ng.ones(3, dtype=ng.float64, requires_grad=True),
            ng.zeros(3, dtype=ng.float64, requires_grad=True)) if affine else (None, None)
    running_mean, running_var = ng.zeros(3, dtype=ng.float64), ng.ones(3, dtype=ng.float64)
    node = F.batch_norm(x, running_mean, running_var, w, b, training=training).grad_fn
    assert node.name() == "NativeBatchNormBackward0"
    assert sorted(a for a in dir(node) if a.startswith("_saved")) == [
        "_saved_eps", "_saved_input", "_saved_result1", "_saved_result2", "_saved_running_mean",
        "_saved_running_var", "_saved_training", "_saved_weight"]
    assert node._saved_input is x and node._saved_weight is w
    assert node._saved_eps == 1e-5 and node._saved_training is training
    assert node._saved_running_mean is running_mean and node._saved_running_var is running_var
    mean, invstd = node._saved_result1, node._saved_result2
    assert not mean.requires_grad and not invstd.requires_grad
    if training:
        np.testing.assert_allclose(mean.numpy(), BN_MEAN, atol=1e-6)
        np.testing.assert_allclose(invstd.numpy(), BN_INVSTD, atol=1e-6)
        # the running statistics were updated in place: torch's momentum 0.1, unbiased variance
        np.testing.assert_allclose(running_mean.numpy(), [1.172327, 1.478576, 1.827976], atol=1e-6)
    else:
        # torch keeps no batch statistics in eval mode: two empty tensors
        assert mean.shape == invstd.shape == (0,)
