"""Generator: torch.Generator, a random stream of its own (a NumPy PCG64 Generator inside), and
default_generator, the global one that manual_seed seeds. Pass a Generator where numgrad takes
generator= (utils.data's samplers, random_split and DataLoader, nn.init): NumPy's Generator
methods (permutation, random, normal, ...) are its own."""
import numpy as np

from . import creation
from .device import device as _device
from .random_state import fresh_seed, restore_state, seed_of, state_of


class Generator:
    """A seeded random stream: Generator().manual_seed(0) repeats its draws.

    >>> import numgrad as ng
    >>> first = ng.Generator().manual_seed(3).permutation(4).tolist()
    >>> first == ng.Generator().manual_seed(3).permutation(4).tolist()
    True
    """

    def __init__(self, device="cpu"):
        self.device = _device(device)
        self._stream = np.random.default_rng()

    @property
    def _rng(self):
        return self._stream

    def manual_seed(self, seed):
        self._stream = np.random.default_rng(int(seed))
        return self

    def seed(self):
        value = fresh_seed()
        self.manual_seed(value)
        return value

    def initial_seed(self):
        return seed_of(self._rng)

    def get_state(self):
        """The state as an int64 tensor of six values (torch's is a uint8 tensor)."""
        return state_of(self._rng)

    def set_state(self, new_state):
        restore_state(self._rng, new_state)
        return self

    def __getattr__(self, name):
        # NumPy's Generator methods, for code that draws from a generator= argument
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._rng, name)


class _DefaultGenerator(Generator):
    """numgrad's global stream (creation.generator()): seeding it is manual_seed."""

    def __init__(self):
        self.device = _device("cpu")

    @property
    def _rng(self):
        return creation.generator()

    def manual_seed(self, seed):
        creation.manual_seed(int(seed))
        return self


default_generator = _DefaultGenerator()
