"""Optimizers (Paddle 2.x API): each declares only its per-parameter update op; `Optimizer` does the rest."""
from . import lr
from .optimizer import Optimizer
from .sgd import SGD, Momentum
from .adam import Adam, AdamW, Adamax, Lamb
from .adaptive import RMSProp, Adagrad, Adadelta
from .lbfgs import LBFGS

__all__ = ["lr", "Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "Lamb", "RMSProp", "Adagrad", "Adadelta",
           "LBFGS"]
from . import multi_tensor  # noqa: E402,F401  (registers the multi-tensor update ops the passes fuse into)
