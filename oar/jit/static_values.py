"""The small tests and marks on values that converted code's runtime needs everywhere (`runtime.py`, `control.py`,
`loop_runtime.py`): a static Variable, a static tensor array, a static value standing for a Python int. Kept apart
so the runtime can use them without importing the control-flow modules (imported on first use).

Example:
    >>> from oar.jit.static_values import is_var
    >>> is_var(1), is_var(oar.to_tensor(1.0))
    (False, False)
"""
from ..graph.variable import Variable


def is_var(x):
    return isinstance(x, Variable)


def is_array(x):
    """A static tensor array (a list carried through a tensor-dependent loop)."""
    return is_var(x) and x.attrs.get("kind") == "tensor_array"


def no_state(*args):
    return ()


def weak(v):
    """Marks a static value as standing for a Python int (see oar.ops.common._weak)."""
    if is_var(v):
        v.attrs["weak"] = True
    return v
