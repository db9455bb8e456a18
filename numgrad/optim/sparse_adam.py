"""SparseAdam: torch's Adam for sparse gradients. numgrad has no sparse tensors (Embedding and
EmbeddingBag refuse sparse=True), so every gradient is dense and step() refuses it in torch's words,
as torch's SparseAdam refuses a dense gradient: use Adam. The class is here so that code naming it
runs up to that point, with torch's checks of its options."""
from .. import grad_mode
from .optimizer import Optimizer


class SparseAdam(Optimizer):
    """torch's SparseAdam: the same options and checks; step() refuses the dense gradients that
    are all numgrad has.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.ones(2))
    >>> opt = ng.optim.SparseAdam([w])
    >>> w.sum().backward()
    >>> opt.step()
    Traceback (most recent call last):
    ...
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for group in self.param_groups:
            if any(p.grad is not None for p in group["params"]):
                raise RuntimeError("SparseAdam does not support dense gradients, please consider "
                                   "Adam instead")
        return loss
