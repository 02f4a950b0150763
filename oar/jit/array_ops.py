"""`list.pop` on a tensor array (a list carried through a tensor-dependent loop): `array_delete` removes the
element at a run-time index, so the array's length decreases, as Python's list. `array_pop(arr, index)` is the
pair of ops converted code uses: the element is read with `array_popped`, the array shrinks with `array_delete`.

Gradients: the element's gradient goes back as `array_read`'s does; the shrunk array's gradient gets an empty
(zero) slot re-inserted at the deleted position by `array_undelete`.

Example:
    >>> arr, last = array_pop(arr)          # xs.pop() inside a tensor loop
    >>> arr, first = array_pop(arr, 0)      # xs.pop(0)
"""
import numpy as np

from ..ops.registry import apply, defop
from ..graph.tensor_array import ARRAY_FIELDS, ARRAY_READ_GRAD, array_length


def _k(i):
    return int(np.asarray(i).reshape(-1)[0])


def _check(arr, k):
    if not 0 <= k < len(arr):
        raise IndexError("pop from empty list" if not arr else
                         f"pop index out of range (index {k - len(arr) if k < 0 else k}, length {len(arr)})")


def _delete(arr, i):
    k = _k(i)
    _check(arr, k)
    return list(arr[:k]) + list(arr[k + 1:])


def _popped(arr, i):
    k = _k(i)
    _check(arr, k)
    return arr[k]


def _undelete(g, i):
    k = _k(i)
    g = list(g)
    if k > len(g):
        g.extend([None] * (k - len(g)))
    g.insert(k, None)
    return g


def _as_array(v):
    v.attrs["kind"] = "tensor_array"
    return v


ARRAY_UNDELETE = defop("array_undelete", _undelete, inputs=("array", "i"), nondiff=(1,), infer=lambda m: [m[0]],
                       **ARRAY_FIELDS, differentiable=False)
ARRAY_DELETE = defop("array_delete", _delete, inputs=("array", "i"), nondiff=(1,), infer=lambda m: [m[0]],
                     grad=lambda g, out, arr, i: (_as_array(apply(ARRAY_UNDELETE, (g, i))), None), **ARRAY_FIELDS)

# the popped element (the same as `array_read`, with Python's error when the index is out of range)
ARRAY_POPPED = defop("array_popped", _popped, inputs=("array", "i"), nondiff=(1,), infer=lambda m: [m[0]],
                     grad=lambda g, out, arr, i: (_as_array(apply(ARRAY_READ_GRAD, (g, i))), None), **ARRAY_FIELDS)


def _normalized_index(arr, index):
    """The non-negative run-time index of `index` (None: the last element) in `arr`; -1 when out of range
    below, which `array_delete` reports."""
    from ..ops.math import cast, where
    from ..ops.manipulation import reshape
    n = reshape(array_length(arr), [1])
    if index is None:
        return n - 1
    if isinstance(index, (int, np.integer)):
        return n + int(index) if index < 0 else _const(int(index))
    i = reshape(cast(index, "int64"), [1])
    return where(i < 0, i + n, i)


def _const(k):
    from ..ops.creation import full
    return full([1], k, "int64")


def array_pop(arr, index=None):
    """(the array without the element at `index`, that element); `index` None means the last one."""
    k = _normalized_index(arr, index)
    new = _as_array(apply(ARRAY_DELETE, (arr, k)))
    for key, value in arr.attrs.items():
        new.attrs.setdefault(key, value)
    return new, apply(ARRAY_POPPED, (arr, k))
