"""Negative log-likelihood losses of a distribution given its parameters: Gaussian (mean and variance) and Poisson
(rate). Both compose other ops."""
import math

from ...core.state import STATE
from ...ops import logic as L
from ...ops import manipulation as S
from ...ops import math as M
from .loss import _reduce


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean", name=None):
    """``0.5 * (log(var) + (input - label)^2 / var)`` (+ ``0.5 * log(2 pi)`` when `full`); the variance is clipped
    to `epsilon` outside the gradient (as Paddle does: its gradient is that of the unclipped variance). `variance`
    has the shape of `input`, or that shape without the last dim, or with a last dim of 1.

    Example:
        >>> import oar.nn.functional as F
        >>> x, y, var = oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 4.0]), oar.to_tensor([1.0, 2.0])
        >>> round(float(F.gaussian_nll_loss(x, y, var)), 4)
        0.6733
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"gaussian_nll_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = S.unsqueeze(variance, -1)
        elif not (list(input.shape[:-1]) == list(variance.shape[:-1]) and variance.shape[-1] == 1):
            raise ValueError(f"gaussian_nll_loss: variance of shape {variance.shape} fits neither input's shape "
                             f"{input.shape} nor it without (or with 1 as) its last dim")
    for what, t in (("input", input), ("label", label), ("variance", variance)):
        if t.dtype.name not in ("float32", "float64"):
            raise ValueError(f"gaussian_nll_loss: {what} must be float32 or float64, got {t.dtype.name}")
    if not STATE.static and bool(L.any(variance < 0)):
        raise ValueError("gaussian_nll_loss: variance has negative entries")
    clipped = M.clip(variance, min=epsilon)
    variance = variance + (clipped - variance).detach()  # the clip's value, the identity's gradient
    loss = 0.5 * (M.log(variance) + M.square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
    """Poisson negative log-likelihood: ``exp(input) - label * input`` when `input` is the log rate, else
    ``input - label * log(input + epsilon)``; `full` adds Stirling's ``label*log(label) - label +
    0.5*log(2 pi label)`` where label > 1.

    Example:
        >>> import oar.nn.functional as F
        >>> round(float(F.poisson_nll_loss(oar.to_tensor([0.0, 1.0]), oar.to_tensor([1.0, 2.0]))), 4)
        0.8591
    """
    if epsilon <= 0:
        raise ValueError(f"poisson_nll_loss: epsilon must be positive, got {epsilon}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"poisson_nll_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if list(input.shape) != list(label.shape):
        raise ValueError(f"poisson_nll_loss: input's shape {input.shape} differs from label's {label.shape}")
    if log_input:
        loss = M.exp(input) - label * input
    else:
        loss = input - label * M.log(input + epsilon)
    if full:
        safe = M.where(label > 1, label, M.ones_like(label))  # log(label) is not evaluated where it is masked
        stirling = safe * M.log(safe) - safe + 0.5 * M.log(2 * math.pi * safe)
        loss = loss + M.where(label > 1, stirling, M.zeros_like(stirling))
    return _reduce(loss, reduction)
