"""nn layers and their functional forms against torch 2.13: the differences a differential sweep
found (graph nodes, values, refusals), each pinned to torch's own numbers and words (hard-coded:
torch is no test dependency)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad.nn.utils.rnn import PackedSequence, pad_packed_sequence


def _weights_as_torch_test(module):
    """The same deterministic weights the torch run used: arange * 0.1 - 0.3 per parameter."""
    for p in module.parameters():
        p.data = ng.arange(p.numel(), dtype=ng.float64).reshape(p.shape) * 0.1 - 0.3


# ---- recurrent layers ---------------------------------------------------------------------------
def test_gru_batch_first_turns_its_output_around_in_place():
    m = ng.nn.GRU(2, 2, batch_first=True).double()
    _weights_as_torch_test(m)
    x = (ng.arange(12, dtype=ng.float64).reshape(2, 3, 2) * 0.1).requires_grad_()
    out, _ = m(x)
    # torch 2.13: TransposeBackward1 (transpose_ in its kernel), not a view, not contiguous
    assert out.grad_fn.name() == "TransposeBackward1"
    assert out._base is None and not out.is_contiguous()
    assert out.grad_fn.next_functions[0][0].name() == "StackBackward0"
    np.testing.assert_allclose(out.detach().numpy()[:, 0], [[0.1049, 0.1693], [0.3451, 0.3291]],
                               atol=1e-4)
    out.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[1], [[0.2125, 0.2111], [0.0861, 0.0781],
                                                   [0.0292, 0.0240]], atol=1e-4)


def test_lstm_batch_first_output_stays_a_transposed_view():
    out, _ = ng.nn.LSTM(2, 2, batch_first=True).double()(
        ng.zeros(2, 3, 2, dtype=ng.float64, requires_grad=True))
    assert out.grad_fn.name() == "TransposeBackward0" and out._base is not None


def test_recurrent_layers_refuse_4d_input_in_torch_words():
    with pytest.raises(ValueError, match=r"^RNN: Expected input to be 2D or 3D, got 4D tensor "
                                         r"instead$"):
        ng.nn.RNN(2, 2)(ng.zeros(1, 1, 1, 2))
    with pytest.raises(ValueError, match=r"^GRU: Expected input to be 2D or 3D, got 4D instead$"):
        ng.nn.GRU(2, 2)(ng.zeros(1, 1, 1, 2))


def test_pad_packed_sequence_copies_blocks_into_the_filler():
    data = ng.arange(12.).reshape(6, 2).requires_grad_()
    out, lengths = pad_packed_sequence(PackedSequence(data, ng.tensor([3, 2, 1])), total_length=4)
    # torch 2.13: CopySlices over (CopySlices, ViewBackward0): one copy per run of batch sizes
    assert out.grad_fn.name() == "torch::autograd::CopySlices"
    assert [n.name() for n, _ in out.grad_fn.next_functions] == [
        "torch::autograd::CopySlices", "ViewBackward0"]
    assert out[:, :, 0].tolist() == [[0., 2., 4.], [6., 8., 0.], [10., 0., 0.], [0., 0., 0.]]
    assert lengths.tolist() == [3, 2, 1]
    (out * ng.arange(24.).reshape(4, 3, 2)).sum().backward()
    assert data.grad[:, 0].tolist() == [0., 2., 4., 6., 8., 12.]
