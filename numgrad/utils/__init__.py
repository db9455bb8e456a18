"""numgrad.utils: data loading (numgrad.utils.data)."""
from . import data

__all__ = ["data"]
