"""numgrad.utils: data loading (numgrad.utils.data), activation checkpointing
(numgrad.utils.checkpoint) and hook handles (numgrad.utils.hooks)."""
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
