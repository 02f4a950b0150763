"""Tensor arrays: lists of tensors that can grow inside static loops (`create_array`, `array_write`, ...).

In eager mode a tensor array is a Python list of Tensors. In static mode it is a Variable of kind
``tensor_array`` (its shape and dtype describe the elements; dims that differ between writes are -1) whose
run-time value is a Python list of arrays. `array_write` rebinds the same variable, so it can be a loop var.

Example:
    >>> arr = oar.tensor.create_array('float32')
    >>> oar.tensor.array_write(x, oar.zeros([1], 'int64'), arr)
    >>> oar.tensor.array_length(arr)
"""
import numpy as np

from ..framework import dtype as D
from ..framework.state import STATE
from ..ops.registry import apply, defop


def _is_static_array(a):
    return hasattr(a, "block") and a.attrs.get("kind") == "tensor_array"


def _index(i):
    if hasattr(i, "_data"):
        return int(np.asarray(i._data).reshape(-1)[0])
    return int(i)


def _create(*xs, dtype):
    return list(xs)


CREATE_ARRAY = defop("create_array", _create, inputs=("x",), variadic=True,
                     infer=lambda m, dtype: [(list(m[0][0]) if m else [], D.convert_dtype(dtype))])


def _write(arr, x, i):
    a = list(arr)
    k = int(np.asarray(i).reshape(-1)[0])
    if k < len(a):
        a[k] = x
    else:
        a.extend([None] * (k - len(a)))
        a.append(x)
    return a


ARRAY_WRITE = defop("array_write", _write, inputs=("array", "x", "i"), nondiff=(2,),
                    infer=lambda m: [(m[1][0], m[1][1])], grad=None)


def _read(arr, i):
    return arr[int(np.asarray(i).reshape(-1)[0])]


ARRAY_READ = defop("array_read", _read, inputs=("array", "i"), nondiff=(1,), infer=lambda m: [m[0]])
ARRAY_LENGTH = defop("array_length", lambda arr: np.asarray([len(arr)], np.int64), inputs=("array",),
                     infer=lambda m: [([1], D.int64)])


def _stack(arr, axis, use_stack):
    return np.stack(arr, axis) if use_stack else np.concatenate(arr, axis)


def _stack_infer(m, axis, use_stack):
    s = list(m[0][0])
    if use_stack:
        ax = axis % (len(s) + 1)
        s.insert(ax, -1)
    else:
        s[axis % len(s)] = -1
    return [(s, m[0][1])]


ARRAY_TO_TENSOR = defop("array_to_tensor", _stack, inputs=("array",), infer=_stack_infer)


def _mark(v):
    v.attrs["kind"] = "tensor_array"
    return v


def create_array(dtype, initialized_list=None):
    """A new tensor array of `dtype`, optionally holding `initialized_list`."""
    items = list(initialized_list or [])
    if not STATE.static:
        return items
    from ..static.builder import as_var, default_main_program
    block = default_main_program().current_block()
    ins = tuple(as_var(block, v) for v in items)
    return _mark(apply(CREATE_ARRAY, ins, {"dtype": D.convert_dtype(dtype).name}))


def array_write(x, i, array=None):
    """Writes `x` at position `i` (an int or a 1-element int tensor) of `array` (a new one when None); returns it."""
    if not STATE.static or not (hasattr(x, "block") or _is_static_array(array)):
        if array is None:
            array = []
        k = _index(i)
        if k < len(array):
            array[k] = x
        else:
            array.extend([None] * (k - len(array)))
            array.append(x)
        return array
    from ..static.builder import as_var, default_main_program, user_location
    from ..ops.common import operand
    if array is None:
        array = create_array(x.dtype)
    block = default_main_program().current_block()
    i = operand(i) if not hasattr(i, "dtype") else i
    xv, iv = as_var(block, x), as_var(block, i)
    # the element shape of the array: dims that differ between writes become -1
    prev = array.shape
    written = array.attrs.get("written", False)
    array.shape = list(xv.shape) if not written else (
        [a if a == b else -1 for a, b in zip(prev, xv.shape)] if len(prev) == len(xv.shape) else [-1] * len(xv.shape))
    array.attrs["written"] = True
    block.append_op("array_write", {"array": [array.name], "x": [xv.name], "i": [iv.name]},
                    {"out": [array.name]}, {}, user_location())
    return array


def array_read(array, i):
    """The element at position `i` of `array`."""
    if isinstance(array, list):
        return array[_index(i)]
    from ..ops.common import operand
    return apply(ARRAY_READ, (array, operand(i) if not hasattr(i, "dtype") else i))


def array_length(array):
    """The number of elements of `array` (an int64 tensor of shape [1])."""
    if isinstance(array, list):
        from ..tensor.tensor import to_tensor
        return to_tensor([len(array)], dtype="int64")
    return apply(ARRAY_LENGTH, (array,))


def array_to_tensor(array, axis=0, use_stack=True):
    """Stacks (or, with ``use_stack=False``, concatenates) the elements of `array` along `axis`."""
    if isinstance(array, list):
        from ..ops.manipulation import stack, concat
        return stack(array, axis) if use_stack else concat(array, axis)
    return apply(ARRAY_TO_TENSOR, (array,), {"axis": int(axis), "use_stack": bool(use_stack)})


def tensor_array_to_tensor(input, axis=1, use_stack=False, name=None):
    """Paddle's form: returns ``(tensor, sizes)`` where sizes holds each element's extent along `axis`."""
    out = array_to_tensor(input, axis, use_stack)
    if isinstance(input, list):
        from ..tensor.tensor import to_tensor
        sizes = [1 if use_stack else t.shape[axis] for t in input]
        return out, to_tensor(sizes, dtype="int32")
    return out, None
