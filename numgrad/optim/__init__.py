"""numgrad.optim: optimizers with torch's update rules (compiled with Numba, or written with tensor
ops) and lr schedules.

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
from . import lr_scheduler, swa_utils
from .adafactor import Adafactor
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Optimizer", "Adafactor", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "Rprop", "ASGD", "LBFGS", "Muon", "SparseAdam",
           "lr_scheduler", "swa_utils"]
