"""RNN, LSTM and GRU on PackedSequence input: torch 2.13's numbers for small fixed modules
(weights, inputs and states from _fill, copied into torch's modules to make them), and properties
that need no torch: a packed batch runs each sequence as if alone, batch_first does not apply,
torch's errors."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.nn import GRU, LSTM, RNN
from numgrad.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence


def _fill(shape, k):
    """Fixed values of the given shape, different for each k (torch's numbers used the same)."""
    n = int(np.prod(shape))
    return 0.6 * np.sin(0.37 * np.arange(n) + 1.3 * k).reshape(shape)


# module, its configuration, lengths, enforce_sorted, initial states given, batch_first; the
# module is made with input_size 2 and hidden_size 3, parameter `name` filled with
# _fill(shape, its index in the sorted names), the input with k=7, h_0 with 8 and c_0 with 9
CASES = {
    "lstm": (LSTM, dict(num_layers=2, bidirectional=True, proj_size=2), [2, 1, 3], False, True,
             False),
    "gru": (GRU, dict(bidirectional=True), [3, 2, 2], True, False, True),
    "rnn": (RNN, dict(num_layers=2, nonlinearity="relu"), [1, 3], False, True, False),
}

# torch in float64: output data, batch_sizes, (sorted_indices, unsorted_indices), h_n (and c_n),
# the gradients of loss (see _run) w.r.t. the padded input and the initial states (shape, values
# flattened), and per parameter (sum of its gradient, sum of gradient * _fill(shape, 11))
TORCH = {
    "lstm": {
        "data": ((6, 4), [
            0.00785418438455101, -0.07174404481318956, -0.17611676838702545,
            -0.23359622675871716, 0.13944678560091006, -0.3121580468431132,
            -0.17230645996279131, -0.19415672320616828, 0.0593381254106764,
            -0.14592381714762273, -0.34469848261090064, -0.3383342718915042,
            0.09330556817968509, -0.22827893040890515, -0.1435671288597692,
            -0.19864975705552637, 0.11085649379361959, -0.28913403594255005,
            -0.20042288656027418, -0.17215949237182335, 0.11612275266962933,
            -0.2763615911586506, -0.1765610915941974, -0.232617553012354]),
        "batch_sizes": [3, 2, 1],
        "indices": ([2, 0, 1], [1, 2, 0]),
        "states": [((4, 3, 2), [
            -0.11178181041601072, -0.33002449058178973, -0.1486273412465056,
            -0.47058007141366787, -0.12589580727200492, -0.6265299385609957,
            0.16309599973311764, 0.03341408119721073, 0.4666152400866228,
            0.17439352598168, 0.49436776826446366, 0.1897731549865559,
            0.11085649379361959, -0.28913403594255005, 0.0593381254106764,
            -0.14592381714762273, 0.11612275266962933, -0.2763615911586506,
            -0.17230645996279131, -0.19415672320616828, -0.34469848261090064,
            -0.3383342718915042, -0.17611676838702545, -0.23359622675871716]),
        ((4, 3, 3), [
            0.2155552394117291, 0.4310082125678045, 0.5015527373665369,
            0.2904407210114174, 0.5416784259725728, 0.7436377321547798,
            0.7496843061860727, 0.9231178421557953, 0.9691911549702142,
            0.0853932191230157, -0.5017985368175208, -0.803537815784334,
            -0.53424978624331, -0.9465242567736183, -0.9907502858199243,
            -0.46907502435921267, -1.1105793088644482, -1.1172628462340057,
            -0.9131006768128844, -0.84624750456084, -0.575507320131076,
            -0.34550465691926846, -0.37984735087100896, -0.22974175035858313,
            -0.8665860899865064, -0.875010724075935, -0.5370677472045724,
            -0.3172647507167206, -0.20941400944723276, -0.09688731785631446,
            -0.4158318304022892, -0.4423395524840947, -0.31842506739393195,
            -0.45631798397455026, -0.25667007122551644, -0.0009470751349368244])],
        "x_grad": ((3, 3, 2), [
            -0.07105680976813539, 0.20611470627177017, -0.5905644303322211,
            -0.2978559707218865, -0.8073366368541823, -0.24725300602099776,
            0.12370957915473124, 0.29567009599971017, 0.0,
            0.0, -1.3184826460657066, -0.9333952563473874,
            0.0, 0.0, 0.0,
            0.0, -1.219831089250529, -1.0910775476330903]),
        "state_grads": [((4, 3, 2), [
            -0.27944668117776816, -0.3769658318094759, -0.18535343339555835,
            -0.3700156909187062, -0.13188924258604626, -0.28535614575571383,
            0.6370804891928555, 0.6691162089055185, 1.0952424442331088,
            1.2533333427007551, 1.0028038721391832, 1.215128645493012,
            0.22441923849234519, 0.19919562393604667, 0.3974828659535466,
            0.38462411809356034, 0.23143397757219028, 0.22250672427120194,
            -0.0037474714190236873, -0.038363581542442335, -0.2067295700013419,
            -0.34555414328637085, 0.02640948960814736, 0.04007951909313398]),
        ((4, 3, 3), [
            0.420745221530184, 0.6484319036203213, 0.6855310346501369,
            0.5680671949895835, 0.8772428439492226, 1.0356595011362235,
            0.44461556950416437, 0.5822328230037779, 0.6904806296155718,
            -0.15964974608706028, -0.686379498874831, -0.619784171181561,
            -1.1243494683304385, -1.5783449146318493, -1.2040071464375186,
            -1.0697462136955493, -1.22376360190666, -0.7100061281064121,
            -0.4633975297157505, -0.26627184925713104, -0.05932258404275674,
            -0.3349124061724578, -0.31738908706262076, -0.1578729908895886,
            -0.170617554248858, -0.17263135781088093, -0.04912570975540725,
            -0.12009285679718194, -0.12213697822111505, -0.08637065959094625,
            -0.3748049215752281, -0.4906073171886376, -0.35972924504229703,
            0.010120151778381263, 0.034733322735608474, 0.05773937731375578])],
        "param_grads": {
            "weight_ih_l0": (-2.0382783297525444, -1.404386014151493),
            "weight_hh_l0": (-9.734409970343776, -1.526712654376768),
            "bias_ih_l0": (13.440516056356481, -2.539240706507499),
            "bias_hh_l0": (13.440516056356481, -2.539240706507499),
            "weight_hr_l0": (-6.624318989649527, -1.1589617532526755),
            "weight_ih_l0_reverse": (0.8931364771165433, 1.6920491727275802),
            "weight_hh_l0_reverse": (-2.352825412432475, -2.8274762402941884),
            "bias_ih_l0_reverse": (-4.717810999276852, 6.065148626597328),
            "bias_hh_l0_reverse": (-4.717810999276853, 6.065148626597328),
            "weight_hr_l0_reverse": (-6.589750773856397, -1.3208099663466224),
            "weight_ih_l1": (-0.1885727917785187, -0.5845448596352224),
            "weight_hh_l1": (0.10247227531042061, 0.29522266214746),
            "bias_ih_l1": (-0.0013614829586240385, 3.418990779641465),
            "bias_hh_l1": (-0.0013614829586241495, 3.418990779641465),
            "weight_hr_l1": (-2.1574787996072144, -0.8919809623390905),
            "weight_ih_l1_reverse": (0.026983040977517254, -0.29655121317884),
            "weight_hh_l1_reverse": (-0.19874424977636013, 0.31846331483024615),
            "bias_ih_l1_reverse": (0.1266646930846082, 1.4047599761728147),
            "bias_hh_l1_reverse": (0.12666469308460815, 1.4047599761728147),
            "weight_hr_l1_reverse": (1.1224626784474836, 0.21110516013780165),
        },
    },
    "gru": {
        "data": ((7, 6), [
            -0.1532337151584332, -0.14882579186379027, -0.12611095494842306,
            -0.3700505753598972, -0.2903245352656734, 0.013031247318907258,
            -0.09948023679538937, -0.20090166883832006, -0.2791641756842172,
            -0.3772464116501309, -0.39041271933291244, -0.20779738324746577,
            -0.17985192614294285, 0.02888617005060861, 0.17278611839121477,
            0.45211930539171863, 0.530277653160621, 0.31643149762015227,
            -0.19680455688517073, -0.3058144461857786, -0.3351774055769448,
            -0.4100817108555547, -0.42410924555164276, -0.16353315324933046,
            -0.15559409702137272, -0.32676581165267937, -0.40155877265255296,
            -0.18985944574048302, -0.1640994750176343, -0.05229512654810608,
            -0.24226564608515447, 0.07160574103240455, 0.24581468810136092,
            0.2449230190056506, 0.3206417498795696, 0.2256735737957039,
            -0.20177655211604767, -0.41426554418258377, -0.4713410120785309,
            -0.2716424104536222, -0.33000887473718726, -0.21211754663949134]),
        "batch_sizes": [3, 3, 1],
        "indices": None,
        "states": [((2, 3, 3), [
            -0.20177655211604767, -0.41426554418258377, -0.4713410120785309,
            -0.15559409702137272, -0.32676581165267937, -0.40155877265255296,
            -0.24226564608515447, 0.07160574103240455, 0.24581468810136092,
            -0.3700505753598972, -0.2903245352656734, 0.013031247318907258,
            -0.3772464116501309, -0.39041271933291244, -0.20779738324746577,
            0.45211930539171863, 0.530277653160621, 0.31643149762015227])],
        "x_grad": ((3, 3, 2), [
            0.03689288242022738, -0.020220656832724275, -0.2513339045456196,
            -0.2964425291129448, 0.06921504579747208, -0.09585947127988917,
            -0.10282180639409247, -0.08900911588909605, -0.5777717274477252,
            -0.6241036404745234, 0.0, 0.0,
            1.1472753458732998, 1.1761294364297867, 0.191593393675729,
            0.06868444861271078, 0.0, 0.0]),
        "state_grads": [],
        "param_grads": {
            "weight_ih_l0": (2.0133854995807976, 0.48268412475693695),
            "weight_hh_l0": (0.9404085785538585, 0.13638239013531667),
            "bias_ih_l0": (-1.9767037070440836, 0.7556780356108113),
            "bias_hh_l0": (-1.318540385523848, 0.40818777352053337),
            "weight_ih_l0_reverse": (2.9927093351912664, 1.0155608768106053),
            "weight_hh_l0_reverse": (0.7689609252188292, 0.0357390785720391),
            "bias_ih_l0_reverse": (-0.17436634744332316, -0.0906598424213268),
            "bias_hh_l0_reverse": (-0.3660884304863099, 0.015415546303139467),
        },
    },
    "rnn": {
        "data": ((4, 3), [
            0.7878308565274952, 0.8679001064632526, 0.0374716970859702,
            0.6566112314093796, 0.007634509895770747, 0.0,
            0.45065739232048985, 0.7447496700951528, 0.26512464164729077,
            0.5431994935611213, 0.0, 0.0]),
        "batch_sizes": [2, 1, 1],
        "indices": ([1, 0], [1, 0]),
        "states": [((2, 2, 3), [
            1.0212616826393517, 0.00951268205120992, 0.0,
            0.48396769830704517, 0.6964617162014015, 0.5439666009410062,
            0.6566112314093796, 0.007634509895770747, 0.0,
            0.5431994935611213, 0.0, 0.0])],
        "x_grad": ((3, 2, 2), [
            1.1647854859480304, 1.1481200122014492, 0.22154351415221216,
            0.2108799426242421, 0.0, 0.0,
            0.09113319315796052, -0.14106700291700988, 0.0,
            0.0, 1.3945814436146413, 0.9391955331450482]),
        "state_grads": [((2, 2, 3), [
            -1.1453194785467684, -0.9073255750925072, -0.5465294115061635,
            -0.19600916668164212, -0.1451554160292382, -0.07465556077211642,
            0.46241096562233985, 0.7862327036937835, 1.003641533704622,
            0.3422171511653747, 0.3821243002258122, 0.37031271787681497])],
        "param_grads": {
            "weight_ih_l0": (0.5988455597739178, 0.578951641794777),
            "weight_hh_l0": (-1.4318797205468707, -2.4002761364152687),
            "bias_ih_l0": (6.68431146057688, 3.4514549877489187),
            "bias_hh_l0": (6.68431146057688, 3.4514549877489187),
            "weight_ih_l1": (3.7278180584845226, 1.9058118328855367),
            "weight_hh_l1": (3.4568149562447483, 1.0898172541882756),
            "bias_ih_l1": (3.3251895746220934, 1.9032450885378958),
            "bias_hh_l1": (3.3251895746220934, 1.9032450885378958),
        },
    },
}


def _run(key, dtype):
    cls, config, lengths, enforce_sorted, with_states, batch_first = CASES[key]
    module = cls(2, 3, batch_first=batch_first, dtype=dtype, **config)
    names = sorted(name for name, _ in module.named_parameters())
    for name, param in module.named_parameters():
        param.data = ng.tensor(_fill(param.shape, names.index(name)), dtype=dtype)
    batch, steps = len(lengths), max(lengths)
    x = ng.tensor(_fill((batch, steps, 2) if batch_first else (steps, batch, 2), 7), dtype=dtype,
                  requires_grad=True)
    states = []
    if with_states:
        layers = config.get("num_layers", 1) * (2 if config.get("bidirectional") else 1)
        states.append(ng.tensor(_fill((layers, batch, config.get("proj_size", 3)), 8),
                                dtype=dtype, requires_grad=True))
        if cls is LSTM:
            states.append(ng.tensor(_fill((layers, batch, 3), 9), dtype=dtype,
                                    requires_grad=True))
    hx = None if not states else tuple(states) if cls is LSTM else states[0]
    packed = pack_padded_sequence(x, lengths, batch_first=batch_first,
                                  enforce_sorted=enforce_sorted)
    output, h_n = module(packed, hx)
    finals = h_n if cls is LSTM else (h_n,)
    padded, _ = pad_packed_sequence(output, batch_first=batch_first)
    loss = (padded * ng.tensor(_fill(padded.shape, 10), dtype=dtype)).sum() + \
        sum((state * state).sum() for state in finals)
    loss.backward()
    return module, x, states, output, finals


def _close(actual, expected, dtype):
    shape, values = expected
    assert tuple(actual.shape) == shape
    tol = 1e-10 if dtype == ng.float64 else 1e-5
    np.testing.assert_allclose(actual.detach().numpy().reshape(-1), values, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [ng.float64, ng.float32])
@pytest.mark.parametrize("key", list(CASES))
def test_matches_torch(key, dtype):
    module, x, states, output, finals = _run(key, dtype)
    want = TORCH[key]
    assert isinstance(output, PackedSequence)
    assert output.data.dtype == dtype
    _close(output.data, want["data"], dtype)
    assert output.batch_sizes.tolist() == want["batch_sizes"]
    if want["indices"] is None:
        assert output.sorted_indices is None and output.unsorted_indices is None
    else:
        assert (output.sorted_indices.tolist(), output.unsorted_indices.tolist()) == \
            want["indices"]
    assert len(finals) == len(want["states"])
    for final, expected in zip(finals, want["states"]):
        _close(final, expected, dtype)
    _close(x.grad, want["x_grad"], dtype)
    assert len(states) == len(want["state_grads"])
    for state, expected in zip(states, want["state_grads"]):
        _close(state.grad, expected, dtype)
    grads = dict(module.named_parameters())
    assert list(grads) == list(want["param_grads"])
    tol = 1e-10 if dtype == ng.float64 else 1e-5
    for name, (total, weighted) in want["param_grads"].items():
        grad = grads[name].grad.numpy().astype(np.float64)
        np.testing.assert_allclose([grad.sum(), (grad * _fill(grad.shape, 11)).sum()],
                                   [total, weighted], rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("cls, config", [
    (LSTM, dict(num_layers=2, bidirectional=True, proj_size=2)),
    (GRU, dict(num_layers=2, bidirectional=True)),
    (RNN, dict(bidirectional=True, nonlinearity="tanh", bias=False)),
])
def test_each_sequence_runs_as_if_alone(cls, config):
    # the reverse direction starts each sequence at its own last step, and h_n holds each
    # sequence's last state, in the caller's order
    ng.manual_seed(0)
    module = cls(2, 4, dtype=ng.float64, **config)
    lengths = [3, 1, 4, 2]
    x = ng.randn(4, 4, 2, dtype=ng.float64)
    output, finals = module(pack_padded_sequence(x, lengths, enforce_sorted=False))
    finals = finals if cls is LSTM else (finals,)
    padded, got_lengths = pad_packed_sequence(output)
    assert got_lengths.tolist() == lengths
    for b, length in enumerate(lengths):
        alone, alone_finals = module(x[:length, b])
        alone_finals = alone_finals if cls is LSTM else (alone_finals,)
        np.testing.assert_allclose(padded[:length, b].detach().numpy(),
                                   alone.detach().numpy(), rtol=1e-12, atol=1e-12)
        assert not padded[length:, b].detach().numpy().any()
        for final, alone_final in zip(finals, alone_finals):
            np.testing.assert_allclose(final[:, b].detach().numpy(),
                                       alone_final.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_batch_first_does_not_apply_to_packed_input():
    ng.manual_seed(1)
    packed = pack_padded_sequence(ng.randn(3, 2, 2), [3, 2])
    time_first = GRU(2, 3)
    batch_first = GRU(2, 3, batch_first=True)
    batch_first.load_state_dict(time_first.state_dict())
    (a, h_a), (b, h_b) = time_first(packed), batch_first(packed)
    assert np.array_equal(a.data.detach().numpy(), b.data.detach().numpy())
    assert np.array_equal(h_a.detach().numpy(), h_b.detach().numpy())


def test_dropout_between_layers_on_packed_data():
    ng.manual_seed(2)
    module = LSTM(2, 3, num_layers=2, dropout=0.5)
    x = ng.randn(3, 2, 2, requires_grad=True)
    output, (h_n, c_n) = module(pack_padded_sequence(x, [3, 1]))
    (output.data.sum() + h_n.sum() + c_n.sum()).backward()
    assert x.grad is not None and all(p.grad is not None for p in module.parameters())
    module.eval()
    plain = LSTM(2, 3, num_layers=2)
    plain.load_state_dict(module.state_dict())
    packed = pack_padded_sequence(x, [3, 1])
    assert np.array_equal(module(packed)[0].data.detach().numpy(),
                          plain(packed)[0].data.detach().numpy())


def test_errors_are_torchs():
    packed = pack_padded_sequence(ng.randn(3, 2, 2), [3, 2])
    data, batch_sizes = packed.data, packed.batch_sizes
    with pytest.raises(RuntimeError, match="^input must have 2 dimensions, got 3$"):
        RNN(2, 3)(PackedSequence(data.unsqueeze(0), batch_sizes))
    with pytest.raises(ValueError, match=r"RNN input dtype \(numgrad.float64\) does not match "
                                         r"weight dtype \(numgrad.float32\)"):
        GRU(2, 3)(PackedSequence(data.double(), batch_sizes))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                           "Expected 2, got 1"):
        LSTM(2, 3)(PackedSequence(data[:, :1], batch_sizes))
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(1, 2, 3\), got \[1, 3, 3\]$"):
        GRU(2, 3)(packed, ng.zeros(1, 3, 3))
    with pytest.raises(RuntimeError, match=r"^Expected hidden\[1\] size \(1, 2, 3\), got "
                                           r"\[1, 2, 2\]$"):
        LSTM(2, 3)(packed, (ng.zeros(1, 2, 3), ng.zeros(1, 2, 2)))
