"""Devices: 'cpu', and 'cuda' when numba.cuda finds a GPU (or its simulator)."""
import re

# torch's device string: a type, then optionally ':' and an index without leading zeros
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")


class device:
    """A device, compared and printed as torch's: device(type='cpu')."""

    __slots__ = ("type", "index")

    def __init__(self, spec, index=None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        text = str(spec)
        match = _DEVICE_STRING.fullmatch(text)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{text}'")
        text, idx = match.groups()
        if idx is not None:
            index = int(idx)
        if text not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {spec}")
        self.type = text
        self.index = index

    def __eq__(self, other):
        try:
            other = device(other)
        except (RuntimeError, TypeError):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")
