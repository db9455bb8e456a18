"""The normalisation layers and activations that follow torch's: forward values and gradients
against numbers computed with torch 2.13 in float64 from the same inputs (pasted in EXPECTED at
the end), float64 gradcheck of every functional, float32 within tolerance, running statistics
after training steps, eval mode, state_dict keys, reprs and torch's error messages."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad import nn
from numgrad.autograd import gradcheck, gradgradcheck


def wave(shape, scale=2.0, phase=0.3):
    """Fixed, irregular values (no ties, no zeros at the kinks tested) for any shape."""
    count = int(np.prod(shape))
    return scale * np.sin(np.arange(count) * 1.7 + phase).reshape(shape)


class Const:
    """An input that is a constant tensor, not one the gradient is taken for."""

    def __init__(self, array):
        self.array = np.asarray(array)


def positive(shape, phase=0.3):
    return wave(shape, 1.0, phase) + 1.5


# name -> (function of (F, *tensors), inputs): float arrays are inputs that require grad
CASES = {
    "group_norm": (lambda F, x, w, b: F.group_norm(x, 2, w, b),
                   [wave((2, 4, 3)), wave(4, 1.0, 1.0), wave(4, 1.0, 2.0)]),
    "group_norm_4d": (lambda F, x: F.group_norm(x, 1, eps=1e-3), [wave((2, 2, 2, 2))]),
    "instance_norm": (lambda F, x, w, b: F.instance_norm(x, weight=w, bias=b),
                      [wave((2, 3, 4)), wave(3, 1.0, 1.0), wave(3, 1.0, 2.0)]),
    "instance_norm_running": (lambda F, x, m, v: F.instance_norm(x, m, v, use_input_stats=False),
                              [wave((2, 3, 2, 2)), Const(wave(3, 0.5)), Const(positive(3))]),
    "batch_norm_train": (lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                         [wave((3, 2, 2, 2)), wave(2, 1.0, 1.0), wave(2, 1.0, 2.0)]),
    "batch_norm_eval": (lambda F, x, m, v, w: F.batch_norm(x, m, v, w, None, eps=1e-3),
                        [wave((2, 3, 2)), Const(wave(3, 0.5)), Const(positive(3)),
                         wave(3, 1.0, 1.0)]),
    "rms_norm": (lambda F, x, w: F.rms_norm(x, (3, 4), w, eps=1e-5),
                 [wave((2, 3, 4)), wave((3, 4), 1.0, 1.0)]),
    "rms_norm_default_eps": (lambda F, x: F.rms_norm(x, [4]), [wave((3, 4))]),
    "local_response_norm": (lambda F, x: F.local_response_norm(x, 3, alpha=0.1, beta=0.75),
                            [wave((2, 5, 3))]),
    "local_response_norm_4d": (lambda F, x: F.local_response_norm(x, 2, 0.5, 0.6, 2.0),
                               [wave((1, 4, 2, 2))]),
    "prelu": (lambda F, x, w: F.prelu(x, w), [wave((2, 3, 2)), wave(3, 0.5, 1.0)]),
    "prelu_shared": (lambda F, x, w: F.prelu(x, w), [wave(5), np.array([0.25])]),
    "selu": (lambda F, x: F.selu(x), [wave((2, 4))]),
    "celu": (lambda F, x: F.celu(x, 1.5), [wave((2, 4))]),
    "threshold": (lambda F, x: F.threshold(x, 0.1, -2.0), [wave((2, 4))]),
    "tanhshrink": (lambda F, x: F.tanhshrink(x), [wave((2, 4))]),
    "softmin": (lambda F, x: F.softmin(x, dim=1), [wave((2, 4))]),
    "hardshrink": (lambda F, x: F.hardshrink(x, 0.6), [wave((2, 4))]),
    "softshrink": (lambda F, x: F.softshrink(x, 0.6), [wave((2, 4))]),
    "hardtanh": (lambda F, x: F.hardtanh(x, -0.5, 1.2), [wave((2, 4))]),
    "relu6": (lambda F, x: F.relu6(x), [wave((2, 4), 8.0)]),
    "hardswish": (lambda F, x: F.hardswish(x), [wave((2, 4), 4.0)]),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), [wave((2, 4), 4.0)]),
    "mish": (lambda F, x: F.mish(x), [wave((2, 4))]),
    "softsign": (lambda F, x: F.softsign(x), [wave((2, 4))]),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), [wave((2, 4), 6.0)]),
    "glu": (lambda F, x: F.glu(x, 1), [wave((2, 4))]),
}


def make_inputs(specs, dtype=np.float64, grad=True):
    tensors = []
    for spec in specs:
        if isinstance(spec, Const):
            array = spec.array.astype(dtype) if spec.array.dtype.kind == "f" else spec.array
            tensors.append(ng.tensor(array))
        elif spec.dtype.kind == "f":
            tensors.append(ng.tensor(spec.astype(dtype), requires_grad=grad))
        else:
            tensors.append(ng.tensor(spec))
    return tensors


def run_case(case, dtype):
    fn, specs = case[:2]
    inputs = make_inputs(specs, dtype)
    out = fn(F, *inputs)
    differentiable = [t for t in inputs if t.requires_grad]
    weights = ng.tensor(wave(out.shape, 1.0, 1.1).astype(dtype))
    grads = ng.autograd.grad((out * weights).sum(), differentiable)
    return out.detach().numpy(), [g.numpy() for g in grads]


def check_against_torch(case, expected, dtype):
    """Forward and gradients of a case against torch's float64 numbers: to their printed
    precision in float64, to float32's in float32."""
    out, grads = run_case(case, dtype)
    want_out, want_grads = expected
    single = dtype == np.float32
    assert out.dtype == dtype
    np.testing.assert_allclose(out, np.array(want_out).reshape(out.shape),
                               rtol=2e-4 if single else 1e-6, atol=2e-5 if single else 1e-8)
    assert len(grads) == len(want_grads)
    for got, want in zip(grads, want_grads):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, np.array(want).reshape(got.shape),
                                   rtol=2e-3 if single else 1e-6, atol=2e-4 if single else 1e-8)


def check_gradcheck(case, check=gradcheck):
    """float64 gradcheck (or gradgradcheck) with respect to the inputs that require grad."""
    fn, specs = case[:2]
    inputs = make_inputs(specs)
    differentiable = [i for i, t in enumerate(inputs) if t.requires_grad]

    def only_differentiable(*values):
        args = list(inputs)
        for i, value in zip(differentiable, values):
            args[i] = value
        return fn(F, *args)
    assert check(only_differentiable, tuple(inputs[i] for i in differentiable))


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_gradients_match_torch(name):
    check_against_torch(CASES[name], EXPECTED[name], np.float64)


# float32 for a case of each kind: every case compiles its ops' kernels once per dtype (seconds
# with a cold cache), and the composites are the same code in either dtype
FLOAT32 = ["group_norm", "instance_norm", "batch_norm_train", "rms_norm", "prelu", "selu",
           "celu", "softmin", "softshrink", "hardswish", "glu"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_within_tolerance(name):
    check_against_torch(CASES[name], EXPECTED[name], np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_float64(name):
    check_gradcheck(CASES[name])


@pytest.mark.parametrize("name", ["group_norm", "instance_norm", "batch_norm_train", "rms_norm",
                                  "local_response_norm", "prelu", "selu", "celu", "softshrink",
                                  "softmin"])
def test_second_derivatives_float64(name):
    check_gradcheck(CASES[name], gradgradcheck)


# ---- modules: training steps, eval mode, state dicts, reprs --------------------------------------
def train_steps(module, shape, steps=2):
    for step in range(steps):
        module(ng.tensor(wave(shape, 2.0, 0.3 + step)))
    return module


@pytest.mark.parametrize("name, make, shape", [
    ("bn2d", lambda: nn.BatchNorm2d(3, dtype=ng.float64), (2, 3, 2, 2)),
    ("bn2d_cumulative", lambda: nn.BatchNorm2d(3, momentum=None, dtype=ng.float64), (2, 3, 2, 2)),
    ("bn3d", lambda: nn.BatchNorm3d(2, momentum=0.3, dtype=ng.float64), (2, 2, 2, 1, 2)),
    ("in1d", lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True,
                                        dtype=ng.float64), (2, 3, 4)),
])
def test_running_statistics_and_eval_mode(name, make, shape):
    module = train_steps(make(), shape, steps=3)
    want = RUNNING[name]
    np.testing.assert_allclose(module.running_mean.numpy(), want["running_mean"], rtol=1e-8)
    np.testing.assert_allclose(module.running_var.numpy(), want["running_var"], rtol=1e-8)
    # as torch's, instance norms keep num_batches_tracked but never count
    assert module.num_batches_tracked.item() == (0 if name == "in1d" else 3)
    module.eval()
    x = ng.tensor(wave(shape, 1.0, 0.7), requires_grad=True)
    out = module(x)
    np.testing.assert_allclose(out.detach().numpy().ravel(), want["eval"], rtol=1e-8, atol=1e-10)
    before = module.running_mean.numpy().copy()
    (out * ng.tensor(wave(shape, 1.0, 1.1))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy().ravel(), want["eval_grad"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(module.running_mean.numpy(), before)    # eval: no update


def test_instance_norm_momentum_none_leaves_running_stats():
    module = train_steps(nn.InstanceNorm1d(2, momentum=None, track_running_stats=True), (2, 2, 3))
    np.testing.assert_array_equal(module.running_mean.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(module.running_var.numpy(), [1.0, 1.0])


def test_batch_norm_without_running_stats_uses_the_batch_in_eval():
    module = nn.BatchNorm2d(2, affine=False, track_running_stats=False).eval()
    x = ng.tensor(wave((2, 2, 1, 2)))
    want = F.batch_norm(x, None, None, training=True)
    np.testing.assert_allclose(module(x).numpy(), want.numpy())
    assert module.running_mean is None and list(module.state_dict()) == []


def test_norm_modules_forward_unbatched_and_affine():
    x = wave((3, 4))
    module = nn.InstanceNorm1d(3, affine=True)
    with ng.no_grad():
        module.weight.copy_(ng.tensor(wave(3, 1.0, 1.0).astype(np.float32)))
    out = module(ng.tensor(x.astype(np.float32)))
    want = F.instance_norm(ng.tensor(x[None]), weight=ng.tensor(wave(3, 1.0, 1.0)))[0]
    np.testing.assert_allclose(out.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    group = nn.GroupNorm(2, 4, dtype=ng.float64)
    x = ng.tensor(wave((2, 4, 3)))
    np.testing.assert_allclose(group(x).detach().numpy(), F.group_norm(x, 2).numpy())
    rms = nn.RMSNorm(4, eps=1e-5, dtype=ng.float64)
    x = ng.tensor(wave((3, 4)))
    np.testing.assert_allclose(rms(x).detach().numpy(), F.rms_norm(x, (4,), eps=1e-5).numpy())


STATE_KEYS = [
    (lambda: nn.BatchNorm2d(3), ["weight", "bias", "running_mean", "running_var",
                                 "num_batches_tracked"]),
    (lambda: nn.BatchNorm3d(3, affine=False), ["running_mean", "running_var",
                                               "num_batches_tracked"]),
    (lambda: nn.BatchNorm2d(3, affine=False, track_running_stats=False), []),
    (lambda: nn.BatchNorm2d(3, bias=False), ["weight", "running_mean", "running_var",
                                             "num_batches_tracked"]),
    (lambda: nn.GroupNorm(2, 4, bias=False), ["weight"]),
    (lambda: nn.GroupNorm(2, 4), ["weight", "bias"]),
    (lambda: nn.GroupNorm(2, 4, affine=False), []),
    (lambda: nn.InstanceNorm1d(3), []),
    (lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
     ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]),
    (lambda: nn.RMSNorm(4), ["weight"]),
    (lambda: nn.LocalResponseNorm(2), []),
    (lambda: nn.PReLU(3), ["weight"]),
]


@pytest.mark.parametrize("make, keys", STATE_KEYS)
def test_state_dict_keys_match_torch(make, keys):
    assert list(make().state_dict()) == keys


REPRS = [
    (lambda: nn.GroupNorm(2, 4), "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"),
    (lambda: nn.InstanceNorm1d(3), "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, "
                                   "bias=False, track_running_stats=False)"),
    (lambda: nn.BatchNorm3d(3, momentum=None), "BatchNorm3d(3, eps=1e-05, momentum=None, "
                                               "affine=True, bias=True, "
                                               "track_running_stats=True)"),
    (lambda: nn.RMSNorm([2, 3], eps=1e-6), "RMSNorm((2, 3), eps=1e-06, elementwise_affine=True)"),
    (lambda: nn.RMSNorm(4), "RMSNorm((4,), eps=None, elementwise_affine=True)"),
    (lambda: nn.LocalResponseNorm(3), "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"),
    (lambda: nn.PReLU(), "PReLU(num_parameters=1)"),
    (lambda: nn.PReLU(3, 0.1), "PReLU(num_parameters=3)"),
    (lambda: nn.SELU(), "SELU()"),
    (lambda: nn.SELU(True), "SELU(inplace=True)"),
    (lambda: nn.CELU(), "CELU(alpha=1.0)"),
    (lambda: nn.CELU(2.0, True), "CELU(alpha=2.0, inplace=True)"),
    (lambda: nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.Hardtanh(-2, 2, True), "Hardtanh(min_val=-2, max_val=2, inplace=True)"),
    (lambda: nn.ReLU6(), "ReLU6()"),
    (lambda: nn.ReLU6(True), "ReLU6(inplace=True)"),
    (lambda: nn.Hardswish(True), "Hardswish()"),
    (lambda: nn.Hardsigmoid(True), "Hardsigmoid()"),
    (lambda: nn.Mish(True), "Mish(inplace=True)"),
    (lambda: nn.Softsign(), "Softsign()"),
    (lambda: nn.Tanhshrink(), "Tanhshrink()"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.Threshold(0.1, 20.0, True), "Threshold(threshold=0.1, value=20.0, inplace=True)"),
    (lambda: nn.LogSigmoid(), "LogSigmoid()"),
    (lambda: nn.Softmin(), "Softmin(dim=None)"),
    (lambda: nn.Softmin(1), "Softmin(dim=1)"),
    (lambda: nn.GLU(), "GLU(dim=-1)"),
    (lambda: nn.Hardshrink(), "Hardshrink(0.5)"),
    (lambda: nn.Softshrink(0.3), "Softshrink(0.3)"),
]


@pytest.mark.parametrize("make, text", REPRS)
def test_repr_matches_torch(make, text):
    assert repr(make()) == text


ACTIVATION_MODULES = [
    (lambda: nn.SELU(), "selu"), (lambda: nn.CELU(1.5), "celu"),
    (lambda: nn.Threshold(0.1, -2.0), "threshold"), (lambda: nn.Tanhshrink(), "tanhshrink"),
    (lambda: nn.Softmin(1), "softmin"), (lambda: nn.Hardshrink(0.6), "hardshrink"),
    (lambda: nn.Softshrink(0.6), "softshrink"), (lambda: nn.Hardtanh(-0.5, 1.2), "hardtanh"),
    (lambda: nn.ReLU6(), "relu6"), (lambda: nn.Hardswish(), "hardswish"),
    (lambda: nn.Hardsigmoid(), "hardsigmoid"), (lambda: nn.Mish(), "mish"),
    (lambda: nn.Softsign(), "softsign"), (lambda: nn.LogSigmoid(), "logsigmoid"),
    (lambda: nn.GLU(1), "glu"),
]


@pytest.mark.parametrize("make, name", ACTIVATION_MODULES)
def test_activation_modules_are_their_functionals(make, name):
    x = ng.tensor(CASES[name][1][0])
    np.testing.assert_array_equal(make()(x).numpy(), CASES[name][0](F, x).numpy())


def test_inplace_activations_write_into_the_input():
    for module in (nn.SELU(True), nn.CELU(1.5, True), nn.Threshold(0.1, -2.0, True),
                   nn.Hardtanh(-0.5, 1.2, True), nn.ReLU6(True), nn.Hardswish(True),
                   nn.Hardsigmoid(True), nn.Mish(True)):
        x = ng.tensor(wave((2, 4)))
        version = x._version
        out = module(x)
        assert x._version > version
        np.testing.assert_array_equal(x.numpy(), out.numpy())


def test_prelu_module_learns_its_weight():
    prelu = nn.PReLU(3, init=0.1, dtype=ng.float64)
    x = ng.tensor(CASES["prelu"][1][0])
    prelu(x).sum().backward()
    want = np.minimum(CASES["prelu"][1][0], 0).sum((0, 2))
    np.testing.assert_allclose(prelu.weight.grad.numpy(), want)
    np.testing.assert_array_equal(nn.PReLU().weight.detach().numpy(), np.array([0.25], np.float32))


def first_line(call):
    try:
        call()
    except Exception as error:            # noqa: BLE001 - the test compares any error's text
        return type(error).__name__, str(error).splitlines()[0]
    return None


ERRORS = [
    (lambda: F.group_norm(ng.ones(2, 3, 4), 2), "RuntimeError",
     "Expected number of channels in input to be divisible by num_groups, but got input of shape "
     "[2, 3, 4] and num_groups=2"),
    (lambda: F.group_norm(ng.ones(2), 1), "RuntimeError",
     "Expected at least 2 dimensions for input tensor but received 1"),
    (lambda: nn.GroupNorm(2, 3), "ValueError",
     "num_channels (3) must be divisible by num_groups (2)"),
    (lambda: F.instance_norm(ng.ones(2, 3, 1)), "ValueError",
     "Expected more than 1 spatial element when training, got input size numgrad.Size([2, 3, 1])"),
    (lambda: nn.InstanceNorm1d(3)(ng.ones(2, 3, 4, 5)), "ValueError",
     "expected 2D or 3D input (got 4D input)"),
    (lambda: nn.InstanceNorm2d(3)(ng.ones(3, 4)), "ValueError",
     "expected 3D or 4D input (got 2D input)"),
    (lambda: nn.InstanceNorm1d(3, affine=True)(ng.ones(2, 4, 5)), "ValueError",
     "expected input's size at dim=1 to match num_features (3), but got: 4."),
    (lambda: F.rms_norm(ng.ones(2, 3), (2, 4)), "RuntimeError",
     "Given normalized_shape=[2, 4], expected input with shape [*2, 4], but got input of "
     "size[2, 3]"),
    (lambda: F.local_response_norm(ng.ones(2, 3), 2), "ValueError",
     # torch 2.13's message keeps its source's line continuation: 26 spaces
     "Expected 3D or higher dimensionality" + " " * 26 + "input (got 2 dimensions)"),
    (lambda: nn.BatchNorm2d(3)(ng.ones(2, 3, 4)), "ValueError", "expected 4D input (got 3D input)"),
    (lambda: nn.BatchNorm3d(3)(ng.ones(2, 3, 4, 4)), "ValueError",
     "expected 5D input (got 4D input)"),
    (lambda: F.prelu(ng.ones(2, 3), ng.ones(2)), "RuntimeError",
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and "
     "channel size = 3."),
    (lambda: F.prelu(ng.ones(3), ng.ones(3)), "RuntimeError",
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and "
     "channel size = 1."),
    (lambda: F.prelu(ng.ones(2, 3), ng.ones(1, 3)), "RuntimeError",
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda: F.softshrink(ng.ones(2), -1.0), "RuntimeError",
     "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -1"),
    (lambda: F.celu(ng.ones(2), 0.0), "RuntimeError",
     "ZeroDivisionError: alpha cannot be 0 for CELU"),
    (lambda: nn.Hardtanh(2, 1), "AssertionError", "max_val (1) must be greater than min_val (2)"),
]


@pytest.mark.parametrize("call, kind, message", ERRORS)
def test_errors_have_torch_messages(call, kind, message):
    assert first_line(call) == (kind, message)


# ---- values computed with torch 2.13 (float64) from the inputs above: forward, then the
# gradients of (out * wave(out.shape, 1.0, 1.1)).sum() with respect to each float input ----------
# BEGIN EXPECTED
EXPECTED = {
    "group_norm": ([1.032325964, 1.845715624, -0.0614525218, -1.186385062, -0.1756072831,
        -0.2725648348, 0.2347080053, -0.5034875557, -2.386590172, 0.6542405933, 0.954366434,
        0.642825652, 1.954154561, 0.417445389, -0.1041201349, -0.1957962392, -0.1496088455,
        -1.010261616, 0.03825507456, -1.855121467, -0.9594897547, 1.011488158, 0.7580269264,
        0.505077685], [[0.4881622465, -0.1006022606, -0.4539640351, 0.2529511088, 0.07830940354,
        -0.2648564631, 0.387104819, -0.3558247496, -0.07102389445, 0.2333184056, -0.24874342,
        0.05516883951, 0.05716552278, -0.3326508212, 0.2035001017, 0.1783600169, -0.1387019357,
        0.03232711543, -0.1997274291, -0.3907927598, 0.4541680389, 0.005381881699, -0.02342073411,
        0.1543910024], [3.040854628, 2.715910601, 3.026922329, 2.800211604], [-0.4455512255,
        0.7224750077, 0.9917101706, 0.02721373573]]),
    "group_norm_4d": ([0.4464845311, 1.36532421, -0.7890943349, -1.152764078, 1.095368155,
        0.8797189772, -1.312842838, -0.5321946231, 1.25433781, 0.05356729513, -1.485201746,
        0.1120926066, 1.239256482, -0.6484955901, -1.289206543, 0.7636496861], [[0.4701440785,
        -0.2636075056, -0.5017963513, 0.2933338756, 0.3266264173, -0.477082931, -0.3032684236,
        0.45565084, 0.05509822597, -0.5192588536, 0.03566656966, 0.4670254782, -0.1990563859,
        -0.4587733326, 0.2742347288, 0.3450635695]]),
    "instance_norm": ([1.311817044, 2.083953477, 0.2735124515, -0.03209326489, -0.07424233742,
        -0.166680498, -1.106523547, -0.7718981815, -2.014368121, -0.8410362408, 0.6625706102,
        -0.8982241987, 1.913521527, 0.3634028455, -0.1627139219, 1.522979257, -0.1749221127,
        -1.038182803, -0.8620573778, -0.04418227032, -1.028618997, 0.6424203016, -0.6883757178,
        -2.016483537], [[0.4047427609, -0.1940978692, -0.4358972842, 0.2252523926, 0.1290714651,
        -0.2132618384, -0.1166196513, 0.2008100247, -0.03091086876, 0.517549258, -0.04106328138,
        -0.4455751078, -0.1463192811, -0.3738242483, 0.2232488644, 0.296894665, -0.1387562696,
        -0.128436804, 0.1782743076, 0.08891876593, 0.4273840266, 0.09314620395, -0.5043708032,
        -0.01615942733], [3.914276822, 3.942810502, 3.935525302], [0.4660041456, 0.4731451962,
        0.3566983468]]),
    "instance_norm_running": ([0.3308126307, 1.246915838, -0.9010864565, -1.263673125, 0.6463683755,
        0.4607577998, -1.426393657, -0.754484931, 2.242630754, 0.4877543525, -1.761092904,
        0.5732866725, 1.324313309, -0.7036491003, -1.391948029, 0.8133814354, 0.6080625954,
        -1.322444974, -0.9285761576, 0.9004357548, 0.7860945617, -1.7448578, 0.270762856,
        2.28231197], [[0.6650930454, 0.2499960154, -0.7295142657, -0.06200822214, 0.6435671639,
        -0.11230989, -0.6146261419, 0.2706922788, 0.8586488547, -0.6478411172, -0.6917073324,
        0.8260864801, 0.3519762459, -0.6979314113, -0.1721270064, 0.7422866455, -0.0165335605,
        -0.6365385869, 0.1805625451, 0.5900096073, -0.5241378952, -0.7947158828, 0.7289274273,
        0.6068793113]]),
    "batch_norm_train": ([1.215333697, 1.946901073, 0.2315829837, -0.05796580927, -0.1213434089,
        -0.2085996107, -1.095756324, -0.779889606, 2.021645855, 0.9915328107, -0.3285412939,
        1.041740312, 0.01929669254, -0.8037106984, -1.083042851, -0.1880546402, 1.696531505,
        -0.08926178681, 0.2750819232, 1.966987853, -0.4086320305, -1.163648164, -0.5623622065,
        0.03770915697], [[0.3904904373, -0.1954870403, -0.380968592, 0.252805439, 0.1450155729,
        -0.1799534122, -0.1072986041, 0.198948037, 0.08290019716, -0.4430568469, -0.009582338821,
        0.4046730977, -0.0636383102, -0.2032551966, 0.1073598923, 0.1669346906, -0.3233212024,
        -0.2756123635, 0.3534904611, 0.1436687516, -0.2138873768, -0.03180342806, 0.213427726,
        -0.03184959078], [5.894311451, 5.894112897], [0.6879589592, 0.6078887294]]),
    "batch_norm_eval": ([0.2782925198, 1.048954358, -0.4168662141, -0.5506141057, -1.663635356,
        -1.385434827, -1.197314699, -0.5425587045, 0.4099966179, -0.06583146772, 1.67500526,
        -0.5452626547], [[0.559502275, 0.2103064231, -0.269097028, -0.02287306647, -0.9646041162,
        0.1683345395, -0.5989357411, 0.2637819474, 0.2328193829, -0.1756596638, 0.6578945481,
        -0.7857048293], [1.798873208, 1.970168357, 3.158069813]]),
    "rms_norm": ([0.3657789026, 0.5716265086, 0.7416334064, 0.2070610773, 1.070701303,
        -0.06465798595, 1.267028405, -0.1725562982, 1.279333089, -0.08845027855, 1.104401309,
        0.1656911584, 1.102110675, -0.2315291629, 1.113509808, -0.1536128457, 0.9514519661,
        0.08182529435, 0.6582674715, 0.4132876332, 0.3105375858, 0.7541945444, -0.0009088995163,
        1.015499431], [[0.5489951803, 0.09745168425, 0.6887144586, 0.01779707343, 0.7273292601,
        0.004590209347, 0.6946259087, 0.1042854121, 0.5481921627, 0.2609675925, 0.3849300258,
        0.4484706063, 0.2228010649, -0.2526350221, 0.1920712128, -0.1540986345, -0.05209089366,
        0.09016338645, -0.1625481699, 0.1584676421, -0.3273562611, 0.3467483612, -0.3674153546,
        0.2569911583], [1.005124652, 0.9546927554, 1.03172878, 0.9332040975, 1.046675043,
        0.9257927156, 1.046059401, 0.9343944999, 1.030042664, 0.9567626211, 1.002808483,
        0.9870544138]]),
    "rms_norm_default_eps": ([0.4415121775, 1.358505706, -0.7915841388, -1.15452319, 1.094087922,
        0.8778847947, -1.320309167, -0.5376556609, 1.382102327, 0.1532154571, -1.421584263,
        0.2131111539], [[0.5240608354, -0.1856972811, -0.4762086909, 0.308411017, 0.3445414106,
        -0.4558683666, -0.2270691523, 0.5143815868, 0.05763553939, -0.5139308785, 0.07479878888,
        0.4946560542]]),
    "local_response_norm": ([0.5535656379, 1.605174103, -0.9981274929, -1.352700502, 1.273035251,
        1.01461005, -1.549715155, -0.6167246022, 1.723003606, 0.1847516516, -1.775772196,
        0.2570729937, 1.760103078, -0.7139631438, -1.597504854, 1.16541204, 1.235567859,
        -1.494145924, -0.8527771026, 1.636521179, 0.437485108, -1.760545245, 0.001522194178,
        1.760109768, -0.4404486188, -1.635260937, 0.8554926425, 1.492259495, -1.237753874,
        -1.162803936], [[0.8185598536, 0.1577722375, -0.8807752332, 0.06595035513, 0.7771633353,
        -0.2678992333, -0.7306769846, 0.4290940355, 0.626658867, -0.5674103723, -0.4651947338,
        0.6716534004, 0.3701300294, -0.7757089051, -0.1711775524, 0.882547154, -0.1096391377,
        -0.8306842672, 0.3432958669, 0.6938558509, -0.4959431431, -0.5665986247, 0.6151022858,
        0.3922299178, -0.706476121, -0.1845305504, 0.7657627157, 0.07707130399, -0.7737274229,
        0.1595021387]]),
    "local_response_norm_4d": ([0.3800688132, 0.974892878, -0.6461415483, -0.8717208451,
        0.8182477864, 0.5855650615, -0.9003070616, -0.3925762476, 0.9205283655, 0.1289457451,
        -0.9013456746, 0.1893244136, 0.8536684191, -0.4995659019, -0.7786929765, 0.7309544816],
        [[0.4889738336, 0.1341216059, -0.4186256734, -0.06199476302, 0.3261660008, -0.06368656987,
        -0.2538717865, 0.2326129015, 0.2091653247, -0.3934637425, -0.1806643228, 0.4802938501,
        0.1494293554, -0.5362253305, -0.07981467571, 0.4752003771]]),
    "prelu": ([0.5910404133, 1.818594854, -0.2264413064, -0.3302639941, 1.45793808, 1.169834386,
        -0.7402384575, -0.3014395469, 1.944015003, 0.2155073046, 0.951387422, 0.2997544193],
        [[0.8912073601, 0.3349881502, -0.2088883523, -0.01775536951, 0.9989413418, -0.1743267812,
        -0.4013897589, 0.1767791851, 0.8457468311, -0.6381066823, 0.3241697961, 0.8136737375],
        [1.377461106, 1.16427865, 1.362320165]]),
    "prelu_shared": ([0.5910404133, 1.818594854, -0.2649180705, -0.3863822438, 1.45793808],
        [[0.8912073601, 0.3349881502, -0.2443825294, -0.0207723507, 0.9989413418], [1.16427865]]),
    "selu": ([0.6210067458, 1.910799408, -1.148795962, -1.383274206, 1.53185698, 1.229146144,
        -1.455443275, -0.8993045331], [[0.9363924532, 0.3519723801, -0.5956124036, -0.03114399659,
        1.049588654, -0.1831653212, -0.2887397129, 0.3608372696]]),
    "celu": ([0.5910404133, 1.818594854, -0.7599097049, -0.9646783736, 1.45793808, 1.169834386,
        -1.035810577, -0.5696309419], [[0.8912073601, 0.3349881502, -0.4823070355, -0.02965303617,
        0.9989413418, -0.1743267812, -0.2952304298, 0.2606069402]]),
    "threshold": ([0.5910404133, 1.818594854, -2, -2, 1.45793808, 1.169834386, -2, -2],
        [[0.8912073601, 0.3349881502, 0, 0, 0.9989413418, -0.1743267812, 0, 0]]),
    "tanhshrink": ([0.06039694203, 0.8698967182, -0.2741338834, -0.6324842079, 0.5606866898,
        0.3456153145, -0.8169565108, -0.1017477017], [[0.2509483908, 0.3014987658, -0.6032050721,
        -0.06926754272, 0.8042077743, -0.1184266461, -0.8473443917, 0.1587682849]]),
    "softmin": ([0.06678229028, 0.01956776344, 0.347981955, 0.5656679913, 0.02770685919,
        0.03695805796, 0.6916012816, 0.2437338013], [[-0.08096012907, -0.01283802155, 0.2284286127,
        -0.1346304621, -0.04253276133, -0.01337255251, 0.2889938746, -0.2330885608]]),
    "hardshrink": ([0, 1.818594854, -1.059672282, -1.545528975, 1.45793808, 1.169834386,
        -1.75939152, -0.7164585645], [[0, 0.3349881502, -0.9775301177, -0.08308940282, 0.9989413418,
        -0.1743267812, -0.9540192499, 0.4201670368]]),
    "softshrink": ([0, 1.218594854, -0.4596722818, -0.9455289751, 0.8579380803, 0.5698343858,
        -1.15939152, -0.1164585645], [[0, 0.3349881502, -0.9775301177, -0.08308940282, 0.9989413418,
        -0.1743267812, -0.9540192499, 0.4201670368]]),
    "hardtanh": ([0.5910404133, 1.2, -0.5, -0.5, 1.2, 1.169834386, -0.5, -0.5], [[0.8912073601, 0,
        0, 0, 0, -0.1743267812, 0, 0]]),
    "relu6": ([2.364161653, 6, 0, 0, 5.831752321, 4.679337543, 0, 0], [[0.8912073601, 0, 0, 0,
        0.9989413418, -0.1743267812, 0, 0]]),
    "hardswish": ([0.8239262601, 3.637189707, -0.3110687186, -0, 2.874993711, 2.082176046, -0,
        -0.3742499814], [[0.796763391, 0.3349881502, 0.2018093214, 0, 1.470400419, -0.2231190326, 0,
        0.009395337051]]),
    "hardsigmoid": ([0.6970134711, 1, 0.1467759061, 0, 0.9859793601, 0.8899447953, 0, 0.2611804785],
        [[0.1485345644, 0, -0.1629216911, 0, 0.1664902286, -0.0290544644, 0, 0.07002784156]]),
    "mish": ([0.4578164681, 1.749065169, -0.3063281894, -0.2950261182, 1.357595339, 1.045520907,
        -0.2771337617, -0.2708401836], [[0.8259299848, 0.3614945851, -0.03825973387, 0.005883849246,
        1.087219831, -0.1871196017, 0.09012406627, 0.07416101904]]),
    "softsign": ([0.3714804529, 0.6452132882, -0.5144858681, -0.607154344, 0.5931549261,
        0.5391353338, -0.6376012636, -0.4174051033], [[0.3520597224, 0.04216616806, -0.2304272824,
        -0.01282299721, 0.165347682, -0.03702635297, -0.1252940614, 0.1426117568]]),
    "logsigmoid": ([-0.1568346469, -0.004262427133, -3.219800337, -4.646230988, -0.01252431986,
        -0.0294731405, -5.283263325, -2.259625449], [[0.1293628493, 0.001424823819, -0.9384650458,
        -0.08229193501, 0.01243304067, -0.005062980255, -0.9491768012, 0.3763059777]]),
    "glu": ([0.1521173047, 0.3195870593, 0.2141223564, 0.3839084194], [[0.2293718983, 0.05886845967,
        0.1006766266, 0.08824427989, -0.1435664896, -0.02726772413, -0.1785702572,
        -0.02143041244]]),
}
RUNNING = {
    "bn2d": {"running_mean": [0.02289491135, 0.01993007928, 0.01175941047], "running_var":
        [1.346097422, 1.346152691, 1.346198941], "eval": [0.5355221202, 0.5624528131, -0.7250116081,
        -0.4201768964, 0.7912741401, 0.1749288036, -0.8751328455, 0.01180181538, 0.8403379409,
        -0.2582715044, -0.7966661891, 0.440681638, 0.6506525478, -0.6433180831, -0.529428153,
        0.7351942971, 0.2979743777, -0.8533007549, -0.116869648, 0.8446352975, -0.1325205622,
        -0.8403957564, 0.3261993237, 0.7334558117], "eval_grad": [0.7681373894, 0.2887284538,
        -0.8425395326, -0.07161529384, 0.8609763303, -0.1502502961, -0.8222584835, 0.362137253,
        0.7289271793, -0.5499675398, -0.5872066002, 0.7012842147, 0.4065087081, -0.8060634763,
        -0.1987950261, 0.8572907655, -0.0221189101, -0.851573367, 0.2415599898, 0.7893260176,
        -0.4449529694, -0.6746529779, 0.6188036129, 0.5151941008]},
    "bn2d_cumulative": {"running_mean": [0.0839275952, 0.07659041455, 0.04924743319], "running_var":
        [2.277136902, 2.277185839, 2.277328808], "eval": [0.3712935616, 0.3919993543, -0.5978738576,
        -0.3635002235, 0.5708335597, 0.0969488473, -0.7104040003, -0.02847334917, 0.6212534546,
        -0.22341396, -0.6373594692, 0.3139771449, 0.4598121446, -0.535063398, -0.4474985775,
        0.524812475, 0.1915539542, -0.6936181283, -0.1274039905, 0.6118609435, -0.1267301715,
        -0.6709810085, 0.2259572569, 0.5390769795], "eval_grad": [0.5905861259, 0.2219902603,
        -0.6477905716, -0.05506176308, 0.6619722686, -0.1155217929, -0.6322035746, 0.2784336927,
        0.5604366853, -0.4228433152, -0.451474619, 0.5391833532, 0.3125461752, -0.6197457803,
        -0.1528445119, 0.6591321279, -0.01700639679, -0.6547426843, 0.1857263769, 0.6068830421,
        -0.3421027153, -0.5187078893, 0.4757680266, 0.3961077077]},
    "bn3d": {"running_mean": [0.0692618925, 0.06254020396], "running_var": [1.850780277,
        1.833292269], "eval": [0.4226256491, 0.4455928876, -0.6523923246, -0.3924208643,
        0.6465753703, 0.1184271127, -0.7813740172, -0.02135691656, 0.6744227873, -0.2625370154,
        -0.7217121843, 0.3335720033, 0.5282545321, -0.5805302095, -0.4829395736, 0.6006971357],
        "eval_grad": [0.6550887781, 0.2462355988, -0.7185409805, -0.06107550027, 0.7377733255,
        -0.1287499513, -0.7045958808, 0.3103165512, 0.621672669, -0.4690451915, -0.500804888,
        0.5980970965, 0.3483314397, -0.6907041488, -0.1703445862, 0.7346000729]},
    "in1d": {"running_mean": [0.02289491135, 0.01993007928, 0.01175941047], "running_var":
        [1.446552202, 1.446418781, 1.446307133], "eval": [0.5165932384, 0.542572023, -0.6993849187,
        -0.4053250751, 0.7633561698, 0.1687569133, -0.8442561473, 0.01138542021, 0.8107341036,
        -0.2491729891, -0.7686008417, 0.425157089, 0.6276541977, -0.6205789814, -0.5107146721,
        0.7092076842, 0.2874611568, -0.8231943431, -0.1127462182, 0.8148346229, -0.1278520628,
        -0.8107898823, 0.3147078139, 0.7076172704], "eval_grad": [0.7409863505, 0.278522887,
        -0.8127586316, -0.06908393727, 0.8305991065, -0.1449491203, -0.7932473143, 0.3493602184,
        0.7032481749, -0.5305930135, -0.5665201979, 0.6765790303, 0.3921400106, -0.7775718795,
        -0.1917682994, 0.8269884587, -0.02133850412, -0.8215279014, 0.2330371981, 0.7614767815,
        -0.4292779478, -0.6508859718, 0.5970040956, 0.4970445902]},
}
# END EXPECTED
