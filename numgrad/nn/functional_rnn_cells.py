"""One step of the recurrent cells as functions (torch.rnn_tanh_cell, rnn_relu_cell, lstm_cell,
gru_cell), for loops written by hand: the same arithmetic as the RNNCell, LSTMCell and GRUCell
modules, on weights given as arguments."""
from ..ops import elementwise as _E
from .functional import linear


def _affine(input, hx, w_ih, w_hh, b_ih, b_hh):
    # torch's order: the hidden state's product first, the input's added to it
    hidden = linear(hx, w_hh, b_hh)
    return hidden + linear(input, w_ih, b_ih)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """tanh(input @ w_ih^T + b_ih + hx @ w_hh^T + b_hh)."""
    return _E.tanh(_affine(input, hx, w_ih, w_hh, b_ih, b_hh))


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """relu(input @ w_ih^T + b_ih + hx @ w_hh^T + b_hh)."""
    return _E.relu(_affine(input, hx, w_ih, w_hh, b_ih, b_hh))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """(h', c') from hx = (h, c): input, forget, cell and output gates in w_ih's row blocks."""
    h, c = hx
    gates = _affine(input, h, w_ih, w_hh, b_ih, b_hh)
    in_gate, forget_gate, cell_gate, out_gate = gates.unsafe_chunk(4, -1)
    cell = _E.sigmoid(forget_gate) * c + _E.sigmoid(in_gate) * _E.tanh(cell_gate)
    return _E.sigmoid(out_gate) * _E.tanh(cell), cell


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = n + z (hx - n) with reset gate r, update gate z and candidate n (r scales the
    hidden part of n, as torch's)."""
    # torch's gru_cell, operand for operand (its rounding in float32, its graph)
    reset_in, update_in, new_in = linear(input, w_ih, b_ih).unsafe_chunk(3, -1)
    reset_h, update_h, new_h = linear(hx, w_hh, b_hh).unsafe_chunk(3, -1)
    reset = _E.sigmoid(reset_h + reset_in)
    update = _E.sigmoid(update_h + update_in)
    candidate = _E.tanh(new_in + new_h * reset)
    return (hx - candidate) * update + candidate
