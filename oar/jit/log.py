"""dy2static logging: `set_verbosity` (the translator's decisions) and `set_code_level` (the code after each
conversion step). Written to the current `sys.stdout` at call time, so redirection works."""
import os
import sys

_LEVELS = {"verbosity": int(os.environ.get("OAR_TO_STATIC_VERBOSITY", "0") or 0),
           "code_level": int(os.environ.get("OAR_TO_STATIC_CODE_LEVEL", "0") or 0)}


def set_verbosity(level=0, also_to_stdout=False):
    """Logs the translator's decisions (which branches and loops became ops, why a program was rebuilt).

    Example:
        >>> oar.jit.set_verbosity(1)
        >>> def double(x):
        ...     return x * 2
        >>> _ = oar.jit.to_static(double)(oar.ones([2]))
        [oar.jit] ...
        >>> oar.jit.set_verbosity(0)
    """
    _LEVELS["verbosity"] = int(level)


def set_code_level(level=100, also_to_stdout=False):
    """Prints the code after each conversion step up to `level` (100: every step and the final code).

    Example:
        >>> oar.jit.set_code_level(100)
        >>> def double(x):
        ...     return x * 2
        >>> _ = oar.jit.to_static(double)(oar.ones([2]))
        [oar.jit] ... code after step 100 (final):
        ...
        >>> oar.jit.set_code_level(0)
    """
    _LEVELS["code_level"] = int(level)


def verbosity():
    return _LEVELS["verbosity"]


def code_level():
    return _LEVELS["code_level"]


def info(level, msg):
    if _LEVELS["verbosity"] >= level:
        print(f"[oar.jit] {msg}", file=sys.stdout, flush=True)


def code(step_index, step, name, text):
    if _LEVELS["code_level"] >= step_index:  # the final code is step 100
        print(f"[oar.jit] {name}: code after step {step_index} ({step}):\n{text}\n", file=sys.stdout, flush=True)
