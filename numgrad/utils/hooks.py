"""torch.utils.hooks' public name: the handle that register_*hook methods return."""
from ..hooks import RemovableHandle

__all__ = ["RemovableHandle"]
