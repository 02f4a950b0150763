"""Automatic mixed precision (Paddle 2.x `paddle.amp`): `auto_cast`, `GradScaler`, `decorate`.

Example:
    >>> import oar.nn.functional as F
    >>> model = oar.nn.Linear(4, 3)
    >>> optimizer = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    >>> x, y = oar.ones([2, 4]), oar.to_tensor([0, 2])
    >>> scaler = oar.amp.GradScaler(init_loss_scaling=1024)
    >>> with oar.amp.auto_cast():
    ...     logits = model(x)                   # matmul in float16
    ...     loss = F.cross_entropy(logits, y)   # the loss in float32
    >>> logits.dtype == oar.float16, loss.dtype == oar.float32
    (True, True)
    >>> scaler.scale(loss).backward()
    >>> scaler.minimize(optimizer, scaler.scale(loss))
"""
from .auto_cast import auto_cast, amp_guard, white_list, black_list  # noqa: F401
from .grad_scaler import GradScaler, AmpScaler  # noqa: F401
from .decorate import decorate, amp_decorate  # noqa: F401


def is_float16_supported(device=None):
    """True: float16 runs on the CPU (white-list ops round their inputs to float16 and compute in float32).

    Example:
        >>> oar.amp.is_float16_supported()
        True
    """
    return True


def is_bfloat16_supported(device=None):
    """True when the ml_dtypes package provides the bfloat16 NumPy dtype.

    Example:
        >>> isinstance(oar.amp.is_bfloat16_supported(), bool)
        True
    """
    try:
        import ml_dtypes  # noqa: F401
        return True
    except ImportError:
        return False
