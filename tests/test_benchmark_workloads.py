"""The benchmarks' peers must compute what numgrad computes, or their timings compare nothing."""
import numpy as np

from benchmarks.workloads import ConvNetStep, TensorMLPStep


def test_the_hand_written_numpy_mlp_step_is_numgrads_step():
    workload = TensorMLPStep()
    by_hand, numgrad = workload.prepare("numpy"), workload.prepare("numgrad")
    ws, bs, _, _ = by_hand
    before = [p.copy() for p in ws + bs]
    for _ in range(2):
        workload.run("numpy", by_hand)
        workload.run("numgrad", numgrad)
    for p, q, p0 in zip(ws + bs, numgrad[1], before):
        assert not np.array_equal(p, p0)            # the step moved every parameter
        np.testing.assert_allclose(p, q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_the_conv_net_step_trains_its_model():
    workload = ConvNetStep()
    state = workload.prepare("numgrad")
    mod, model, _, x, y = state

    def loss():
        with mod.no_grad():
            return mod.nn.functional.cross_entropy(model(x), y).item()
    before = loss()
    for _ in range(3):
        workload.run("numgrad", state)
    assert loss() < before - 0.1       # three Adam steps on one batch
