"""`paddle.static.amp`: the names model code reaches for. Paddle's static mixed-precision decorators are not
provided (oar's AMP is `oar.amp.auto_cast`, which also works inside converted code)."""
import contextlib


@contextlib.contextmanager
def fp16_guard():
    """Marks the ops built inside it for Paddle's static pure-fp16 training with ``use_fp16_guard=True``. Paddle's
    guard only opens a name scope that that static decorator reads; in dynamic mode and converted code it changes
    nothing, which is how model libraries use it. oar has no such static decorator, so the guard changes nothing
    here either.

    Example:
        >>> with oar.static.amp.fp16_guard():
        ...     y = oar.ones([2]) * 2
        >>> y.dtype == oar.float32
        True
    """
    yield
