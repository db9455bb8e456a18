"""numgrad.utils: data loading (numgrad.utils.data), activation checkpointing
(numgrad.utils.checkpoint) and hook handles (numgrad.utils.hooks)."""
from . import data, hooks

__all__ = ["checkpoint", "data", "hooks"]


def __getattr__(name):
    # checkpoint loads on first use: 3 ms of every start otherwise, for code that seldom uses it
    if name == "checkpoint":
        import importlib
        return importlib.import_module(".checkpoint", __name__)
    raise AttributeError(f"module 'numgrad.utils' has no attribute '{name}'")
