"""torch's node names for the view ops and in-place view ops that have their own, and for ops
numgrad builds from others (torch 2.13, hard-coded: torch is not a test dependency)."""
import numpy as np
import pytest

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
    # the float32 tensor changed by a float64 operand: the op's node, no cast on top
    narrowed = (v * 1.0).mul_(a)
    assert narrowed.dtype == ng.float32 and narrowed.grad_fn.name() == "MulBackward0"
    assert [type(n).__name__ for n, _ in narrowed.grad_fn.next_functions] == \
        ["MulBackward0", "AccumulateGrad"]
    narrowed.sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, -1.0])
    assert a.grad.dtype == ng.float64
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 2.0])
    v.grad = a.grad = None
    (v * a).sum().backward()
    assert v.grad.dtype == ng.float32 and a.grad.dtype == ng.float64
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, -1.0])
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 2.0])


def _tree(node):
    """A node's name and, recursively, those of next_functions (torch's AccumulateGrad: "leaf")."""
    if node is None:
        return None
    name = node.name().replace("torch::autograd::", "")
    if name == "AccumulateGrad":
        return "leaf"
    return (name,) + tuple(_tree(n) for n, _ in node.next_functions)


def _graph_of(result):
    return _tree(result.grad_fn)


def test_reshape_is_a_view_an_alias_or_a_clone_as_in_torch():
    # torch: a contiguous tensor is viewed, a strided one whose strides allow it aliased
    # (_reshape_alias), any other cloned first (clone, then _unsafe_view)
    x = ng.ones(3, 4, requires_grad=True)
    b = ng.ones(2, 3, 4, requires_grad=True)
    alias, view, clone = "ReshapeAliasBackward0", "ViewBackward0", "UnsafeViewBackward0"
    cases = [(x.T.reshape(4, 3), (alias, ("PermuteBackward0", "leaf"))),
             (x.T.reshape(12), (clone, ("CloneBackward0", ("PermuteBackward0", "leaf")))),
             (x[:, ::2].reshape(3, 2, 1), (alias, ("SliceBackward0", "leaf"))),
             (x[1:].reshape(8), (view, ("SliceBackward0", "leaf"))),
             (b.transpose(0, 1).reshape(3, 8),
              (clone, ("CloneBackward0", ("TransposeBackward0", "leaf")))),
             (x.T.flatten(), (clone, ("CloneBackward0", ("PermuteBackward0", "leaf")))),
             (x.T.view(4, 1, 3), (view, ("PermuteBackward0", "leaf"))),
             (x.T.reshape(4, 3).reshape(2, 6),
              (clone, ("CloneBackward0", (alias, ("PermuteBackward0", "leaf"))))),
             (x.unsqueeze(0).expand(2, 3, 4).reshape(2, 12),
              (alias, ("ExpandBackward0", ("UnsqueezeBackward0", "leaf"))))]
    for k, (result, graph) in enumerate(cases):
        assert _graph_of(result) == graph, k
    # the clone is a copy: writing into the reshaped tensor leaves x alone
    with ng.no_grad():
        x.T.reshape(12).add_(1.0)
    assert x.sum().item() == 12.0


def test_multi_dot_multiplies_in_torchs_cheapest_order():
    x = ng.ones(3, 4, requires_grad=True)
    v = ng.ones(4, requires_grad=True)
    s = ng.ones(3, 3, requires_grad=True)
    t, mm = ("PermuteBackward0", "leaf"), "MmBackward0"
    cases = [([x, x.T], ("ViewBackward0", (mm, "leaf", t))),
             ([v, x.T, x], ("ViewBackward0", (mm, (mm, ("UnsqueezeBackward0", "leaf"), t), "leaf"))),
             ([x.T, x, x.T, v[:3]],
              ("ViewBackward0", (mm, t, (mm, "leaf", (mm, t, ("UnsqueezeBackward0",
                                                            ("SliceBackward0", "leaf"))))))),
             # a tie of three: (AB)C, as torch
             ([s, s, s], ("ViewBackward0", (mm, (mm, "leaf", "leaf"), "leaf")))]
    for k, (chain, graph) in enumerate(cases):
        assert _graph_of(ng.linalg.multi_dot(chain)) == graph, k
    a, b, c = (ng.tensor(np.arange(n * m, dtype=np.float64).reshape(n, m) / 7, requires_grad=True)
               for n, m in ((3, 4), (4, 5), (5, 2)))
    np.testing.assert_allclose(ng.linalg.multi_dot([a, b, c]).detach().numpy(),
                               a.detach().numpy() @ b.detach().numpy() @ c.detach().numpy())


def test_composites_show_torchs_graph():
    F = ng.nn.functional
    x = ng.ones(3, 4, requires_grad=True)
    b = ng.ones(2, 3, 4, requires_grad=True)
    v = ng.ones(4, requires_grad=True)
    s = ng.ones(3, 3, requires_grad=True)
    sliced, scaled = ("SliceBackward0", "leaf"), ("MulBackward0", "leaf", None)
    mm_ss = ("MmBackward0", "leaf", "leaf")
    distance = ("NormBackward1", ("AddBackward1", ("SubBackward0", "leaf", scaled)))
    cases = [(ng.diag(v), ("DiagEmbedBackward0", "leaf")),
             (ng.diagflat(x), ("DiagEmbedBackward0", ("ViewBackward0", "leaf"))),
             (ng.diag_embed(x), ("DiagEmbedBackward0", "leaf")),
             (ng.diag(x, 1), ("DiagonalBackward0_copy", "leaf")),
             (ng.rot90(x), ("Rot90Backward0", "leaf")),
             (ng.rot90(x, 2), ("Rot90Backward0", "leaf")),
             (ng.vdot(v, v), ("VdotBackward0", "leaf", "leaf")),
             (ng.addmv(v[:3], x, v), ("AddmvBackward0", sliced, "leaf", "leaf")),
             (ng.addr(x, v[:3], v), ("AddrBackward0", "leaf", sliced, "leaf")),
             (ng.addbmm(s, b, b.transpose(1, 2)),
              ("AddbmmBackward0", "leaf", "leaf", ("TransposeBackward0", "leaf"))),
             (ng.dstack([x, x]), ("CatBackward0", ("UnsqueezeBackward0", "leaf"),
                                  ("UnsqueezeBackward0", "leaf"))),
             (ng.atleast_3d(v), ("UnsqueezeBackward0", ("UnsqueezeBackward0", "leaf"))),
             (ng.linalg.matrix_power(s, 0), ("CopyBackwards", ("CloneBackward0", "leaf"), None)),
             (ng.linalg.matrix_power(s, 3), ("MmBackward0", mm_ss, "leaf")),
             (ng.linalg.matrix_power(s, 6), ("MmBackward0", mm_ss, ("MmBackward0", mm_ss, mm_ss))),
             (F.pairwise_distance(x, x * 2), distance),
             (F.rms_norm(x, (4,)),
              ("MulBackward0", "leaf", ("RsqrtBackward0", ("AddBackward1", (
                  "MeanBackward1", ("PowBackward0", "leaf")))))),
             (F.margin_ranking_loss(v, v * 2, ng.ones(4)),
              ("MeanBackward0", ("ClampMinBackward0", ("AddBackward1", (
                  "MulBackward0", None, ("SubBackward0", "leaf", scaled)))))),
             (F.hinge_embedding_loss(x, ng.ones(3, 4)),
              ("MeanBackward0", ("AddBackward0", ("WhereBackward0", ("ClampMinBackward0", (
                  "SubBackward0", None, "leaf")), None), ("WhereBackward0", "leaf", None)))),
             (F.triplet_margin_loss(x, x * 2, x * 3),
              ("MeanBackward0", ("ClampMinBackward0", ("SubBackward0", ("AddBackward1", distance),
                                                       distance))))]
    for k, (result, graph) in enumerate(cases):
        assert _graph_of(result) == graph, k
    # diag of a matrix is a copy, as in torch
    with ng.no_grad():
        ng.diag(x).add_(1.0)
    assert x.sum().item() == 12.0
    # logdet reads slogdet's second output: its edge carries input_nr 1
    assert ng.logdet(s * 2 + ng.eye(3)).grad_fn.next_functions[1][1] == 1


def test_writes_list_the_written_tensor_and_the_value_as_torch():
    x = ng.ones(3, 4, requires_grad=True)
    v = ng.ones(4, requires_grad=True)
    doubled = ("MulBackward0", "leaf", None)
    sliced = ("SliceBackward0", "leaf")
    rows = ng.tensor([0, 2])

    def written(write):
        y = x * 2
        write(y)
        return _graph_of(y)

    def set_rows(y):
        y[rows] = v * 3

    def set_masked(y):
        y[y > 1] = v.sum()

    def set_row(y):
        y[0] = v

    def set_column(y):
        y[:, 1] = 5.0

    cases = [(written(set_rows), ("IndexPutBackward0", doubled, doubled)),
             (written(set_masked), ("IndexPutBackward0", doubled, ("SumBackward0", "leaf"))),
             (written(set_row), ("CopySlices", doubled, "leaf")),
             (written(set_column), ("CopySlices", doubled, None)),
             (written(lambda y: y.put_(rows, v[:2])), ("PutBackward0", doubled, sliced)),
             (written(lambda y: y.masked_scatter_(y > 0, v.repeat(3))),
              ("MaskedScatterBackward0", doubled, ("RepeatBackward0", "leaf"))),
             (_graph_of(x.index_put((rows,), v)), ("IndexPutBackward0", "leaf", "leaf")),
             (_graph_of(x.index_put((rows,), v, accumulate=True)),
              ("IndexPutBackward0", "leaf", "leaf")),
             (_graph_of(x.put(rows, v[:2])), ("PutBackward0", "leaf", sliced)),
             (_graph_of(x.scatter(1, ng.tensor([[0], [1], [2]]), x[:, :1] * 2)),
              ("ScatterBackward0", "leaf", ("MulBackward0", sliced, None)))]
    for k, (graph, expected) in enumerate(cases):
        assert graph == expected, k
    # what is shown is what the gradient reaches: the written places get v's, the rest x's
    y = x * 2
    y[rows] = v * 3
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0] * 4, [2.0] * 4, [0.0] * 4])
    np.testing.assert_array_equal(v.grad.numpy(), [6.0] * 4)


def test_linear_reaches_its_weight_through_tbackward_as_torch():
    """torch's linear is addmm(b, x, w.t()): (bias, input, TBackward0 -> weight), and without a
    bias mm(x, w.t()). Changing the weight before the backward names w.t() as torch does."""
    F = ng.nn.functional
    x = ng.ones(4, 3)
    w = ng.ones(2, 3, requires_grad=True)
    b = ng.ones(2, requires_grad=True)
    weight = ("TBackward0", "leaf")
    assert _graph_of(F.linear(x, w, b)) == ("AddmmBackward0", "leaf", None, weight)
    assert _graph_of(F.linear(x, w)) == ("MmBackward0", None, weight)
    assert _graph_of(F.linear(ng.ones(5, 4, 3), w, b)) == (
        "ViewBackward0", ("AddmmBackward0", "leaf", None, weight))
    assert _graph_of(F.linear(x, w.detach(), b)) == ("AddmmBackward0", "leaf", None, None)
    x.requires_grad_()
    y = F.linear(x * 2, w, b)
    y.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(w.grad.numpy(), [[8.0] * 3] * 2)
    np.testing.assert_array_equal(x.grad.numpy(), [[4.0] * 3] * 4)
    with ng.no_grad():
        w.add_(1.0)
    with pytest.raises(RuntimeError, match=r"FloatTensor \[3, 2\]\], which is output 0 of "
                                           r"AsStrided, is at version 1; expected version 0"):
        y.sum().backward()


def test_cross_entropy_shows_torchs_log_softmax_and_nll_loss():
    """torch's cross_entropy is nll_loss(log_softmax(x)): NllLoss2D for spatial inputs, through a
    view to 4-d for those of 3 or 5 dims, and a view of a reduction="none" result back."""
    F = ng.nn.functional
    x2 = ng.ones(4, 3, requires_grad=True)
    x3 = ng.ones(4, 3, 5, requires_grad=True)
    x4 = ng.ones(2, 3, 2, 2, requires_grad=True)
    t2, t3, t4 = ng.tensor([0, 1, 2, 0]), ng.zeros(4, 5, dtype=ng.int64), ng.zeros(2, 2, 2,
                                                                                   dtype=ng.int64)
    log_softmax = ("LogSoftmaxBackward0", "leaf")
    viewed = ("NllLoss2DBackward0", ("ViewBackward0", log_softmax))
    cases = [(F.cross_entropy(x2, t2), ("NllLossBackward0", log_softmax)),
             (F.cross_entropy(x2, t2, reduction="none"), ("NllLossBackward0", log_softmax)),
             (F.cross_entropy(x2[0], ng.tensor(1)),
              ("NllLossBackward0", ("LogSoftmaxBackward0", ("SelectBackward0", "leaf")))),
             (F.cross_entropy(x3, t3), viewed),
             (F.cross_entropy(x3, t3, reduction="none"), ("ViewBackward0", viewed)),
             (F.cross_entropy(x4, t4), ("NllLoss2DBackward0", log_softmax)),
             (F.cross_entropy(x4, t4, reduction="none"), ("NllLoss2DBackward0", log_softmax)),
             (F.cross_entropy(x2, ng.ones(4, 3) / 3),
              ("DivBackward1", ("NegBackward0", ("SumBackward0", (
                  "MulBackward0", ("LogSoftmaxBackward0", "leaf"), None))))),
             # a strided input: torch views its contiguous log_softmax result all the same
             (F.cross_entropy(ng.ones(4, 5, 3, requires_grad=True).transpose(1, 2), t3),
              ("NllLoss2DBackward0", ("ViewBackward0", ("LogSoftmaxBackward0", (
                  "TransposeBackward0", "leaf")))))]
    for k, (loss, graph) in enumerate(cases):
        assert _graph_of(loss) == graph, k
    # the gradient is the fused kernel's: softmax minus the one-hot target, over the batch
    F.cross_entropy(x2, t2).backward()
    third = 1.0 / 3 / 4
    expected = np.full((4, 3), third)
    expected[[0, 1, 2, 3], [0, 1, 2, 0]] -= 0.25
    np.testing.assert_allclose(x2.grad.numpy(), expected, rtol=1e-6)


def test_matmul_takes_torchs_path_for_each_form():
    """torch's matmul: vector @ matrix is mm then squeeze_ (no view), and a batched operand times
    a vector or matrix is folded into one mm or mv when that copies nothing or the smaller one
    requires grad; other batched products broadcast to bmm."""
    v = ng.ones(3, requires_grad=True)
    m = ng.ones(3, 2, requires_grad=True)
    b = ng.ones(4, 3, 2, requires_grad=True)
    a = ng.ones(4, 2, 3, requires_grad=True)
    constant = ng.ones(4, 3, 2)
    unsqueezed = ("UnsqueezeBackward0", "leaf")
    cases = [(v @ m, ("SqueezeBackward4", ("MmBackward0", unsqueezed, "leaf"))),
             (v @ b, ("UnsafeViewBackward0", ("MvBackward0", (
                 "UnsafeViewBackward0", ("CloneBackward0", ("TransposeBackward0", "leaf"))),
                 "leaf"))),
             (a @ v, ("UnsafeViewBackward0", ("MvBackward0", ("ViewBackward0", "leaf"), "leaf"))),
             (b.transpose(1, 2) @ m,
              ("UnsafeViewBackward0", ("MmBackward0", ("UnsafeViewBackward0", (
                  "CloneBackward0", ("TransposeBackward0", "leaf"))), "leaf"))),
             (a @ b, ("UnsafeViewBackward0", ("BmmBackward0", ("ViewBackward0", (
                 "ExpandBackward0", "leaf")), ("ViewBackward0", ("ExpandBackward0", "leaf"))))),
             (constant @ ng.ones(2, 4), None)]
    for k, (result, graph) in enumerate(cases):
        assert _graph_of(result) == graph, k
    y = v @ m
    assert y._base is None
    y.add_(1.0)                         # in place on a result that is no view
    assert y.grad_fn.name() == "AddBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [2.0, 2.0, 2.0])


def test_an_in_place_op_through_a_view_shows_torchs_copy_slices():
    """CopySlices lists the base's old node, then the other inputs of the op it wraps."""
    x = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = ng.tensor([5.0], requires_grad=True)
    doubled = ("MulBackward0", "leaf", None)

    def written(write, base=None):
        b = x * 1 if base is None else base
        write(b)
        return _graph_of(b)

    cases = [(written(lambda b: b[0].mul_(2)), ("CopySlices", doubled, None)),
             (written(lambda b: b[1:].add_(y)), ("CopySlices", doubled, "leaf")),
             (written(lambda b: b[0:2].copy_(y.expand(2))),
              ("CopySlices", doubled, ("ExpandBackward0", "leaf"))),
             (written(lambda b: b[1:2].add_(y), ng.zeros(3)), ("CopySlices", None, "leaf")),
             (written(lambda b: b[::2].sigmoid_()), ("CopySlices", doubled))]
    for k, (graph, expected) in enumerate(cases):
        assert graph == expected, k


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_a_view_read_anew_after_an_in_place_op_is_as_strided_in_any_layout(layout):
    leaf = ng.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    base = (leaf.t() if layout == "transposed" else leaf) * 3
    view = base[0]
    view.mul_(2)
    assert view.grad_fn.name() == "AsStridedBackward0"
    assert [f.name() for f, _ in view.grad_fn.next_functions] == ["torch::autograd::CopySlices"]
    (view.sum() + base.sum()).backward()
    # base[0] is written as 6 * leaf's first row (column when transposed) and read twice
    first = np.zeros((3, 2))
    first[(slice(None), 0) if layout == "transposed" else (0, slice(None))] = 1
    np.testing.assert_allclose(leaf.grad.numpy(), 3 + 9 * first)


def test_clone_and_casts_keep_the_layout_of_a_dense_tensor_as_torch():
    """torch's preserve_format: clone() and .float()/.double() of a transposed tensor stay
    transposed (so reshaping the copy clones again), an expanded one comes out contiguous;
    contiguous() is row-major."""
    x = ng.ones(2, 3, requires_grad=True)
    assert x.t().clone().stride() == (1, 3) and not x.t().clone().is_contiguous()
    assert x.t().double().stride() == (1, 3)
    assert x.t().contiguous().stride() == (2, 1)
    assert x.unsqueeze(0).expand(2, 2, 3).double().stride() == (6, 3, 1)
    assert x[:, ::2].clone().stride() == (2, 1)
    assert _graph_of(x.t().clone().reshape(-1)) == (
        "UnsafeViewBackward0", ("CloneBackward0", ("CloneBackward0", ("TBackward0", "leaf"))))
    assert _graph_of(x.unsqueeze(0).expand(2, 2, 3).double().reshape(-1)) == (
        "ViewBackward0", ("ToCopyBackward0", ("ExpandBackward0", ("UnsqueezeBackward0", "leaf"))))


def test_the_gradient_of_a_broadcast_operand_is_torchs_sum_to():
    """torch's sum_to: a sum over the broadcast dims keeping them (SumBackward1), then a view
    without the leading ones; to a scalar the full sum (SumBackward0). create_graph shows it."""
    x = ng.ones(2, 3, dtype=ng.float64, requires_grad=True)
    b = ng.ones(3, dtype=ng.float64, requires_grad=True)
    c = ng.ones(2, 1, dtype=ng.float64, requires_grad=True)
    _, gb, gc = ng.autograd.grad(((x * b) * c).sum(), [x, b, c], create_graph=True)
    product = ("MulBackward0", ("MulBackward0", None, "leaf"), "leaf")
    assert _graph_of(gb) == ("ViewBackward0", ("SumBackward1", product))
    assert _graph_of(gc) == ("SumBackward1", ("MulBackward0", None, ("MulBackward0", "leaf",
                                                                    "leaf")))
    second = ng.autograd.grad(gb.sum() + gc.sum(), [x, b, c])
    np.testing.assert_array_equal(second[0].numpy(), np.full((2, 3), 2.0))
    np.testing.assert_array_equal(second[2].numpy(), [[3.0], [3.0]])
    s = ng.tensor(2.0, dtype=ng.float64, requires_grad=True)
    gs, = ng.autograd.grad((x * s).sum(), s, create_graph=True)
    assert _graph_of(gs) == ("SumBackward0", ("MulBackward0", None, "leaf"))
    assert gs.item() == 6.0


def test_pow_and_abs_gradients_are_built_as_torchs_formulas():
    """create_graph shows torch's formulas term for term: g * (p * x^(p-1)) with a Python p
    through the Scalar overloads (MulBackward1, SubBackward1)."""
    x = ng.tensor([1.5, 2.0], dtype=ng.float64, requires_grad=True)
    y = ng.tensor([2.0, 3.0], dtype=ng.float64, requires_grad=True)
    gx, = ng.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert _graph_of(gx) == ("MulBackward0", None, ("MulBackward1", ("PowBackward0", "leaf")))
    gx, gy = ng.autograd.grad((x ** y).sum(), [x, y], create_graph=True)
    assert _graph_of(gx) == ("WhereBackward0", None, ("MulBackward0", None, (
        "MulBackward0", "leaf", ("PowBackward1", "leaf", ("SubBackward1", "leaf")))))
    assert _graph_of(gy) == ("MulBackward0", None, ("WhereBackward0", None, (
        "MulBackward0", ("PowBackward1", "leaf", "leaf"), ("LogBackward0", "leaf"))))
    ga, = ng.autograd.grad(x.abs().sum(), x, create_graph=True)
    assert _graph_of(ga) == ("MulBackward0", None, ("SgnBackward0", "leaf"))     # abs: g * sgn(x)
    gb, = ng.autograd.grad((2.0 ** x).sum(), x, create_graph=True)
    assert _graph_of(gb) == ("MulBackward0", None, ("MulBackward1", ("PowBackward2", "leaf")))
    np.testing.assert_allclose(gb.detach().numpy(), np.log(2.0) * 2.0 ** np.array([1.5, 2.0]))
