"""Recurrent layers as torch has them: RNN, LSTM, GRU (layers, directions, projections) and the
cells RNNCell, LSTMCell, GRUCell, unrolled over time as composites of numgrad ops. RNN, LSTM
and GRU also take a PackedSequence (numgrad.nn.utils.rnn) and return one, as torch's do.

Gate order is torch's: LSTM (i, f, g, o), GRU (r, z, n) with r applied to (W_hn h + b_hn), so
weights copied from torch give torch's results.

>>> import numgrad as ng
>>> from numgrad.nn.rnn import LSTM
>>> output, (h_n, c_n) = LSTM(3, 4, num_layers=2)(ng.randn(5, 2, 3))   # (time, batch, feature)
>>> output.shape, h_n.shape, c_n.shape
(numgrad.Size([5, 2, 4]), numgrad.Size([2, 2, 4]), numgrad.Size([2, 2, 4]))
>>> from numgrad.nn.utils.rnn import pack_sequence
>>> output, (h_n, c_n) = LSTM(3, 4)(pack_sequence([ng.randn(4, 3), ng.randn(2, 3)]))
>>> output.data.shape, output.batch_sizes, h_n.shape
(numgrad.Size([6, 4]), tensor([2, 2, 1, 1]), numgrad.Size([1, 2, 4]))
"""
import itertools
import math
import numbers
import warnings

from .. import creation, dtypes
from ..ops import elementwise as _E
from ..ops.named import rename
from ..ops.shape import cat, stack
from ..ops.split import unsafe_split_with_sizes
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence


# ---- one time step (gates_x, the input's share of the gates, comes precomputed for all steps) ----
# torch's cells add the input's share to the hidden state's (linear_hh(h).add_(gates_x)): the sum's
# node lists the hidden state's product first
def _tanh_step(gates_x, h, c, w_hh, b_hh, w_hr):
    return _E.tanh(F.linear(h, w_hh, b_hh) + gates_x), None


def _relu_step(gates_x, h, c, w_hh, b_hh, w_hr):
    return F.relu(F.linear(h, w_hh, b_hh) + gates_x), None


def _lstm_step(gates_x, h, c, w_hh, b_hh, w_hr):
    i, f, g, o = (F.linear(h, w_hh, b_hh) + gates_x).unsafe_chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gates_x, h, c, w_hh, b_hh, w_hr):
    x_r, x_z, x_n = gates_x.unsafe_chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).unsafe_chunk(3, -1)
    # torch's GRUCell, operand for operand (its rounding in float32, its graph)
    r = (h_r + x_r).sigmoid()
    z = (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return (h - n) * z + n, None


_MODES = {"RNN_TANH": (1, _tanh_step), "RNN_RELU": (1, _relu_step), "LSTM": (4, _lstm_step),
          "GRU": (3, _gru_step)}


def _nonlinearity_mode(nonlinearity):
    if nonlinearity == "tanh":
        return "RNN_TANH"
    if nonlinearity == "relu":
        return "RNN_RELU"
    raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")


def _permute_hidden(state, permutation):
    """torch's permute_hidden: state's batch (dim 1) in a packed batch's sorted order
    (sorted_indices) or back in the caller's (unsorted_indices); None leaves it as it is."""
    return state if permutation is None else state.index_select(1, permutation)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU.

    Parameters per layer k and direction (suffix "" or "_reverse"), registered in torch's order:
    weight_ih_lk (gates, in), weight_hh_lk (gates, hidden or proj_size), bias_ih_lk, bias_hh_lk,
    weight_hr_lk (proj_size, hidden) for a projected LSTM; all start as
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                          stacklevel=3)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int),
                                  ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
            if kind is int and value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gates = _MODES[mode][0] * hidden_size
        directions = 2 if bidirectional else 1
        out_size = proj_size if proj_size > 0 else hidden_size
        self._all_weights = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else out_size * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = {f"weight_ih_l{layer}{suffix}": (gates, layer_input),
                          f"weight_hh_l{layer}{suffix}": (gates, out_size)}
                if bias:
                    shapes[f"bias_ih_l{layer}{suffix}"] = (gates,)
                    shapes[f"bias_hh_l{layer}{suffix}"] = (gates,)
                if proj_size > 0:
                    shapes[f"weight_hr_l{layer}{suffix}"] = (proj_size, hidden_size)
                for name, shape in shapes.items():
                    setattr(self, name, Parameter(creation.empty(*shape, dtype=dtype)))
                self._all_weights.append(list(shapes))
        self.reset_parameters()
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)

    @property
    def all_weights(self):
        """The parameters per (layer, direction), in registration order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self):
        """Nothing to do: torch packs the weights for cuDNN here, and code written for torch
        calls it (after DataParallel, in forward)."""

    def _state_size(self, batch):
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, batch, self.proj_size or self.hidden_size)

    def _prepare(self, input, states, label):
        """(input as (time, batch, feature) or a PackedSequence's data (rows, feature), whether
        batched, the batch size), after torch's checks of the input and of the dims of the
        initial states (label names them in the message)."""
        if isinstance(input, PackedSequence):
            # torch ignores batch_first for packed input and leaves the states' dims to the size
            # check; the batch is the sequences running at the first step, all of them
            self._check_input(input.data, packed=True)
            return input.data, True, int(input.batch_sizes[0])
        if input.ndim not in (2, 3):
            # torch names the class it was written in (not a subclass); its RNN alone says
            # "4D tensor"
            label, kind = ("RNN", "D tensor") if self.mode.startswith("RNN") else (self.mode, "D")
            raise ValueError(f"{label}: Expected input to be 2D or 3D, got {input.ndim}{kind} "
                             f"instead")
        batched = input.ndim == 3
        want = input.ndim
        if any(state.ndim != want for state in states):
            got = f"{states[0].ndim}-D tensor" if len(states) == 1 else \
                "(" + ", ".join(f"{state.ndim}-D" for state in states) + ") tensors"
            kind = "batched 3-D" if batched else "unbatched 2-D"
            raise RuntimeError(f"For {kind} input, {label} should also be {want}-D but got {got}")
        self._check_input(input, packed=False)
        if not batched:
            # as torch: an unbatched input becomes a batch of one along the batch dim
            input = input.unsqueeze(0 if self.batch_first else 1)
        if self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        return input, batched, input.shape[1]

    def _check_input(self, input, packed):
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({dtypes.name(input.dtype)}) does not match weight "
                             f"dtype ({dtypes.name(weight.dtype)}). Convert input: "
                             f"input.to({dtypes.name(weight.dtype)}), or convert model: "
                             f"model.to({dtypes.name(input.dtype)})")
        if packed and input.ndim != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {input.ndim}")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _check_state(self, state, expected, message):
        if tuple(state.shape) != expected:
            raise RuntimeError(message.format(expected, list(state.shape)))

    def _run(self, input, h0, c0, batch_sizes=None):
        """The stacked recurrence on (time, batch, feature), or on packed rows when batch_sizes
        (a list of ints) is given; returns (output, h_n, c_n), output laid out as input."""
        step = _MODES[self.mode][1]
        directions = 2 if self.bidirectional else 1
        weights = self.all_weights
        if batch_sizes is not None and len(set(batch_sizes)) == 1 and self._mkldnn(input, None):
            # torch's MKLDNN LSTM runs sequences packed of one length as a padded batch (views)
            steps, batch = len(batch_sizes), batch_sizes[0]
            output, h_n, c_n = self._run(input.view(steps, batch, input.shape[-1]), h0, c0)
            return output.view(steps * batch, output.shape[-1]), h_n, c_n
        h_last, c_last = [], []
        mkldnn = self._mkldnn(input, batch_sizes)
        if mkldnn:
            input = input.contiguous()      # (a batch_first input, transposed, is copied)
        else:
            # torch's kernel unbinds the initial states into each layer's and direction's (its
            # MKLDNN one selects each)
            h0, c0 = h0.unbind(0), None if c0 is None else c0.unbind(0)
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                hx, cx = h0[k], None if c0 is None else c0[k]
                out, h, c = self._run_direction(input, hx, cx, step, weights[k], direction == 1,
                                                batch_sizes)
                if mkldnn:
                    out, h, c = _mkldnn_layer(out, h, c, (input, *weights[k][:2],
                                                          *self._biases(weights[k]), hx, cx))
                outputs.append(out)
                h_last.append(h)
                c_last.append(c)
            input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.training and self.dropout > 0 and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        if mkldnn:
            # the layers' states are one node's second and third outputs, stacked
            return input, _stacked(h_last), _stacked(c_last)
        return input, stack(h_last), None if c0 is None else stack(c_last)

    def _mkldnn(self, input, batch_sizes):
        """Whether torch's CPU LSTM runs its MKLDNN kernel, one node per layer and direction
        (MkldnnRnnLayerBackward0): float32, no projections, not packed."""
        return (self.mode == "LSTM" and input.dtype == dtypes.float32 and self.proj_size == 0
                and batch_sizes is None and not input.is_cuda and input.numel() > 0)

    def _biases(self, weights):
        return (weights[2], weights[3]) if self.bias else (None, None)

    def _run_direction(self, input, h, c, step, weights, reverse, batch_sizes):
        w_ih, w_hh = weights[0], weights[1]
        b_ih, b_hh = (weights[2], weights[3]) if self.bias else (None, None)
        w_hr = weights[-1] if self.proj_size > 0 else None
        # the input's part of every step's gates, in one product
        gates_x = F.linear(input, w_ih, b_ih)

        def run_step(gates, h, c):
            return step(gates, h, c, w_hh, b_hh, w_hr)
        if batch_sizes is None:
            gates_x = gates_x.unbind(0)
            outputs = [None] * len(gates_x)
            for t in (reversed(range(len(gates_x))) if reverse else range(len(gates_x))):
                h, c = run_step(gates_x[t], h, c)
                outputs[t] = h
            return stack(outputs), h, c
        # torch's packed loop narrows each step's rows out (SliceBackward0 each)
        starts = itertools.accumulate(batch_sizes[:-1], initial=0)
        gates_x = [gates_x.narrow(0, start, size) for start, size in zip(starts, batch_sizes)]
        return (_packed_reverse if reverse else _packed_forward)(run_step, gates_x, h, c)

    def _finish(self, output, batched):
        if self.batch_first:
            # torch's RNN and GRU kernels turn the output around in place (TransposeBackward1,
            # not a view); its LSTM returns a transposed view
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        if not batched:
            return output.squeeze(0 if self.batch_first else 1)
        return output

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


class _SingleStateRNN(RNNBase):
    """RNN and GRU: one hidden state h; forward returns (output, h_n)."""

    def forward(self, input, hx=None):
        packed = input if isinstance(input, PackedSequence) else None
        input, batched, batch = self._prepare(input, [] if hx is None else [hx], "hx")
        expected = self._state_size(batch)
        if hx is None:
            hx = creation.zeros(*expected, dtype=input.dtype, device=input.device)
        elif packed is not None:
            hx = _permute_hidden(hx, packed.sorted_indices)
        elif not batched:
            hx = hx.unsqueeze(1)
        self._check_state(hx, expected, "Expected hidden size {}, got {}")
        if packed is None:
            output, h_n, _ = self._run(input, hx, None)
            return self._finish(output, batched), h_n if batched else h_n.squeeze(1)
        output, h_n, _ = self._run(input, hx, None, packed.batch_sizes.tolist())
        return packed._replace(data=output), _permute_hidden(h_n, packed.unsorted_indices)


def _refuse_projection(proj_size):
    """torch refuses proj_size by name in RNN and GRU, whatever its value."""
    if proj_size is not None:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(_SingleStateRNN):
    """Elman RNN: h_t = nonlinearity(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), tanh or relu.

    >>> import numgrad as ng
    >>> output, h_n = RNN(3, 4, nonlinearity="relu", bidirectional=True)(ng.randn(5, 2, 3))
    >>> output.shape, h_n.shape
    (numgrad.Size([5, 2, 8]), numgrad.Size([2, 2, 4]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None, *,
                 proj_size=None):
        _refuse_projection(proj_size)
        self.nonlinearity = nonlinearity
        super().__init__(_nonlinearity_mode(nonlinearity), input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)


class GRU(_SingleStateRNN):
    """Gated recurrent unit: r, z = sigmoid(...), n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
    h' = (1 - z) * n + z * h.

    >>> import numgrad as ng
    >>> output, h_n = GRU(3, 4, batch_first=True)(ng.randn(2, 5, 3))
    >>> output.shape, h_n.shape
    (numgrad.Size([2, 5, 4]), numgrad.Size([1, 2, 4]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, *, proj_size=None):
        _refuse_projection(proj_size)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, device=device, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; c' = f * c + i * g, h' = o * tanh(c'), then
    h' = W_hr h' with proj_size > 0. forward(input, (h_0, c_0)) returns (output, (h_n, c_n)).

    >>> import numgrad as ng
    >>> output, (h_n, c_n) = LSTM(3, 4, proj_size=2)(ng.randn(5, 3))   # unbatched
    >>> output.shape, h_n.shape, c_n.shape
    (numgrad.Size([5, 2]), numgrad.Size([1, 2]), numgrad.Size([1, 4]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        packed = input if isinstance(input, PackedSequence) else None
        # torch reads hx[0] and hx[1] (its IndexError for a state of one tensor)
        input, batched, batch = self._prepare(input, [] if hx is None else [hx[0], hx[1]],
                                              "hx and cx")
        expected_h = self._state_size(batch)
        expected_c = expected_h[:2] + (self.hidden_size,)
        if hx is None:
            h0 = creation.zeros(*expected_h, dtype=input.dtype, device=input.device)
            c0 = creation.zeros(*expected_c, dtype=input.dtype, device=input.device)
        elif packed is not None:
            h0, c0 = (_permute_hidden(state, packed.sorted_indices) for state in hx)
        else:
            h0, c0 = hx if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self._check_state(h0, expected_h, "Expected hidden[0] size {}, got {}")
        self._check_state(c0, expected_c, "Expected hidden[1] size {}, got {}")
        if packed is None:
            output, h_n, c_n = self._run(input, h0, c0)
            if not batched:
                h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
            return self._finish(output, batched), (h_n, c_n)
        output, h_n, c_n = self._run(input, h0, c0, packed.batch_sizes.tolist())
        return packed._replace(data=output), (_permute_hidden(h_n, packed.unsorted_indices),
                                              _permute_hidden(c_n, packed.unsorted_indices))


# ---- cells ---------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """One step of a recurrence: weight_ih (chunks * hidden, in), weight_hh (chunks * hidden,
    hidden), bias_ih and bias_hh, all U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty(gates, input_size, dtype=dtype))
        self.weight_hh = Parameter(creation.empty(gates, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(gates, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(gates, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _step(self, step, input, states, what):
        """One step of step() on input (batch, in) or (in); states (h, c) may be None (zeros).
        Checks as torch's, which sees unbatched tensors with a batch of one added."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        for index, state in enumerate(states):
            if state is not None and state.ndim not in (1, 2):
                name = what if len(states) == 1 else f"{what}[{index}]"
                raise ValueError(f"{type(self).__name__}: Expected {name} to be 1D or 2D, got "
                                 f"{state.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
            states = [None if state is None else state.unsqueeze(0) for state in states]
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        batch = input.shape[0]
        full = []
        for index, state in enumerate(states):
            if state is None:
                state = creation.zeros(batch, self.hidden_size, dtype=input.dtype,
                                       device=input.device)
            elif state.shape[0] != batch:
                raise RuntimeError(f"Input batch size {batch} doesn't match hidden{index} batch "
                                   f"size {state.shape[0]}")
            elif state.ndim != 2 or state.shape[1] != self.hidden_size:
                # torch reports dim 1, also of an unbatched (4,) state given a 2-D one
                size = state.shape[1] if state.ndim > 1 else state.shape[0]
                raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {size}, "
                                   f"expected {self.hidden_size}")
            full.append(state)
        h, c = full if len(full) == 2 else (full[0], None)
        gates_x = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = step(gates_x, h, c, self.weight_hh, self.bias_hh, None)
        if not batched:
            h, c = h.squeeze(0), None if c is None else c.squeeze(0)
        return h, c


class RNNCell(RNNCellBase):
    """h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh), tanh or relu.

    >>> import numgrad as ng
    >>> RNNCell(3, 4)(ng.randn(2, 3)).shape
    numgrad.Size([2, 4])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = _tanh_step if self.nonlinearity == "tanh" else _relu_step
        return self._step(step, input, [hx], "hidden")[0]


class GRUCell(RNNCellBase):
    """One GRU step: gates r, z, n in torch's order.

    >>> import numgrad as ng
    >>> GRUCell(3, 4)(ng.randn(3)).shape
    numgrad.Size([4])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        return self._step(_gru_step, input, [hx], "hidden")[0]


class LSTMCell(RNNCellBase):
    """One LSTM step: gates i, f, g, o in torch's order; returns (h', c').

    >>> import numgrad as ng
    >>> h, c = LSTMCell(3, 4)(ng.randn(2, 3))
    >>> h.shape, c.shape
    (numgrad.Size([2, 4]), numgrad.Size([2, 4]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if hx is not None and not isinstance(hx, (tuple, list)):
            raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                            f"not {type(hx).__name__}")
        if hx is not None and len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        return self._step(_lstm_step, input, [None, None] if hx is None else list(hx), "hx")


def _narrow(state, start, end):
    return None if state is None else state.narrow(0, start, end - start)


def _packed_forward(run_step, gates_x, h, c):
    """torch's packed loop forward in time: a sequence that has ended leaves its rows of the
    state (sliced off, SliceBackward0), joined in one cat at the end, the longest first (packing
    sorts them so). Returns (output rows, h_n, c_n)."""
    finished, outputs, last = [], [], gates_x[0].shape[0]
    for gates in gates_x:
        size = gates.shape[0]
        if size < last:
            finished.append((_narrow(h, size, last), _narrow(c, size, last)))
            h, c = _narrow(h, 0, size), _narrow(c, 0, size)
        last = size
        h, c = run_step(gates, h, c)
        outputs.append(h)
    finished.append((h, c))
    finished.reverse()
    c_n = None if c is None else cat([piece[1] for piece in finished])
    return cat(outputs), cat([piece[0] for piece in finished]), c_n


def _packed_reverse(run_step, gates_x, h0, c0):
    """torch's packed loop backward in time: it starts on the rows of the sequences that reach
    the last step (sliced from the initial state) and takes in each sequence's initial rows at
    its own last step (a cat)."""
    last = gates_x[-1].shape[0]
    h, c = _narrow(h0, 0, last), _narrow(c0, 0, last)
    outputs = [None] * len(gates_x)
    for t in reversed(range(len(gates_x))):
        size = gates_x[t].shape[0]
        if size > last:
            h = cat([h, _narrow(h0, last, size)])
            c = None if c is None else cat([c, _narrow(c0, last, size)])
        last = size
        h, c = run_step(gates_x[t], h, c)
        outputs[t] = h
    return cat(outputs), h, c


def _mkldnn_layer(output, h, c, inputs):
    """(output, h_n, c_n) of one layer and direction as the outputs 0, 1 and 2 of one node named
    as torch's MKLDNN LSTM layer's, listing its inputs (input, w_ih, w_hh, b_ih, b_hh, hx, cx):
    the three are split out of one tensor (unsafe_split's outputs are no views, so they may be
    written in place, as torch's), whose split node takes that name."""
    steps = output.shape[0]
    joint = cat([output, h.unsqueeze(0), c.unsqueeze(0)])
    output, h, c = unsafe_split_with_sizes(joint, [steps, 1, 1])
    rename(output, "MkldnnRnnLayerBackward0", inputs=inputs)
    return output, h, c


def _stacked(states):
    """The (1, batch, hidden) states of the layers joined, shown as torch's stack of them."""
    return rename(cat(states), "StackBackward0", inputs=states)
