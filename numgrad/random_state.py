"""The global random generator's state, as torch's API exposes it: seed, initial_seed,
get_rng_state and set_rng_state beside creation.manual_seed.

The generator is NumPy's PCG64 (creation.generator()). Its state is a 128-bit counter, a 128-bit
increment and a buffered 32-bit half-draw; get_rng_state packs it into an int64 tensor of six
values (torch's is a uint8 tensor, a dtype numgrad does not have), which set_rng_state restores
exactly."""
import numpy as np

from . import creation
from .tensor import Tensor

_MASK64 = (1 << 64) - 1


def initial_seed():
    """The seed the generator was last seeded with (by manual_seed or seed, or at random at
    import)."""
    return seed_of(creation.generator())


def seed():
    """Seed the generator with a non-deterministic 64-bit number, and return it."""
    value = fresh_seed()
    creation.manual_seed(value)
    return value


def _halves(value):
    return [value & _MASK64, value >> 64]


def state_of(generator):
    """A NumPy PCG64 Generator's state as an int64 tensor of six values."""
    state = generator.bit_generator.state
    words = (_halves(state["state"]["state"]) + _halves(state["state"]["inc"])
             + [state["has_uint32"], state["uinteger"]])
    return Tensor._make(np.array(words, np.uint64).view(np.int64), False)


def restore_state(generator, new_state):
    """Give a NumPy PCG64 Generator the state state_of returned."""
    words = np.asarray(new_state._data if isinstance(new_state, Tensor) else new_state)
    if words.shape != (6,) or words.dtype != np.int64:
        raise RuntimeError("set_rng_state expects the int64 tensor of 6 values that "
                           "get_rng_state returns")
    low_state, high_state, low_inc, high_inc, has_uint32, uinteger = \
        (int(w) for w in words.view(np.uint64))
    generator.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": low_state | high_state << 64, "inc": low_inc | high_inc << 64},
        "has_uint32": has_uint32, "uinteger": uinteger}


def seed_of(generator):
    """The seed a NumPy Generator was made with (64 bits of its entropy)."""
    return int(generator.bit_generator.seed_seq.entropy) & _MASK64


def fresh_seed():
    """A non-deterministic 63-bit seed."""
    return int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)


def get_rng_state():
    """The generator's state as an int64 tensor (restore it with set_rng_state)."""
    return state_of(creation.generator())


def set_rng_state(new_state):
    """Restore a state that get_rng_state returned."""
    restore_state(creation.generator(), new_state)
