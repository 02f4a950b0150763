"""The seam through which eager training calls reach a training step being captured into one Program.

While `to_static` traces a function, `loss.backward()`, `optimizer.step()` / `minimize()`, `clear_grad()`,
`lr_scheduler.step()` and `GradScaler` calls do not compute: they ask `active()` for the capture (an object
implemented in `oar.jit.train_step`) and append their ops to the program being built, or record the host-side
work to replay on every run. Outside a capture `active()` is None and those calls behave as before.

Example:
    >>> from oar.static import capture
    >>> capture.active() is None      # nothing is being traced
    True
"""
import contextlib
import threading

from .state import STATE


class _Capturing(threading.local):
    """The training-step capture in progress in this thread (None when it traces no converted function)."""

    def __init__(self):
        self.capture = None


CAPTURING = _Capturing()


def active():
    """The capture in progress when ops are being built, else None."""
    return CAPTURING.capture if STATE.static else None


def require(what):
    """The capture in progress; a clear error when `what` (e.g. 'optimizer.step()') is called in static mode
    outside a converted function."""
    cap = active()
    if cap is None:
        raise RuntimeError(f"{what} was called while building a static Program outside a to_static function: in "
                           "a static Program use optimizer.minimize(loss); in a function converted by "
                           "oar.jit.to_static it becomes part of the captured training step")
    return cap


@contextlib.contextmanager
def capturing(capture):
    """Makes `capture` the active one for the duration of the block."""
    prev = CAPTURING.capture
    CAPTURING.capture = capture
    try:
        yield capture
    finally:
        CAPTURING.capture = prev
