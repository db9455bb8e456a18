"""nn and training as torch 2.13 runs them, on cases a differential probe against torch found to
differ (session 18). The expected numbers and messages were printed by torch; torch is not
imported."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


# ---- optimizers: float64 steps fuse where torch's CPU kernels fuse --------------------------------
def _steps(make, w0, grads):
    w = nn.Parameter(ng.tensor(w0, dtype=ng.float64))
    opt = make([w])
    for g in grads:
        w.grad = ng.tensor(g, dtype=ng.float64)
        opt.step()
    return w, opt


def test_float64_sgd_adds_its_weight_decay_and_step_with_one_rounding_as_torch():
    # torch 2.13 (grad.add(param, alpha=wd), param.add_(buf, alpha=-lr): one fma each); the
    # unfused step was an ulp off in the first element
    g0 = np.array([0.7, 0.2, -1.3, 0.05, 0.9, -0.33])
    w, _ = _steps(lambda p: optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
                  [0.3, -1.7, 2.5, 0.01, -0.45, 1.1], [g0 * k for k in (1, 2, 3)])
    assert w.tolist() == [-0.21847479883749998, -1.7768889472124998, 3.3409074024375003,
                          -0.026577935261250005, -1.0832669955562502, 1.2948931212249999]


def _cosine_steps(make):
    return _steps(make, np.sin(np.arange(8) * 1.3) * 2, [np.cos(np.arange(8) * 0.7 + k)
                                                         for k in range(2)])


def test_float64_adam_lerps_and_addcmuls_with_one_rounding_as_torch():
    # torch 2.13: exp_avg.lerp_ and exp_avg_sq's addcmul_ are fused multiply-adds in float64 too
    w, opt = _cosine_steps(lambda p: optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True))
    state = opt.state[w]
    assert state["exp_avg"].tolist() == [
        0.14393023058781396, 0.09246655847294914, -0.038953276560225104, -0.17138477849186273,
        -0.1973680587698804, -0.0970861222530319, 0.04077284033016788, 0.12155969409570534]
    assert state["exp_avg_sq"].tolist() == state["max_exp_avg_sq"].tolist() == [
        0.0012898469771254798, 0.0009199446948787112, 0.0004780890049130759,
        0.001702052331841954, 0.0021851438751456166, 0.0008252365828895319,
        0.0005321986887874575, 0.0010432937983750226]
    assert w.tolist() == [-0.019430521557298682, 1.909942449376221, 1.0251949479660376,
                          -1.3557568274279734, -1.7469738134687842, 0.4481927879236535,
                          2.0029277101930245, 0.6193406951667545]


def test_float64_centred_rmsprop_fuses_as_torch():
    w, opt = _cosine_steps(lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True,
                                                   weight_decay=0.1))
    state = opt.state[w]
    assert state["square_avg"].tolist() == [
        0.012711671079172714, 0.00910636477565381, 0.004889991089690232, 0.01677863333884033,
        0.0215646083148516, 0.0081511579910515, 0.00543634293282906, 0.010248865757428192]
    assert state["grad_avg"].tolist() == [
        0.0152025192872565, 0.01001795051814447, -0.0037400707253856767, -0.01762613348602157,
        -0.020653324049031706, -0.010422197875677105, 0.003906290843082818, 0.012290764505698791]
    assert state["momentum_buffer"].tolist() == [
        9.77159887037903, 5.592277839001387, -4.202346092154028, -13.804582648801047,
        -11.611699466582294, -6.78389814384663, 4.18700819628182, 14.790028089937191]
    assert w.tolist() == [-0.19821976012870238, 1.7706898214672147, 0.972522460029436,
                          -1.1369827260778942, -1.5502885442760796, 0.5985827278341764,
                          2.055720355547447, 0.38979270262384325]


# ---- optimizers: foreach=True takes torch's multi-tensor formulas ---------------------------------
def _foreach_steps(make):
    return _steps(make, np.sin(np.arange(6) * 1.3) * 2, [np.cos(np.arange(6) * 0.7 + k)
                                                         for k in range(8)])[0].tolist()


@pytest.mark.parametrize("make, expected", [
    # torch 2.13's _multi_tensor_radam: 1 / ((sqrt(v) + eps) / step) + unrectified step, in one
    # addcmul_ (its single-tensor rule gives -0.018299315698729633 first); a float32 tensor lr
    # rounds its step sizes in float32 (the single-tensor rounding was 5e-10 off)
    (lambda p: optim.RAdam(p, lr=0.01, weight_decay=0.1, foreach=True),
     [-0.018299315698729637, 1.9142181407819368, 1.0393809275956498, -1.3445351842074829,
      -1.734924209447006, 0.43919843743872644]),
    (lambda p: optim.RAdam(p, lr=ng.tensor(0.01), foreach=True),
     [-0.018344263080706698, 1.9240618984822704, 1.0446822419062907, -1.3515497838390105,
      -1.7439132460549875, 0.4414412713744613]),
    # torch's _multi_tensor_nadam divides sqrt(v) by sqrt(1 - beta2^t), not v by 1 - beta2^t
    (lambda p: optim.NAdam(p, lr=0.01, weight_decay=0.1, foreach=True),
     [-0.01602694087288752, 1.904550207232163, 1.0243379697733521, -1.3477296141294801,
      -1.7390843618778646, 0.4403666710245012]),
])
def test_foreach_radam_and_nadam_round_as_torchs_multi_tensor_rules(make, expected):
    assert _foreach_steps(make) == expected


# ---- bool arguments of builtin ops with several signatures ----------------------------------------
_CTC_MESSAGE = (
    "ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, {got}, {got}, "
    "int, int, {value}), but expected one of:\n"
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
    "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = "
    "False)\n"
    "      didn't match because some of the arguments have invalid types: (Tensor, Tensor, "
    "!{shown}!, !{shown}!, !int!, !int!, !{value}!)\n"
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank "
    "= 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
    "      didn't match because some of the arguments have invalid types: (Tensor, Tensor, "
    "{second}, {second}, !int!, !int!, !{value}!)\n")


@pytest.mark.parametrize("lengths, got, shown, second", [
    (ng.tensor, "Tensor", "Tensor", "Tensor"),
    (list, "list", "list of [int, int]", "!list of [int, int]!"),
    (tuple, "tuple", "tuple of (int, int)", "!tuple of (int, int)!"),
])
@pytest.mark.parametrize("value, name", [(1, "int"), (None, "NoneType"),
                                         (np.bool_(True), "numpy.bool")])
def test_ctc_loss_refuses_a_zero_infinity_that_is_not_a_bool_in_torchs_words(lengths, got, shown,
                                                                             second, value, name):
    # torch 2.13: F.ctc_loss passes zero_infinity on to torch.ctc_loss's argument parser, which
    # names both signatures (a NumPy bool is refused too)
    log_probs = ng.zeros(5, 2, 4)     # refused before the loss reads it
    message = _CTC_MESSAGE.format(got=got, shown=shown, second=second, value=name)
    with pytest.raises(TypeError) as error:
        nn.functional.ctc_loss(log_probs, ng.tensor([[1, 2], [1, 1]]), lengths([5, 5]),
                               lengths([2, 2]), reduction="sum", zero_infinity=value)
    assert str(error.value) == message


@pytest.mark.parametrize("mode, shape, options, op, got, shown, scales", [
    ("bilinear", (1, 1, 4, 4), dict(scale_factor=2), "upsample_bilinear2d",
     "NoneType, int, list", "!NoneType!, !int!, !list of [int, int]!",
     "float scales_h = None, float scales_w = None"),
    ("linear", (1, 1, 4), dict(size=(5,)), "upsample_linear1d",
     "tuple, int, NoneType", "!tuple of (int,)!, !int!, !NoneType!", "float scales = None"),
    ("trilinear", (1, 1, 2, 2, 2), dict(scale_factor=1.5, recompute_scale_factor=True),
     "upsample_trilinear3d", "list, int, NoneType", "!list of [int, int, int]!, !int!, !NoneType!",
     "float scales_d = None, float scales_h = None, float scales_w = None"),
    ("bicubic", (1, 1, 4, 4), dict(size=3, antialias=True), "_upsample_bicubic2d_aa",
     "list, int, NoneType", "!list of [int, int]!, !int!, !NoneType!",
     "float scales_h = None, float scales_w = None"),
])
def test_interpolate_refuses_an_align_corners_that_is_not_a_bool_in_torchs_words(
        mode, shape, options, op, got, shown, scales):
    # torch 2.13: interpolate hands align_corners=1 to its upsample op's argument parser
    message = (f"{op}() received an invalid combination of arguments - got (Tensor, {got}), but "
               "expected one of:\n"
               " * (Tensor input, tuple of ints output_size, bool align_corners, tuple of floats "
               "scale_factors)\n"
               "      didn't match because some of the arguments have invalid types: (Tensor, "
               f"{shown})\n"
               " * (Tensor input, tuple of ints output_size, bool align_corners, "
               f"{scales}, *, Tensor out = None)\n")
    with pytest.raises(TypeError) as error:
        nn.functional.interpolate(ng.zeros(*shape), mode=mode, align_corners=1, **options)
    assert str(error.value) == message


def test_bool_arguments_refuse_numpy_bools_as_torchs_parser():
    # torch 2.13: F.avg_pool2d(x, 2, ceil_mode=np.bool_(True))
    with pytest.raises(TypeError, match="^avg_pool2d\\(\\): argument 'ceil_mode' must be bool, "
                                        "not numpy.bool$"):
        nn.functional.avg_pool2d(ng.zeros(1, 1, 4, 4), 2, ceil_mode=np.bool_(True))


# ---- MultiheadAttention records torch's graph -----------------------------------------------------
def _node_names(tensor):
    """The names of the nodes behind tensor, breadth first (Backward0 dropped, Backward1 as 1)."""
    order, seen, i = [tensor.grad_fn], {id(tensor.grad_fn)}, 0
    while i < len(order):
        for node, _ in order[i].next_functions:
            if node is not None and id(node) not in seen:
                seen.add(id(node))
                order.append(node)
        i += 1
    return " ".join(node.name().replace("torch::autograd::", "").replace("Backward0", "")
                    .replace("Backward1", "1") for node in order)


def _attention_output(case):
    ng.manual_seed(0)
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 10
    if case == "self":
        layer = nn.MultiheadAttention(4, 2, batch_first=True, dtype=ng.float64)
        q = ng.tensor(x, requires_grad=True)
        return layer(q, q, q, need_weights=False)[0]
    if case == "encoder-decoder":
        layer = nn.MultiheadAttention(4, 2, dtype=ng.float64)
        q, kv = ng.tensor(x, requires_grad=True), ng.tensor(x[:1] + 1, requires_grad=True)
        return layer(q, kv, kv)[0]
    layer = nn.MultiheadAttention(4, 1, dtype=ng.float64)
    q = ng.tensor(x[0], requires_grad=True)
    return layer(q, q, q, need_weights=False)[0]


@pytest.mark.parametrize("case, names", [
    # torch 2.13: one packed projection unflattened and selected, the flash kernel's output laid
    # out as its permuted query (so a view and an addmm after it)
    ("self", "Transpose View Addmm AccumulateGrad View T Permute AccumulateGrad "
             "ScaledDotProductFlashAttentionForCpu View View View Transpose Transpose Transpose "
             "View View View Select Select Select Clone Squeeze1 Transpose Unsqueeze View Add "
             "UnsafeView AccumulateGrad Mm UnsafeView T Clone AccumulateGrad Transpose "
             "AccumulateGrad"),
    # key is value: the weight split in [E, 2E], the key-value projection unflattened
    ("encoder-decoder", "View Addmm AccumulateGrad UnsafeView T Clone AccumulateGrad Transpose Bmm "
                        "Softmax Transpose Bmm View Mul Transpose Select Transpose Transpose Clone "
                        "View View Squeeze1 View Select Transpose Addmm Unsqueeze SplitWithSizes "
                        "View T View AccumulateGrad AccumulateGrad SplitWithSizes View "
                        "AccumulateGrad Addmm View T AccumulateGrad"),
    # unbatched: each input unsqueezed apart, so three projections of the chunked weight
    ("unbatched", "Squeeze1 View Addmm AccumulateGrad View T Permute AccumulateGrad "
                  "ScaledDotProductFlashAttentionForCpu View View View Transpose Transpose "
                  "Transpose View View View View View View Addmm Addmm Addmm Split View T View T "
                  "View T AccumulateGrad Unsqueeze Split Unsqueeze Unsqueeze AccumulateGrad "
                  "AccumulateGrad"),
])
def test_multihead_attention_records_torchs_nodes(case, names):
    assert _node_names(_attention_output(case)) == names


# ---- recurrent layers record torch's graph ---------------------------------------------------------
def test_a_packed_bidirectional_rnn_records_torchs_loop():
    # torch 2.13: the initial state unbound per direction, each step's rows narrowed out
    # (SliceBackward0), forward in time the ended sequences' states sliced off and joined in one
    # cat at the end, in reverse the initial rows sliced in and concatenated as sequences start
    ng.manual_seed(0)
    layer = nn.RNN(2, 2, bidirectional=True, dtype=ng.float64)
    x = ng.tensor(np.arange(12.0).reshape(3, 2, 2) / 10, requires_grad=True)
    h0 = ng.tensor(np.ones((2, 2, 2)) / 4, requires_grad=True)
    y, h = layer(nn.utils.rnn.pack_padded_sequence(x, ng.tensor([3, 1])), h0)
    assert _node_names(y.data) == (
        "Cat Cat Cat Tanh Tanh Tanh Tanh Tanh Tanh Add Add Add Add Add Add Addmm Slice Addmm Slice "
        "Addmm Slice Addmm Slice Addmm Slice Addmm Slice AccumulateGrad Unbind T Addmm Slice T T "
        "AccumulateGrad Cat T Addmm T Slice T AccumulateGrad AccumulateGrad AccumulateGrad "
        "PackPaddedSequence T Slice AccumulateGrad AccumulateGrad T AccumulateGrad AccumulateGrad "
        "AccumulateGrad")
    assert _node_names(h) == (
        "Stack Cat Tanh Tanh Slice Add Add Tanh Addmm Slice Addmm Slice Add AccumulateGrad Cat T "
        "Addmm AccumulateGrad Tanh T Addmm Addmm Slice Tanh Slice AccumulateGrad AccumulateGrad "
        "PackPaddedSequence T Add AccumulateGrad AccumulateGrad T Unbind T Add AccumulateGrad "
        "AccumulateGrad Addmm Slice AccumulateGrad AccumulateGrad Addmm Slice Slice T Tanh T Add "
        "Addmm Slice Slice T")


# ---- losses record torch's nodes --------------------------------------------------------------------
@pytest.mark.parametrize("loss, names", [
    # torch 2.13's C++ composites add and scale by Scalars (AddBackward1, MulBackward1); its
    # gaussian_nll_loss clamps a clone of var outside the graph (CloneBackward0)
    (lambda F, a, b, v, p: F.poisson_nll_loss(a, b, log_input=False),
     "Mean Sub AccumulateGrad Mul Log Add1"),
    (lambda F, a, b, v, p: F.gaussian_nll_loss(a, b, v),
     "Mean Mul Add Log Div Clone Pow AccumulateGrad Sub AccumulateGrad"),
    (lambda F, a, b, v, p: F.cross_entropy(a, p, label_smoothing=0.2),
     "Div1 Neg Sum Mul LogSoftmax Add1 AccumulateGrad Mul1 AccumulateGrad"),
])
def test_losses_record_torchs_scalar_and_clone_nodes(loss, names):
    a = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]])
    b = np.abs(a) + 0.5
    out = loss(nn.functional, ng.tensor(a, requires_grad=True), ng.tensor(b),
               ng.tensor(b, requires_grad=True),
               ng.tensor(b / b.sum(1, keepdims=True), requires_grad=True))
    assert _node_names(out) == names


# ---- transposed convolutions --------------------------------------------------------------------------
@pytest.mark.parametrize("layer, shape, shown", [
    (lambda: nn.ConvTranspose2d(2, 4, 1, padding=1, groups=2, bias=False), (1, 2, 4, 2),
     "Given input size per channel: (4 x 2). Calculated output size per channel: (2 x 0)."),
    (lambda: nn.ConvTranspose1d(2, 4, 1, padding=1, bias=False), (1, 2, 2),
     "Given input size per channel: (1 x 2). Calculated output size per channel: (1 x 0)."),
    (lambda: nn.ConvTranspose3d(2, 4, 1, padding=1, bias=False), (1, 2, 3, 2, 3),
     "Given input size per channel: (3 x 2 x 3). Calculated output size per channel: "
     "(1 x 0 x 1)."),
])
def test_a_transposed_convolution_to_an_empty_output_is_refused_as_torch(layer, shape, shown):
    # torch 2.13's words (a 1-D convolution is a 2-D one of height 1)
    with pytest.raises(RuntimeError) as error:
        layer()(ng.ones(*shape))
    assert str(error.value) == shown + " Output size is too small"


def test_an_unbatched_transposed_convolution_records_torchs_unsqueeze():
    # torch 2.13: SqueezeBackward1 -> ConvolutionBackward0 -> UnsqueezeBackward0 -> the input
    layer = nn.ConvTranspose2d(2, 2, 1, stride=2, padding=1, output_padding=1, bias=False)
    assert _node_names(layer(ng.ones(2, 2, 4, requires_grad=True))) == \
        "Squeeze1 Convolution Unsqueeze AccumulateGrad AccumulateGrad"


# ---- EmbeddingBag -------------------------------------------------------------------------------------
def test_embedding_bag_scales_by_frequency_and_renorms_as_torchs_cpu_kernel():
    # torch 2.13: max_norm renorms every index's row, padding_idx's (3) too; scale_grad_by_freq
    # divides the g-th distinct index's gradient by the count of the g-th smallest input entry
    # (index 1, twice: 1/2 each; index 2 gets 1/count(1) too; index 5 1/count(1) of entry [2])
    bag = nn.EmbeddingBag(6, 1, mode="mean", scale_grad_by_freq=True, padding_idx=3, max_norm=1.5,
                          dtype=ng.float64)
    with ng.no_grad():
        bag.weight.copy_(ng.arange(6.0).reshape(6, 1) - 1)
    out = bag(ng.tensor([2, 1, 1, 3, 3, 5]), ng.tensor([0, 3]))
    out.backward(ng.tensor([[1.0], [2.0]], dtype=ng.float64))
    assert out.flatten().tolist() == [0.3333333333333333, 1.499999962500001]
    assert bag.weight.flatten().tolist() == [-1.0, 0.0, 1.0, 1.4999999250000038, 3.0,
                                             1.499999962500001]
    assert bag.weight.grad.flatten().tolist() == [0.0, 0.3333333333333333, 0.16666666666666666,
                                                  0.0, 0.0, 1.0]


# ---- weight normalisation -------------------------------------------------------------------------------
@pytest.mark.parametrize("dim, names", [
    # torch 2.13's C++ norm_except_dim: at::norm of all of v (NormBackward0), or of a contiguous
    # view per slice (NormBackward1) for a middle dim
    (None, "Mul AccumulateGrad Div AccumulateGrad Norm"),
    (1, "Mul AccumulateGrad Div AccumulateGrad Transpose View Norm1 View Clone Transpose"),
])
def test_weight_norm_of_all_or_a_middle_dim_records_torchs_norm_nodes(dim, names):
    layer = nn.utils.parametrizations.weight_norm(nn.Conv2d(4, 3, 2, dtype=ng.float64), dim=dim)
    assert _node_names(layer.weight) == names


# ---- lazy placeholders ----------------------------------------------------------------------------------
_REFUSAL = ("Attempted to use an uninitialized parameter in {}. This error happens when you are "
            "using a `LazyModule` or explicitly manipulating "
            "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions")


@pytest.mark.parametrize("use, function", [
    (lambda p: p + 1, "<method 'add' of 'torch._C.TensorBase' objects>"),
    (lambda p: 2 * p, "<method 'mul' of 'torch._C.TensorBase' objects>"),
    (lambda p: p[0], "<slot wrapper '__getitem__' of 'torch._C.TensorBase' objects>"),
    (lambda p: p.sum(), "<method 'sum' of 'torch._C.TensorBase' objects>"),
    (lambda p: p.detach(), "<method 'detach' of 'torch._C.TensorBase' objects>"),
    (lambda p: p.nelement(), "<method 'numel' of 'torch._C.TensorBase' objects>"),
])
def test_an_uninitialized_parameter_refuses_tensor_functions_as_torch(use, function):
    # torch 2.13's __torch_function__ of the placeholders
    weight = nn.UninitializedParameter()
    with pytest.raises(ValueError) as error:
        use(weight)
    assert str(error.value) == _REFUSAL.format(function)


def test_an_uninitialized_parameter_keeps_what_reads_no_data():
    # torch 2.13 lets properties and its _allowed_methods through
    weight = nn.UninitializedParameter()
    assert weight.float() is weight and weight.size() == (0,) and weight.grad is None
    assert weight.requires_grad and weight.is_leaf and weight.dtype == ng.float32
    layer = nn.LazyLinear(3).double()
    assert layer(ng.ones(2, 4, dtype=ng.float64)).shape == (2, 3)


def test_a_float32_lstm_records_torchs_mkldnn_layers():
    # torch 2.13's CPU LSTM runs float32 through MKLDNN: one MkldnnRnnLayerBackward0 per layer
    # and direction over (input, w_ih, w_hh, b_ih, b_hh, hx, cx), the states selected from h0
    # and c0, h_n and c_n stacks of its second and third outputs
    ng.manual_seed(0)
    layer = nn.LSTM(2, 3, num_layers=2, bidirectional=True, batch_first=True)
    x = ng.tensor(np.arange(12.0, dtype=np.float32).reshape(2, 3, 2) / 10, requires_grad=True)
    y, (h, c) = layer(x, (ng.zeros(4, 2, 3, requires_grad=True), ng.zeros(4, 2, 3)))
    assert _node_names(y) == (
        "Transpose Cat MkldnnRnnLayer MkldnnRnnLayer Cat AccumulateGrad AccumulateGrad "
        "AccumulateGrad AccumulateGrad Select AccumulateGrad AccumulateGrad AccumulateGrad "
        "AccumulateGrad Select MkldnnRnnLayer MkldnnRnnLayer AccumulateGrad Clone AccumulateGrad "
        "AccumulateGrad AccumulateGrad AccumulateGrad Select AccumulateGrad AccumulateGrad "
        "AccumulateGrad AccumulateGrad Select Transpose AccumulateGrad")
    states = ("Stack MkldnnRnnLayer MkldnnRnnLayer MkldnnRnnLayer MkldnnRnnLayer Clone "
              "AccumulateGrad AccumulateGrad AccumulateGrad AccumulateGrad Select AccumulateGrad "
              "AccumulateGrad AccumulateGrad AccumulateGrad Select Cat AccumulateGrad "
              "AccumulateGrad AccumulateGrad AccumulateGrad Select AccumulateGrad AccumulateGrad "
              "AccumulateGrad AccumulateGrad Select Transpose AccumulateGrad AccumulateGrad")
    assert _node_names(h) == _node_names(c) == states
    assert [edge[1] for edge in h.grad_fn.next_functions] == [1, 1, 1, 1]
    assert [edge[1] for edge in c.grad_fn.next_functions] == [2, 2, 2, 2]
