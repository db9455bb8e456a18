"""numgrad.optim: optimizers with torch's update rules (compiled with Numba) and lr schedules.

>>> import numgrad as ng
>>> w = ng.nn.Parameter(ng.tensor([2.0]))
>>> opt = ng.optim.SGD([w], lr=0.25)
>>> for _ in range(3):
...     opt.zero_grad()
...     (w * w).sum().backward()
...     opt.step()
>>> w
Parameter containing:
tensor([0.2500], requires_grad=True)
"""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
