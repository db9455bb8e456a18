"""torch's node names for the view ops and in-place view ops that have their own (torch 2.13,
hard-coded: torch is not a test dependency)."""
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
