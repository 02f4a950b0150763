"""Automatic mixed precision (Paddle 2.x `paddle.amp`): `auto_cast`, `GradScaler`, `decorate`.

Example:
    >>> scaler = oar.amp.GradScaler(init_loss_scaling=1024)
    >>> with oar.amp.auto_cast():
    ...     loss = F.cross_entropy(model(x), y)    # conv/matmul in float16, the loss in float32
    >>> scaler.scale(loss).backward()
    >>> scaler.minimize(optimizer, scaler.scale(loss))
"""
from .auto_cast import auto_cast, amp_guard, white_list, black_list  # noqa: F401
from .grad_scaler import GradScaler, AmpScaler  # noqa: F401
from .decorate import decorate, amp_decorate  # noqa: F401


def is_float16_supported(device=None):
    """True: float16 runs on the CPU (white-list ops round their inputs to float16 and compute in float32)."""
    return True


def is_bfloat16_supported(device=None):
    """True when the ml_dtypes package provides the bfloat16 NumPy dtype."""
    try:
        import ml_dtypes  # noqa: F401
        return True
    except ImportError:
        return False
