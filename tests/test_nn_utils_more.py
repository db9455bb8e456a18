"""nn.utils.rnn (padding and packing), nn.utils.parametrize, weight and spectral normalization
in both forms and the orthogonal parametrization, against torch's values, gradients, parameter
names and errors (numbers from torch 2.x)."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad.nn.utils import parametrize
from numgrad.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm
from numgrad.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence,
                                  pad_packed_sequence, pad_sequence, unpack_sequence,
                                  unpad_sequence)

DTYPES = [ng.float32, ng.float64]


def _seqs(dtype):
    """Three sequences of lengths 3, 1, 2 with two features."""
    return [(ng.arange(6., dtype=dtype).reshape(3, 2) / 4 - 0.5).requires_grad_(),
            (ng.arange(2., dtype=dtype).reshape(1, 2) + 1).requires_grad_(),
            (ng.arange(4., dtype=dtype).reshape(2, 2) * -0.3).requires_grad_()]


def _close(tensor, expected, dtype=None):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    if dtype is not None:
        assert tensor.dtype == dtype


# ---- rnn ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_pad_sequence_sides_and_layouts(dtype):
    seqs = _seqs(dtype)
    _close(pad_sequence(seqs, padding_value=9.),
           [[[-0.5, -0.25], [1., 2.], [0., -0.3]],
            [[0., 0.25], [9., 9.], [-0.6, -0.9]],
            [[0.5, 0.75], [9., 9.], [9., 9.]]], dtype)
    _close(pad_sequence(seqs, batch_first=True, padding_side="left"),
           [[[-0.5, -0.25], [0., 0.25], [0.5, 0.75]],
            [[0., 0.], [0., 0.], [1., 2.]],
            [[0., 0.], [0., -0.3], [-0.6, -0.9]]], dtype)
    # torch copies into a tensor of the first sequence's dtype
    assert pad_sequence([ng.tensor([1, 2]), ng.tensor([0.5])]).tolist() == [[1, 0], [2, 0]]


def test_pad_sequence_errors():
    with pytest.raises(RuntimeError, match="^received an empty list of sequences$"):
        pad_sequence([])
    with pytest.raises(RuntimeError, match="Expected iterable for input sequences, but got arg "
                                           "of type: <class 'int'>"):
        pad_sequence(3)
    with pytest.raises(RuntimeError, match="^Expected padding_side to be one of left or right, "
                                           "but got up.$"):
        pad_sequence([ng.ones(2)], padding_side="up")
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(2\) at non-singleton dimension 1"):
        pad_sequence([ng.ones(2, 3), ng.ones(1, 2)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_pack_and_pad_packed_values_and_gradients(dtype):
    seqs = _seqs(dtype)
    packed = pack_sequence(seqs, enforce_sorted=False)
    _close(packed.data, [[-0.5, -0.25], [0., -0.3], [1., 2.], [0., 0.25], [-0.6, -0.9],
                         [0.5, 0.75]], dtype)
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert packed.sorted_indices.tolist() == [0, 2, 1]
    assert packed.unsorted_indices.tolist() == [0, 2, 1]
    out, lengths = pad_packed_sequence(packed, batch_first=True, total_length=4,
                                       padding_value=-1.)
    assert out.shape == (3, 4, 2) and lengths.tolist() == [3, 1, 2]
    assert out[1, 1:].tolist() == [[-1., -1.]] * 3
    (out * ng.arange(24., dtype=dtype).reshape(3, 4, 2)).sum().backward()
    assert [s.grad.tolist() for s in seqs] == [[[0., 1.], [2., 3.], [4., 5.]], [[8., 9.]],
                                               [[16., 17.], [18., 19.]]]


def test_pack_padded_sequence_sorts_stably_and_takes_lengths_as_tensor():
    # ties keep their order, as torch's sort does here
    packed = pack_padded_sequence(ng.zeros(3, 7), [2, 3, 2, 3, 2, 1, 3], enforce_sorted=False)
    assert packed.sorted_indices.tolist() == [1, 3, 6, 0, 2, 4, 5]
    assert packed.batch_sizes.tolist() == [7, 6, 3]
    packed = pack_padded_sequence(ng.ones(2, 3, 1), ng.tensor([3, 1], dtype=ng.int32),
                                  batch_first=True)
    assert packed.batch_sizes.dtype == ng.int64 and packed.batch_sizes.tolist() == [2, 1, 1]
    assert packed.sorted_indices is None and packed.unsorted_indices is None


@pytest.mark.parametrize("lengths, message", [
    ([1, 2], "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
             "You can pass `enforce_sorted=False`"),
    ([2, 0], "Length of all samples has to be greater than 0, but found an element in 'lengths' "
             "that is <= 0"),
    ([3], r"Expected `len\(lengths\)` to be equal to batch_size, but got 1 \(batch_size=2\)"),
    (ng.tensor([[3, 2]]), "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu "
                          "Long tensor"),
])
def test_pack_padded_sequence_errors(lengths, message):
    with pytest.raises(RuntimeError, match=message):
        pack_padded_sequence(ng.ones(3, 2, 2), lengths)


def test_pad_packed_sequence_total_length_error():
    packed = pack_sequence([ng.ones(3), ng.ones(2)])
    with pytest.raises(ValueError, match="^Expected total_length to be at least the length of "
                                         "the longest sequence in input, but got total_length=2 "
                                         "and max sequence length being 3$"):
        pad_packed_sequence(packed, total_length=2)


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_roundtrip_gradcheck(batch_first):
    # 4 steps of 3 sequences (torch, like numgrad, fails on lengths that do not fit the input)
    x = ng.tensor(np.random.randn(*((3, 4, 2) if batch_first else (4, 3, 2))), requires_grad=True)

    def roundtrip(x):
        packed = pack_padded_sequence(x, [2, 4, 1], batch_first=batch_first,
                                      enforce_sorted=False)
        return pad_packed_sequence(packed, batch_first=batch_first, padding_value=0.5)[0]
    assert ng.autograd.gradcheck(roundtrip, (x,))
    assert ng.autograd.gradcheck(lambda *s: pad_sequence(s, batch_first, 2., "left"),
                                 tuple(ng.tensor(np.random.randn(n, 2), requires_grad=True)
                                       for n in (2, 3)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_unpack_and_unpad_give_the_sequences_back(dtype):
    seqs = _seqs(dtype)
    back = unpack_sequence(pack_sequence(seqs, enforce_sorted=False))
    assert [b.tolist() for b in back] == [s.tolist() for s in seqs]
    ng.cat([b.reshape(-1) for b in back]).sum().backward()
    assert all(s.grad.tolist() == np.ones(s.shape).tolist() for s in seqs)
    padded = pad_sequence(seqs)
    unpadded = unpad_sequence(padded, ng.tensor([3, 1, 2]))
    assert [u.tolist() for u in unpadded] == [s.tolist() for s in seqs]
    assert padded.shape == (3, 3, 2)       # torch transposes a time-first input in place


def test_packed_sequence_conversions():
    packed = pack_sequence([ng.ones(3), ng.ones(2)], enforce_sorted=False)
    assert packed.float() is packed
    double = packed.double()
    assert double.data.dtype == ng.float64 and double.sorted_indices.tolist() == [0, 1]
    assert PackedSequence((ng.ones(3), ng.tensor([2, 1]))).batch_sizes.tolist() == [2, 1]
    assert repr(pack_sequence([ng.tensor([1, 2]), ng.tensor([3])])) == (
        "PackedSequence(data=tensor([1, 3, 2]), batch_sizes=tensor([2, 1]), "
        "sorted_indices=None, unsorted_indices=None)")


# ---- parametrize --------------------------------------------------------------------------------
class Symmetric(ng.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Scale(ng.nn.Module):
    def __init__(self, dtype=ng.float32):
        super().__init__()
        self.s = ng.nn.Parameter(ng.tensor(1.5, dtype=dtype))

    def forward(self, X):
        return X * self.s


class Split(ng.nn.Module):
    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return X * 0.25, X * 0.75


def _linear(n_out, dtype=ng.float32):
    lin = ng.nn.Linear(3, n_out).to(dtype)
    with ng.no_grad():
        lin.weight.copy_(ng.arange(3. * n_out).reshape(n_out, 3) / 5 - 0.4)
        lin.bias.fill_(0.1)
    return lin


@pytest.mark.parametrize("dtype", DTYPES)
def test_chained_parametrizations_values_gradients_and_names(dtype):
    lin = _linear(3, dtype)
    original = lin.weight
    parametrize.register_parametrization(lin, "weight", Symmetric())
    parametrize.register_parametrization(lin, "weight", Scale(dtype))
    assert type(lin).__name__ == "ParametrizedLinear"
    assert parametrize.type_before_parametrizations(lin) is ng.nn.Linear
    assert lin.parametrizations.weight.original is original
    names = ["bias", "parametrizations.weight.original", "parametrizations.weight.1.s"]
    assert [n for n, _ in lin.named_parameters()] == names and list(lin.state_dict()) == names
    y = lin(ng.arange(6., dtype=dtype).reshape(2, 3) / 3)
    _close(y, [[0., 0.9, 1.6], [-0.9, 2.1, 4.3]], dtype)
    (y ** 2).sum().backward()
    _close(lin.parametrizations.weight.original.grad,
           [[-2.7, 2.7, 8.4], [0., 9.3, 31.1], [0., 0., 24.7]])
    _close(lin.parametrizations.weight[1].s.grad, 35.04)
    assert (parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "weight"),
            parametrize.is_parametrized(lin, "bias")) == (True, True, False)
    with pytest.raises(RuntimeError, match="^parametrization Scale does not implement "
                                           "right_inverse.$"):
        lin.weight = ng.ones(3, 3, dtype=dtype)
    expected = lin.weight.detach().numpy()
    parametrize.remove_parametrizations(lin, "weight")
    assert type(lin) is ng.nn.Linear and not hasattr(lin, "parametrizations")
    assert lin.weight is original and [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(lin.weight.detach().numpy(), expected)


def test_assignment_goes_through_right_inverse_and_remove_can_keep_the_original():
    lin = _linear(3)
    original = lin.weight
    parametrize.register_parametrization(lin, "weight", Symmetric())
    assert original.tolist() == np.triu(np.arange(9.).reshape(3, 3) / 5 - 0.4).astype(
        np.float32).tolist()
    lin.weight = ng.full((3, 3), 2.)
    assert lin.parametrizations.weight.original is original
    assert original.tolist() == np.triu(np.full((3, 3), 2.)).tolist()
    parametrize.remove_parametrizations(lin, "weight", leave_parametrized=False)
    assert lin.weight is original and lin.weight.tolist() == np.triu(np.full((3, 3), 2.)).tolist()


def test_cached_computes_once():
    lin = parametrize.register_parametrization(_linear(3), "weight", Symmetric())
    with parametrize.cached():
        assert lin.weight is lin.weight
    assert lin.weight is not lin.weight


def test_parametrization_from_several_tensors():
    lin = parametrize.register_parametrization(_linear(2), "weight", Split())
    assert [n for n, _ in lin.named_parameters()] == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    _close(lin.parametrizations.weight.original0, (np.arange(6.).reshape(2, 3) / 5 - 0.4) / 4)
    _close(lin.weight, np.arange(6.).reshape(2, 3) / 5 - 0.4)
    with pytest.raises(ValueError, match=r"^Cannot leave unparametrized \(`leave_parametrized="
                                         r"False`\) a tensor that is parametrized in terms of a "
                                         r"sequence of tensors.$"):
        parametrize.remove_parametrizations(lin, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(lin, "weight")
    assert type(lin.weight) is ng.nn.Parameter


def test_parametrized_buffer_deepcopy_and_pickle():
    bn = parametrize.register_parametrization(ng.nn.BatchNorm1d(3), "running_var", Scale())
    assert list(bn.state_dict()) == [
        "weight", "bias", "running_mean", "num_batches_tracked",
        "parametrizations.running_var.original", "parametrizations.running_var.0.s"]
    assert [n for n, _ in bn.named_buffers()] == [
        "running_mean", "num_batches_tracked", "parametrizations.running_var.original"]
    clone = copy.deepcopy(bn)
    assert type(clone).__name__ == "ParametrizedBatchNorm1d"
    assert clone.running_var.tolist() == [1.5] * 3
    with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is only "
                                           r"supported through state_dict\(\)"):
        pickle.dumps(bn)


def test_register_parametrization_errors():
    class First(ng.nn.Module):
        def forward(self, X):
            return X[0]

    class ToDouble(ng.nn.Module):
        def forward(self, X):
            return X.double()

    lin = _linear(3)
    with pytest.raises(ValueError, match="^Module 'Linear\\(in_features=3, out_features=3, "
                                         "bias=True\\)' does not have a parameter, a buffer, or a "
                                         "parametrized element with name 'nope'$"):
        parametrize.register_parametrization(lin, "nope", Symmetric())
    with pytest.raises(ValueError, match=r"^Registering a parametrization may not change the "
                                         r"shape of the tensor, unless `unsafe` flag is enabled."
                                         r"\nunparametrized shape: numgrad.Size\(\[3, 3\]\)\n"
                                         r"parametrized shape: numgrad.Size\(\[3\]\)$"):
        parametrize.register_parametrization(lin, "weight", First())
    with pytest.raises(ValueError, match="\nunparametrized dtype: numgrad.float32\nparametrized "
                                         "dtype: numgrad.float64$"):
        parametrize.register_parametrization(lin, "weight", ToDouble())
    with pytest.raises(ValueError, match="^Module Linear\\(.*\\) does not have a parametrization "
                                         "on weight$"):
        parametrize.remove_parametrizations(lin, "weight")
    parametrize.register_parametrization(lin, "weight", Symmetric())
    with pytest.raises(ValueError, match=r"unless the `unsafe` flag is enabled.\nmodule.weight."
                                         r"shape: numgrad.Size\(\[3, 3\]\)\nparametrization\("
                                         r"module.weight\).shape: numgrad.Size\(\[3\]\)$"):
        parametrize.register_parametrization(lin, "weight", First())
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        lin.weight = ng.nn.Parameter(ng.ones(3, 3))
    parametrize.register_parametrization(lin, "weight", First(), unsafe=True)
    assert lin.weight.shape == (3,)


def test_transfer_parametrizations_shares_the_originals():
    source = parametrize.register_parametrization(_linear(3), "weight", Symmetric())
    target = parametrize.transfer_parametrizations_and_params(source, ng.nn.Linear(3, 3))
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    assert target.weight.tolist() == source.weight.tolist()


# ---- weight normalization -----------------------------------------------------------------------
# torch's gradients for (g, v) of Linear(3, 2) with weight arange(6)/5 - 0.4 and bias 0.1, for the
# loss (lin(arange(6).reshape(2, 3) / 3) ** 2).sum(), by dim
WEIGHT_NORM_GRADS = {
    0: ([[1.67953551], [9.39571762]],
        [[0.36888885, -0.73777789, -1.84444439], [1.15555561, 0.28888962, -0.57777703]]),
    1: ([[2.65346742, 5.41625404, 6.95555592]],
        [[1.24, 0.9333334, -1.84444439], [2.48, 0.46666673, 0.]]),
    None: (8.92682171,
           [[2.96257353, 0.55906439, -1.84444439], [1.61871338, 1.21520472, 0.81169605]]),
}


def _weight_norm_loss(lin, dtype):
    y = lin(ng.arange(6., dtype=dtype).reshape(2, 3) / 3)
    _close(y, [[0.03333333, 0.63333338], [-0.56666666, 1.83333337]], dtype)
    (y ** 2).sum().backward()
    _close(lin.bias.grad, [-1.0666666, 4.9333334])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization(dtype, dim):
    lin = weight_norm(_linear(2, dtype), dim=dim)
    g, v = lin.parametrizations.weight.original0, lin.parametrizations.weight.original1
    assert [n for n, _ in lin.named_parameters()] == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    _weight_norm_loss(lin, dtype)
    _close(g.grad, WEIGHT_NORM_GRADS[dim][0], dtype)
    _close(v.grad, WEIGHT_NORM_GRADS[dim][1], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, None])
def test_deprecated_weight_norm_hook(dtype, dim):
    with pytest.warns(FutureWarning, match="^`torch.nn.utils.weight_norm` is deprecated in favor "
                                           "of `torch.nn.utils.parametrizations.weight_norm`.$"):
        lin = ng.nn.utils.weight_norm(_linear(2, dtype), dim=dim)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_g", "weight_v"]
    _weight_norm_loss(lin, dtype)
    _close(lin.weight_g.grad, WEIGHT_NORM_GRADS[dim][0], dtype)
    _close(lin.weight_v.grad, WEIGHT_NORM_GRADS[dim][1], dtype)
    with pytest.warns(FutureWarning), pytest.raises(
            RuntimeError, match="^Cannot register two weight_norm hooks on the same parameter "
                                "weight$"):
        ng.nn.utils.weight_norm(lin, dim=dim)
    ng.nn.utils.remove_weight_norm(lin)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    _close(lin.weight, np.arange(6.).reshape(2, 3) / 5 - 0.4, dtype)
    with pytest.raises(ValueError, match="^weight_norm of 'weight' not found in Linear"):
        ng.nn.utils.remove_weight_norm(lin)


def test_weight_norm_loads_the_deprecated_state_dict():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = ng.nn.utils.weight_norm(ng.nn.Linear(3, 2))
    new = weight_norm(ng.nn.Linear(3, 2))
    assert repr(new.load_state_dict(old.state_dict())) == "<All keys matched successfully>"
    assert new.weight.tolist() == old.weight.tolist()
    parametrize.remove_parametrizations(new, "weight")
    assert [n for n, _ in new.named_parameters()] == ["bias", "weight"]


# ---- spectral normalization ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_spectral_norm_power_iteration_values_and_gradients(dtype):
    lin = ng.nn.Linear(4, 3).to(dtype)
    with ng.no_grad():
        lin.weight.copy_(ng.arange(12.).reshape(3, 4) / 7 - 0.8)
        lin.bias.fill_(0.2)
    lin = spectral_norm(lin, n_power_iterations=2)
    assert list(lin.state_dict()) == ["bias", "parametrizations.weight.original",
                                      "parametrizations.weight.0._u",
                                      "parametrizations.weight.0._v"]
    sn = lin.parametrizations.weight[0]
    # the 15 iterations at registration start from random vectors; fix them to torch's inputs
    with ng.no_grad():
        sn._u.copy_(ng.tensor([0.6, 0., 0.8]))
        sn._v.copy_(ng.tensor([0.5, 0.5, 0.5, 0.5]))
    y = lin(ng.arange(8., dtype=dtype).reshape(2, 4) / 4 - 1)
    _close(y, [[1.215927, 0.3325122, -0.55090255], [-0.23287322, 0.29717562, 0.82722443]], dtype)
    (y ** 2).sum().backward()
    _close(lin.parametrizations.weight.original.grad,
           [[-0.43553007, -0.14257812, 0.15037364, 0.44332534],
            [-0.38222069, -0.18782324, 0.00657425, 0.20097172],
            [-0.32891142, -0.23306829, -0.13722521, -0.04138201]], dtype)
    _close(sn._u, [-0.72642934, -0.01973579, 0.68695772], dtype)
    _close(sn._v, [0.50781155, 0.50258106, 0.49735054, 0.49212003], dtype)
    lin.eval()     # no power iteration: the buffers stay
    _close(lin.weight.sum(), -0.10600988)
    _close(sn._u, [-0.72642934, -0.01973579, 0.68695772])


def test_spectral_norm_dims_and_errors():
    assert spectral_norm(ng.nn.ConvTranspose2d(2, 3, 2)).parametrizations.weight[0].dim == 1
    assert spectral_norm(ng.nn.Conv2d(2, 3, 2), dim=-1).parametrizations.weight[0].dim == 3
    bias = spectral_norm(ng.nn.Linear(2, 2), name="bias").bias    # a vector is normalized
    _close(bias.norm(), 1.)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\] but got 2\)$"):
        spectral_norm(ng.nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="^Expected n_power_iterations to be positive, but got "
                                         "n_power_iterations=0$"):
        spectral_norm(ng.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'$"):
        spectral_norm(ng.nn.Linear(2, 2), name="nope")


@pytest.mark.parametrize("dtype", DTYPES)
def test_spectral_norm_hook(dtype):
    lin = ng.nn.Linear(4, 3).to(dtype)
    with ng.no_grad():
        lin.weight.copy_(ng.arange(12.).reshape(3, 4) / 7 - 0.8)
        lin.bias.fill_(0.2)
    lin = ng.nn.utils.spectral_norm(lin, n_power_iterations=2)
    assert list(lin.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    with ng.no_grad():
        lin.weight_u.copy_(ng.tensor([0.6, 0., 0.8]))
        lin.weight_v.copy_(ng.tensor([0.5, 0.5, 0.5, 0.5]))
    y = lin(ng.arange(8., dtype=dtype).reshape(2, 4) / 4 - 1)
    _close(y, [[1.25183296, 0.33719558, -0.57744175], [-0.24817227, 0.3006101, 0.84939241]],
           dtype)
    (y ** 2).sum().backward()
    _close(lin.weight_orig.grad, [[-0.94826442, -0.37326187, 0.20174056, 0.77674276],
                                  [-0.46738458, -0.27700716, -0.08662974, 0.1037477],
                                  [0.01349515, -0.18075246, -0.37500012, -0.56924736]], dtype)
    _close(lin.weight_u, [-0.66929752, 0.03640234, 0.74210215], dtype)
    _close(lin.weight_v, [0.30496016, 0.42313784, 0.54131556, 0.65949315], dtype)
    with pytest.raises(RuntimeError, match="^Cannot register two spectral_norm hooks on the "
                                           "same parameter weight$"):
        ng.nn.utils.spectral_norm(lin)
    ng.nn.utils.remove_spectral_norm(lin)
    assert list(lin.state_dict()) == ["bias", "weight"]
    _close(lin.weight.sum(), -0.10975654)
    with pytest.raises(ValueError, match="^spectral_norm of 'weight' not found in Linear"):
        ng.nn.utils.remove_spectral_norm(lin)


# ---- orthogonal ---------------------------------------------------------------------------------
# torch's numbers for weight (i ** 2 / 10 - 1 in row-major order i), then for the original moved
# off its diagonal by i / 20, with the gradient of (weight * i).sum()
ORTHOGONAL_CASES = [
    ((3, 2), "householder", False,
     [[-0.7624929, 0.17630281], [-0.45749575, 0.53342915], [0.45749575, 0.82726705]],
     [[1., 1.41823685], [0.2595731, -1.], [-0.2595731, 0.58684593]],
     [[-0.76547158, -0.00836161], [-0.63481611, 0.17324862], [0.10517462, 0.98484254]],
     [[0., 0.], [-3.56181288, 0.], [-10.28937054, -1.08912802]]),
    ((3, 3), "matrix_exp", True,
     [[-0.35874808, 0.55208158, 0.75266588], [-0.03587481, 0.79758984, -0.60213256],
      [0.93274486, 0.24301559, 0.26632786]],
     -np.eye(3),
     [[-0.05134216, 0.81966078, 0.57054389], [-0.14909478, 0.55860412, -0.81592429],
      [0.98748916, 0.12695636, -0.09352726]],
     [[0., 0., 0.], [-3.4111588, 0., 0.], [-10.01076317, -9.01691723, 0.]]),
    ((2, 3), "cayley", False,
     [[0.68463612, -0.24258764, -0.6873315], [0.72776282, 0.17520212, 0.66307282]],
     [[-1., -0.9, -0.6], [-0.1, 0.6, 1.5]],
     [[0.75793409, -0.20535153, -0.6191662], [0.64094585, 0.05787183, 0.76540142]],
     [[0., 2.30416965, 0.37805194], [0., 0., -1.15516722]]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, orthogonal_map, trivialization, weight, original, moved, grad",
                         ORTHOGONAL_CASES)
def test_orthogonal_maps(dtype, shape, orthogonal_map, trivialization, weight, original, moved,
                         grad):
    n = shape[0] * shape[1]
    module = ng.nn.Module()
    module.weight = ng.nn.Parameter((ng.arange(float(n), dtype=dtype) ** 2).reshape(shape) / 10
                                    - 1)
    orthogonal(module, orthogonal_map=orthogonal_map, use_trivialization=trivialization)
    _close(module.weight, weight, dtype)
    _close(module.parametrizations.weight.original, original, dtype)
    index = ng.arange(float(n), dtype=dtype).reshape(shape)
    with ng.no_grad():
        module.parametrizations.weight.original.add_(index / 20 * (1 - ng.eye(*shape,
                                                                              dtype=dtype)))
    (module.weight * index).sum().backward()
    _close(module.weight, moved, dtype)
    _close(module.parametrizations.weight.original.grad, grad, dtype)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 3, 3)])
def test_orthogonal_assignment_and_errors(orthogonal_map, shape):
    lin = ng.nn.Module()
    lin.weight = ng.nn.Parameter(ng.randn(*shape))
    orthogonal(lin, orthogonal_map=orthogonal_map)
    tall = shape if shape[-2] >= shape[-1] else (*shape[:-2], shape[-1], shape[-2])
    Q = ng.tensor(np.linalg.qr(np.random.randn(*tall))[0].astype(np.float32))
    Q = Q if tall == shape else Q.mT
    lin.weight = Q
    _close(lin.weight, Q.numpy())
    with pytest.raises(ValueError, match=r"^Expected a matrix or batch of matrices of shape "
                                         r"numgrad.Size\(\[.*\]\). Got a tensor of shape "
                                         r"numgrad.Size\(\[2, 2\]\).$"):
        lin.weight = ng.ones(2, 2)


def test_orthogonal_refusals():
    with pytest.raises(ValueError, match="^Expected a matrix or batch of matrices. Got a tensor "
                                         "of 1 dimensions.$"):
        orthogonal(ng.nn.Linear(2, 3), name="bias")
    with pytest.raises(ValueError, match='^orthogonal_map has to be one of "matrix_exp", '
                                         '"cayley", "householder". Got: x$'):
        orthogonal(ng.nn.Linear(2, 3), orthogonal_map="x")
    lin = orthogonal(ng.nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="^It is not possible to assign to the matrix "
                                                  "exponential or the Cayley parametrizations "
                                                  "when use_trivialization=False.$"):
        lin.weight = ng.eye(3)
