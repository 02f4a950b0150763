"""The post-condition every pass keeps: the Program it returns is well formed (`oar.ir.verify`). Checked when
``OAR_VERIFY_PASSES=1`` (the test suite sets it), so production runs pay one environment lookup per pass.

Example:
    >>> from oar.passes.contract import verified
    >>> @verified
    ... def identity(program, keep=()):
    ...     return program
    >>> p = identity(oar.static.Program())
"""
import functools
import os

from ..graph.program import verify


def verify_on():
    """Whether passes verify their results now (``OAR_VERIFY_PASSES=1``)."""
    return os.environ.get("OAR_VERIFY_PASSES") == "1"


def verified(fn):
    """`fn(program, ...) -> Program`, whose result is verified when `verify_on()`; an `ir.VerifyError` then
    names the pass."""
    @functools.wraps(fn)
    def run(program, *args, **kwargs):
        out = fn(program, *args, **kwargs)
        if verify_on():
            from ..ir import VerifyError
            try:
                verify(out)
            except VerifyError as e:
                raise VerifyError(f"after pass {fn.__name__}: {e}") from None
        return out
    return run
