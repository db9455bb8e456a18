"""torch.nn.utils.stateless: functional_call under its older name (numgrad.func has it)."""
from ...func import functional_call

__all__ = ["functional_call"]
