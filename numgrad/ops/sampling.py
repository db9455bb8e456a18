"""Random sampling from numgrad's generator (creation.generator(), seeded by numgrad.manual_seed):
the in-place fills uniform_, normal_, bernoulli_, exponential_, random_ and the functions normal,
bernoulli and multinomial.

Values are drawn on the host and copied in, so CUDA tensors are filled with the same numbers as CPU
ones under the same seed. A fill is an in-place write: it bumps the version counter and refuses a
leaf that requires grad in grad mode. Filling a tensor that is part of a graph gives it a zero
gradient, as torch's fills do; the node is ZeroBackward0 where torch names UniformBackward0,
NormalBackward0, and so on. Sampled values carry no gradient (torch's normal(mean, std) passes a
zero gradient to tensor mean and std).
"""
import numpy as np

from .. import dtypes
from ..creation import generator
from ..tensor import Tensor
from .apply import apply
from .inplace import ZERO, _check_can_write, _records, _source, rebase
from .untracked import to_host


def _fill(self, draw):
    """Write draw(shape) into self, as an in-place op that cuts self's gradient."""
    _check_can_write(self)
    values = np.asarray(draw(self._data.shape)).astype(self._data.dtype, copy=False)
    if _records(self):
        rebase(self, apply(ZERO, (_source(self, False),)))      # bumps the version
        self._data[...] = values
        return self
    self._data[...] = values
    self._bump_version()
    return self


def _float_only(self, name):
    if not dtypes.is_floating(self._data.dtype):
        raise RuntimeError(f"{name} expects a floating point tensor, but got {self.dtype}")


def uniform_(self, from_=0.0, to=1.0):
    """Fill with values uniform on [from_, to)."""
    _float_only(self, "uniform_")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} "
                           f"> to={to}")
    return _fill(self, lambda shape: generator().uniform(from_, to, shape))


def normal_(self, mean=0.0, std=1.0):
    """Fill with normal values of the given mean and standard deviation."""
    _float_only(self, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(self, lambda shape: generator().normal(mean, std, shape))


def _probabilities(p):
    if isinstance(p, Tensor):
        p = to_host(p._data)
    p = np.asarray(p, np.float64)
    if ((p < 0) | (p > 1) | np.isnan(p)).any():
        raise RuntimeError("bernoulli_ expects p to be in [0, 1]")
    return p


def bernoulli_(self, p=0.5):
    """Fill with 1 with probability p (a number, or a tensor broadcast to self), else 0."""
    probs = _probabilities(p)
    return _fill(self, lambda shape: generator().random(shape) < np.broadcast_to(probs, shape))


def exponential_(self, lambd=1.0):
    """Fill with exponential values of rate lambd."""
    _float_only(self, "exponential_")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill(self, lambda shape: generator().exponential(1.0 / lambd, shape))


def _random_range(dtype):
    """torch's random_() range: [0, 2**digits] for floats (digits: the significand's bits, the
    implicit one included; every integer there is exact), the type's range for ints."""
    if dtype == np.bool_:
        return 0, 2
    if dtype.kind == "f":
        return 0, 2 ** (np.finfo(dtype).nmant + 1) + 1
    return 0, int(np.iinfo(dtype).max) + 1


def random_(self, from_=None, to=None):
    """Fill with integers uniform on [from_, to); random_(to) is [0, to); random_() is [0, the
    largest integer the dtype holds exactly]."""
    if from_ is None and to is None:
        from_, to = _random_range(self._data.dtype)
    elif to is None:
        from_, to = 0, from_
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}")
    return _fill(self, lambda shape: generator().integers(from_, to, shape))


def _result(values, like):
    """values (drawn on the host) as a new tensor on like's device."""
    t = Tensor._make(values, False)
    return t.to(like.device) if isinstance(like, Tensor) and type(like._data) is not np.ndarray else t


def normal(mean, std=1.0, size=None, *, dtype=None):
    """Normal samples: mean and std numbers or tensors (broadcast together), or numbers with a
    size."""
    m = to_host(mean._data) if isinstance(mean, Tensor) else np.asarray(mean, np.float64)
    s = to_host(std._data) if isinstance(std, Tensor) else np.asarray(std, np.float64)
    if (s < 0).any():
        raise RuntimeError(f"normal expects all elements of std >= 0.0, but found std "
                           f"{s[s < 0].reshape(-1)[0]}")
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if size is None:
        if not tensors:
            raise TypeError("normal() needs a size when mean and std are numbers")
        shape = np.broadcast_shapes(m.shape, s.shape)
    else:
        if tensors:
            raise TypeError("normal() takes a size only with a number mean and std")
        shape = tuple(size)
    if dtype is None:
        dtype = tensors[0]._data.dtype if tensors else dtypes.get_default_dtype()
    values = (m + s * generator().standard_normal(shape)).astype(dtype)
    return _result(values, tensors[0] if tensors else None)


def bernoulli(input, p=None):
    """1 with probability input (elementwise, or p for every element if given), else 0; of input's
    dtype."""
    probs = _probabilities(input if p is None else p)
    shape = input._data.shape
    values = (generator().random(shape) < np.broadcast_to(probs, shape)).astype(input._data.dtype)
    return _result(values, input)


def multinomial(input, num_samples, replacement=False):
    """num_samples indices drawn from the categories of each row of input (1-D or 2-D, non-negative
    weights, not necessarily summing to one); without replacement each index at most once."""
    weights = np.asarray(to_host(input._data), np.float64)
    if weights.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = weights.reshape(-1, weights.shape[-1])
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if (rows < 0).any() or not np.isfinite(rows).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = rows.sum(axis=1)
    if (totals == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and ((rows > 0).sum(axis=1) < num_samples).any():
        raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough "
                           "non-negative category to sample)")
    rng = generator()
    out = np.stack([rng.choice(rows.shape[1], num_samples, replace=replacement, p=row / total)
                    for row, total in zip(rows, totals)]).astype(np.int64)
    return _result(out.reshape(weights.shape[:-1] + (num_samples,)), input)


PUBLIC = ("normal", "bernoulli", "multinomial")
METHODS = ("uniform_", "normal_", "bernoulli_", "exponential_", "random_", "bernoulli",
           "multinomial")
INPLACE = {}
