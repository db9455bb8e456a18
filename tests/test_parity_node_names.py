"""torch's node names for the view ops and in-place view ops that have their own, and for ops
numgrad builds from others (torch 2.13, hard-coded: torch is not a test dependency)."""
import numpy as np

import numgrad as ng


def test_view_ops_and_in_place_view_ops_have_torchs_node_names():
    x = ng.ones(2, 1, 3, requires_grad=True)
    y = x * 1
    views = [(y[:, 0].diagonal(), "DiagonalBackward0"), (y.unfold(2, 2, 1), "UnfoldBackward0"),
             (y[...], "AliasBackward0"), (y[:, :, :], "AliasBackward0"), (y[:], "SliceBackward0")]
    for view, name in views:
        assert view.grad_fn.name() == name
    in_place = [("t_", (), "TBackward1"), ("transpose_", (0, 1), "TransposeBackward1"),
                ("squeeze_", (), "SqueezeBackward3"), ("squeeze_", (1,), "SqueezeBackward4"),
                ("squeeze_", ((1,),), "SqueezeBackward5"),
                ("unsqueeze_", (0,), "UnsqueezeBackward1")]
    for method, args, name in in_place:
        z = ng.ones(2, 1, requires_grad=True) * 1
        getattr(z, method)(*args)
        assert z.grad_fn.name() == name, method


def test_in_place_activations_have_torchs_node_names():
    # torch's in-place forms that save their result are ...Backward1; the others keep the name
    F = ng.nn.functional
    cases = [(lambda b: F.leaky_relu(b, 0.1, inplace=True), "LeakyReluBackward1"),
             (lambda b: F.elu(b, inplace=True), "EluBackward1"),
             (lambda b: F.selu(b, inplace=True), "EluBackward1"),
             (lambda b: F.celu(b, inplace=True), "CeluBackward1"),
             (lambda b: F.threshold(b, 0.1, 0.0, inplace=True), "ThresholdBackward1"),
             (lambda b: F.rrelu(b, inplace=True), "RreluWithNoiseBackward1"),
             (lambda b: F.rrelu(b), "RreluWithNoiseBackward0"),
             (lambda b: F.hardtanh(b, inplace=True), "HardtanhBackward0"),
             (lambda b: F.relu6(b, inplace=True), "HardtanhBackward0"),
             (lambda b: F.hardswish(b, inplace=True), "HardswishBackward0"),
             (lambda b: F.hardsigmoid(b, inplace=True), "HardsigmoidBackward0"),
             (lambda b: F.mish(b, inplace=True), "MishBackward0")]
    for fn, name in cases:
        a = ng.tensor([-2.0, 0.5, 2.0], requires_grad=True)
        assert fn(a * 1.0).grad_fn.name() == name, name


def test_composites_carry_the_node_name_of_torchs_single_op():
    F = ng.nn.functional
    x = ng.tensor([[0.3, -0.7, 1.2], [-1.5, 0.45, 0.9], [0.1, -0.2, -1.1]], requires_grad=True)
    cases = [(lambda: x.median(), "MedianBackward0"), (lambda: x.median(1)[0], "MedianBackward1"),
             (lambda: x.nanmedian(1)[0], "NanmedianBackward1"),
             (lambda: x.kthvalue(2, 1)[0], "KthvalueBackward0"),
             (lambda: x.mode(1)[0], "ModeBackward0"), (lambda: x.cummax(0)[0], "CummaxBackward0"),
             (lambda: x.cummin(0)[0], "CumminBackward0"),
             (lambda: ng.aminmax(x).min, "AminmaxBackward0"),
             (lambda: ng.std_mean(x)[0], "StdMeanBackward0"),
             (lambda: ng.var_mean(x)[1], "VarMeanBackward0"),
             (lambda: x.logcumsumexp(0), "LogcumsumexpBackward0"),
             (lambda: ng.linalg.cross(x, x.flip(0)), "LinalgCrossBackward0"),
             (lambda: x.renorm(2, 0, 1.0), "RenormBackward0"),
             (lambda: ng.kron(x, x[:2]), "UnsafeViewBackward0"),
             (lambda: x.repeat_interleave(2, dim=1), "ViewBackward0"),
             (lambda: ng.linalg.matrix_exp(x), "LinalgMatrixExpBackward0"),
             (lambda: ng.select_scatter(x, x[0], 0, 1), "SelectScatterBackward0"),
             (lambda: ng.slice_scatter(x, x[:1], 0, 1, 2), "SliceScatterBackward0"),
             (lambda: ng.diagonal_scatter(x, x[0]), "DiagonalScatterBackward0"),
             (lambda: x.masked_scatter(x > 0, x.flip(0)), "MaskedScatterBackward0"),
             (lambda: F.pdist(x), "PdistBackward0"),
             (lambda: F.multilabel_margin_loss(x, ng.tensor([[0, 1, -1]] * 3)),
              "MultilabelMarginLossBackward0"),
             (lambda: ng.special.entr(x), "SpecialEntrBackward0"),
             (lambda: ng.special.i0(x), "I0Backward0"),
             (lambda: ng.special.i0e(x), "SpecialI0EBackward0"),
             (lambda: F.max_pool2d(x[None], 2), "MaxPool2DWithIndicesBackward0"),
             (lambda: F.avg_pool2d(x[None], 2), "AvgPool2DBackward0"),
             (lambda: F.unfold(x[None, None], 2), "Im2ColBackward0"),
             (lambda: x.index_fill(0, ng.tensor([1]), 2.0), "IndexFillBackward0"),
             (lambda: x.index_fill(0, ng.tensor([1]), x[0, 0]), "IndexFillBackward1"),
             (lambda: x.scatter_reduce(0, ng.tensor([[1, 0, 2]]), x[:1] * 2, "sum"),
              "ScatterReduceBackward0"),
             (lambda: x.index_reduce(0, ng.tensor([1]), x[:1] * 2, "amax"),
              "IndexReduceBackward0"),
             (lambda: F.grid_sample(x[None, None], x[None, :2, :2, None].expand(1, 2, 2, 2) * 0.5,
                                    align_corners=False), "GridSampler2DBackward0"),
             (lambda: F.embedding_bag(ng.tensor([0, 2, 1]), x, ng.tensor([0, 1])),
              "EmbeddingBagBackward0"),
             (lambda: F.pairwise_distance(x, x.flip(0)), "NormBackward1")]
    for make, name in cases:
        assert make().grad_fn.name() == name, name


def test_instance_norm_is_batch_norm_of_one_sample_of_every_channel_as_in_torch():
    F = ng.nn.functional
    x = ng.tensor([[[0.3, -0.7, 1.2], [-1.5, 0.45, 0.9]]], requires_grad=True)
    w = ng.tensor([2.0, 0.5], requires_grad=True)
    y = F.instance_norm(x, weight=w)
    assert y.grad_fn.name() == "ViewBackward0"
    assert [f.name() for f, _ in y.grad_fn.next_functions] == ["NativeBatchNormBackward0"]
    centred = x.detach().numpy() - x.detach().numpy().mean(-1, keepdims=True)
    expected = centred / (centred.std(-1, keepdims=True) ** 2 + 1e-5) ** 0.5 * [[[2.0], [0.5]]]
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-5)


def test_an_op_of_mixed_float_types_lists_its_operands_as_torch():
    """torch promotes inside the op: float32 * float64 lists both leaves, not a ToCopyBackward0
    (an explicit .double() still has one); the gradient comes back in each leaf's dtype."""
    v = ng.tensor([1.0, 2.0], requires_grad=True)
    a = ng.tensor([3.0, -1.0], dtype=ng.float64, requires_grad=True)
    for y in (v * a, ng.cat([v, a]), ng.where(a > 0, v, a), ng.addcmul(a, v, a)):
        assert all(type(n).__name__ == "AccumulateGrad" for n, _ in y.grad_fn.next_functions)
    assert [type(n).__name__ for n, _ in (v.double() * a).grad_fn.next_functions] == \
        ["ToCopyBackward0", "AccumulateGrad"]
    in_place = (a * 1.0).add_(v)
    assert [type(n).__name__ for n, _ in in_place.grad_fn.next_functions] == \
        ["MulBackward0", "AccumulateGrad"]
    (v * a).sum().backward()
    assert v.grad.dtype == ng.float32 and a.grad.dtype == ng.float64
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, -1.0])
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 2.0])
