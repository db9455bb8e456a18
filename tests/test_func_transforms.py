"""numgrad.func's transforms (functional_call, vjp, jvp, jacrev, jacfwd, hessian, vmap) against
numbers from torch.func 2.x (rounded to 12 places), in float64 and float32, and their
composition."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import func
from numgrad.autograd import gradcheck

X = [0.5, -1.0, 2.0]
Y = [1.5, 0.25, -0.5]
W = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]


def t(a, dtype=ng.float64, requires_grad=False):
    return ng.tensor(a, dtype=dtype, requires_grad=requires_grad)


def close(tensor, expected, tol=1e-10):
    assert isinstance(tensor, ng.Tensor)
    np.testing.assert_allclose(tensor.detach().numpy(), np.asarray(expected), rtol=tol, atol=tol)


def pair(x, y):
    return x.sin() * y, (x * y).sum()


def test_public_names_are_the_transforms():
    assert sorted(func.__all__) == ["functional_call", "grad", "grad_and_value", "hessian",
                                    "jacfwd", "jacrev", "jvp", "linearize",
                                    "stack_module_state", "vjp", "vmap"]


# ---- vjp, jvp ------------------------------------------------------------------------------------
def test_vjp_of_tuple_output_and_dict_primal():
    out, vjp_fn = func.vjp(pair, t(X), t(Y))
    close(out[0], [0.719138307906, -0.210367746202, -0.454648713413])
    close(out[1], -0.5)
    gx, gy = vjp_fn((t(Y), t(2.0)))
    close(gx, [4.974560764253, 0.533768894117, -1.104036709137])
    close(gy, [1.719138307906, -2.210367746202, 3.545351286587])
    assert not (out[0].requires_grad or gx.requires_grad)
    close(vjp_fn((t(Y), t(2.0)))[0], gx.numpy())           # vjp_fn may be called again

    out, vjp_fn, aux = func.vjp(lambda p: ((p["w"] @ p["x"]).tanh(), p["x"].exp()),
                                {"w": t(W), "x": t(X)}, has_aux=True)
    (g,) = vjp_fn(t([1.0, -1.0]))
    close(g["w"], [[0.261211493932, -0.522422987865, 1.04484597573],
                   [-0.090353319462, 0.180706638924, -0.361413277847]])
    close(g["x"], [-0.020040356783, -0.194837917035, 0.265150879714])
    close(aux, np.exp(X))
    with pytest.raises(RuntimeError, match="Expected pytree structure of cotangents"):
        vjp_fn((t([1.0, -1.0]),))
    with pytest.raises(RuntimeError, match="must be floating-point or complex Tensors"):
        func.vjp(lambda x: (x > 0).long(), t(X))


def test_jvp_by_double_vjp():
    out, tangent = func.jvp(pair, (t(X), t(Y)), (t(Y), t(X)))
    close(out[1], -0.5)
    close(tangent[0], [2.214273533555, 0.875239878925, 1.714558144515])
    close(tangent[1], 7.8125)
    out, tangent, aux = func.jvp(lambda x: (x * x, x + 1), (t(X, ng.float32),),
                                 (t(Y, ng.float32),), has_aux=True)
    assert tangent.dtype == ng.float32
    close(tangent, 2 * np.array(X) * Y, 1e-6)
    close(func.jvp(lambda x: t(Y), (t(X),), (t(X),))[1], np.zeros(3))
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        func.jvp(lambda x: t(Y), (t(X),), (t(X),), strict=True)
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        func.jvp(lambda x: x, t(X), (t(X),))
    with pytest.raises(RuntimeError, match="different size"):
        func.jvp(lambda x: x, (t(X),), (t(Y[:2]),))


# ---- jacrev, jacfwd, hessian ---------------------------------------------------------------------
def test_jacrev_nests_like_torch():
    jac = func.jacrev(pair, argnums=(0, 1))(t(X), t(Y))
    assert isinstance(jac, tuple) and all(isinstance(j, tuple) and len(j) == 2 for j in jac)
    close(jac[0][0], np.diag([1.316373842836, 0.135075576467, 0.208073418274]))
    close(jac[0][1], np.diag([0.479425538604, -0.841470984808, 0.909297426826]))
    close(jac[1][0], Y)
    close(jac[1][1], X)
    jac = func.jacrev(lambda p, x: (p["w"] @ x).tanh())({"w": t(W), "b": t(Y)}, t(X))
    close(jac["w"], [[[0.261211493932, -0.522422987865, 1.04484597573], [0, 0, 0]],
                     [[0, 0, 0], [0.090353319462, -0.180706638924, 0.361413277847]]])
    close(jac["b"], np.zeros((2, 3)))            # unused: zeros, as torch
    jac, aux = func.jacfwd(lambda x: (x.exp(), x.sum()), has_aux=True)(t(X))
    close(jac, np.diag(np.exp(X)))
    close(aux, sum(X))
    with pytest.raises(ValueError, match="chunk_size"):
        func.jacrev(pair, chunk_size=0)


def test_hessian_and_nested_jacobians():
    h = func.hessian(lambda x, y: (x.sin() * y ** 2).sum(), argnums=(0, 1))(t(X), t(Y))
    close(h[0][0], np.diag([-1.078707461859, 0.05259193655, -0.227324356706]))
    close(h[0][1], np.diag([2.632747685671, 0.270151152934, 0.416146836547]))
    close(h[1][0], h[0][1].numpy())
    close(h[1][1], np.diag([0.958851077208, -1.682941969616, 1.818594853651]))
    f = lambda x: (x.sin() * x.sum()).sum()                  # noqa: E731
    h32 = func.hessian(f)(t(X, ng.float32))
    assert h32.dtype == ng.float32
    close(h32, [[1.036026716232, 1.41788482666, 0.461435705423],
                [1.41788482666, 2.342811107635, 0.12415549159],
                [0.461435705423, 0.12415549159, -2.196239709854]], 1e-5)
    close(func.jacrev(func.jacrev(f))(t(X)), func.hessian(f)(t(X)).numpy())
    close(func.grad(func.grad(lambda x: (x ** 3).sin()))(t(0.7)),
          6 * 0.7 * np.cos(0.343) - 9 * 0.7 ** 4 * np.sin(0.343))


def test_results_stay_differentiable_through_closures_and_inputs():
    w = t(Y, requires_grad=True)
    jac = func.jacrev(lambda x: x * w.exp())(t(X))
    (jac ** 2).sum().backward()                              # d/dw sum(exp(2w)) = 2 exp(2w)
    close(w.grad, 2 * np.exp(2 * np.array(Y)))
    # the jvp and vjp of a gradient are Hessian-vector products, checked against finite differences
    assert gradcheck(lambda x: func.jvp(func.grad(lambda z: (z.sin() * z).sum()), (x,),
                                        (t(Y),))[1], (t(X, requires_grad=True),))
    assert gradcheck(lambda x: func.vjp(lambda z: z.tanh() * z.sum(), x)[1](t(Y))[0],
                     (t(X, requires_grad=True),))


# ---- vmap ----------------------------------------------------------------------------------------
def test_vmap_in_dims_out_dims_and_pytrees():
    out = func.vmap(lambda x, y: x @ y, in_dims=(0, None))(t(W), t(Y))
    close(out, np.array(W) @ Y)
    a, b = func.vmap(lambda x, y: (x * y, x.sum()), in_dims=(1, 0), out_dims=(1, 0))(t(W), t(Y))
    close(a, [[0.15, -0.05, -0.15], [0.6, 0.125, 0.3]])
    close(b, [0.5, 0.3, -0.3])
    out = func.vmap(lambda d, lst: d["a"] * lst[0] + lst[1], in_dims=({"a": 1}, [None, 0]))(
        {"a": t(W)}, [t(X[:2]), t(Y)])
    close(out, (np.array(W) * np.array(X[:2])[:, None]).T + np.array(Y)[:, None])
    close(func.vmap(lambda x: x.cumsum(0), in_dims=-1, out_dims=-1)(t(W)), np.cumsum(W, 0))
    a, b = func.vmap(lambda x, y: (x * 2, y * 3), in_dims=(0, None), out_dims=(0, None))(t(W),
                                                                                     t(Y))
    close(b, np.array(Y) * 3)                # out_dim None: returned once
    close(func.vmap(func.vmap(lambda p, q: p * q, in_dims=(0, None)), in_dims=(None, 0))(
        t(X), t(Y)), np.outer(Y, X))
    out = func.vmap(lambda x, scale: x * scale, in_dims=(0, None))(t(W, ng.float32), 2.0)
    assert out.dtype == ng.float32
    empty = func.vmap(lambda x: x.sum(0, keepdim=True), out_dims=1)(ng.zeros(0, 3))
    assert tuple(empty.shape) == (1, 0)


def test_vmap_errors_read_as_torch():
    with pytest.raises(ValueError, match=r"got sizes \[3, 2\] for the mapped dimension"):
        func.vmap(lambda x, y: x + y)(t(X), t(Y[:2]))
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        func.vmap(lambda x, y: x + y, in_dims=(0, 0))(t(X), 2.0)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure"):
        func.vmap(lambda x, y: x + y, in_dims=(0,))(t(X), t(X))
    with pytest.raises(ValueError, match=r"expected in_dim to satisfy -1 <= in_dim < 1"):
        func.vmap(lambda x: x, in_dims=1)(t(X))
    with pytest.raises(ValueError, match="at least one Tensor to vmap over"):
        func.vmap(lambda x: x, in_dims=(None,))(t(X))
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        func.vmap(lambda x: x * 2, out_dims=None)(t(X))
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'int'>"):
        func.vmap(lambda x: 1)(t(X))
    with pytest.raises(ValueError, match=r"chunk_size should be None or greater than 0. \(got 0"):
        func.vmap(lambda x: x, chunk_size=0)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        func.vmap(lambda x: x, randomness="sometimes")


def test_vmap_randomness():
    with pytest.raises(RuntimeError, match="called random operation while in randomness error"):
        func.vmap(lambda x: x + ng.rand(()))(t(X))
    same = func.vmap(lambda x: x + ng.rand(()), randomness="same")(t([0.0] * 4)).numpy()
    assert np.all(same == same[0])
    different = func.vmap(lambda x: x + ng.rand(()), randomness="different")(t([0.0] * 4))
    assert len(set(different.numpy())) == 4


def test_vmap_is_differentiable():
    w, y = t(W, requires_grad=True), t(Y, requires_grad=True)
    out = func.vmap(lambda a, b: (a * b).sin(), in_dims=(1, None), out_dims=1)(w, y[:2])
    (out * t(np.arange(6.0).reshape(2, 3))).sum().backward()
    close(w.grad, [[0.0, 1.433004733688, 2.701341307058],
                   [0.746253123959, 0.992197667229, 1.23596384742]])
    close(y.grad, [0.349200963586, 0.212087098984, 0.0])
    assert gradcheck(lambda a, b: func.vmap(lambda p, q: (p * q).tanh().sum(),
                                            in_dims=(0, None))(a, b),
                     (t(W, requires_grad=True), t(Y, requires_grad=True)))
    close(func.vmap(func.grad(lambda v, x: (v * x).sin().sum()), in_dims=(None, 0))(t(Y), t(W)),
          [[0.098877107794, -0.199750052079, 0.296631323381],
           [0.330134245964, 0.496098833615, -0.573201893475]])
    close(func.jacrev(func.vmap(lambda x: x.sin()))(t(W)).reshape(6, 6),
          np.diag(np.cos(W).ravel()))


# ---- functional_call -----------------------------------------------------------------------------
class Net(ng.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = ng.nn.Linear(3, 3)
        self.dec = ng.nn.Linear(3, 3)
        self.dec.weight = self.enc.weight                        # tied
        self.register_buffer("scale", ng.ones(3))

    def forward(self, x, boom=False):
        if boom:
            raise ValueError("boom")
        return self.dec(self.enc(x)) * self.scale


def _given():
    return {"enc.weight": t(np.arange(9.0).reshape(3, 3) / 10 - 0.4, requires_grad=True),
            "enc.bias": t(X, requires_grad=True), "dec.bias": t(Y),
            "scale": t([2.0, 1.0, -1.0])}


def test_functional_call_substitutes_nested_tied_parameters_and_buffers():
    net = Net().double()
    weight = net.enc.weight
    given = _given()
    out = func.functional_call(net, given, (t(W),))
    close(out, [[2.388, 0.412, -0.13], [2.616, 0.418, -0.028]])
    out.sum().backward()
    close(given["enc.weight"].grad, [[0.99, -4.49, 8.47], [0.32, -2.35, 4.34],
                                     [-1.12, 1.87, -3.86]])
    close(given["enc.bias"].grad, [-2.2, -1.8, -1.4])
    assert net.enc.weight is weight and net.dec.weight is weight and weight.grad is None
    close(net.scale, np.ones(3))
    untied = func.functional_call(net, given, t(W), tie_weights=False)   # dec keeps its weight
    hidden = np.array(W) @ given["enc.weight"].detach().numpy().T + X
    close(untied, (hidden @ weight.detach().numpy().T + Y) * [2, 1, -1])
    with pytest.raises(ValueError, match="boom"):
        func.functional_call(net, given, (t(W),), {"boom": True})
    assert net.enc.weight is weight and isinstance(net.enc.bias, ng.nn.Parameter)


def test_functional_call_checks_keys_as_torch():
    net = Net().double()
    w = t(np.eye(3))
    with pytest.raises(ValueError, match=r"multiple values for keys \['dec.weight', "
                                         r"'enc.weight'\], which are tied"):
        func.functional_call(net, {"enc.weight": w, "dec.weight": w * 2}, (t(W),))
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Net:\n\t"
                                           "Unexpected key\\(s\\): 'bogus'.\n\tMissing key\\(s\\): "
                                           "'dec.bias', 'enc.bias', 'scale'."):
        func.functional_call(net, {"enc.weight": w, "bogus": w}, (t(W),), strict=True)
    with pytest.raises(AttributeError, match="Net has no attribute `nope`"):
        func.functional_call(net, {"enc.weight": w, "nope.w": w}, (t(W),))
    assert isinstance(net.enc.weight, ng.nn.Parameter)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        func.functional_call(net, [{"enc.weight": w}, {"enc.weight": w}], (t(W),))
    out = func.functional_call(net, [{"enc.weight": w}, {"scale": ng.zeros(3)}], (t(W),))
    close(out, np.zeros((2, 3)))


def test_functional_call_writes_reassigned_buffers_back():
    bn = ng.nn.BatchNorm1d(3).double()
    buffers = {"running_mean": t([0.0] * 3), "running_var": t([1.0] * 3),
               "num_batches_tracked": ng.tensor(0)}
    func.functional_call(bn, buffers, (t([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]),))
    close(buffers["running_mean"], [0.2, 0.2, 0.2])
    assert int(buffers["num_batches_tracked"]) == 1
    close(bn.running_mean, np.zeros(3))
    assert int(bn.num_batches_tracked) == 0


def test_per_sample_gradients_recipe():
    lin = ng.nn.Linear(3, 2).double()

    def loss(params, x, target):
        return ((func.functional_call(lin, params, (x,)) - target) ** 2).sum()

    xs = t([X, Y, list(np.multiply(X, Y))])
    targets = t([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    g = func.vmap(func.grad(loss), in_dims=(None, 0, 0))({"weight": t(W), "bias": t(Y[:2])},
                                                         xs, targets)
    close(g["weight"], [[[1.35, -2.7, 5.4], [-1.25, 2.5, -5.0]],
                        [[4.35, 0.725, -1.45], [0.825, 0.1375, -0.275]],
                        [[0.4875, -0.1625, -0.65], [0.0375, -0.0125, -0.05]]])
    close(g["bias"], [[2.7, -2.5], [2.9, 0.55], [0.65, 0.05]])


def test_functional_call_under_torchs_older_name():
    model = ng.nn.Linear(2, 1)
    weight = ng.ones(1, 2, requires_grad=True)
    out = ng.nn.utils.stateless.functional_call(model, {"weight": weight, "bias": ng.zeros(1)},
                                                (ng.tensor([[1., 2.]]),))
    out.sum().backward()
    assert out.item() == 3.0
    np.testing.assert_array_equal(weight.grad.numpy(), [[1., 2.]])
