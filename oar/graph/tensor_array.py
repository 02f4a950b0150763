"""Tensor arrays: lists of tensors that can grow inside static loops (`create_array`, `array_write`, ...).

In eager mode a tensor array is a Python list of Tensors. In static mode it is a Variable of kind
``tensor_array`` (its shape and dtype describe the elements; dims that differ between writes are -1) whose
run-time value is a Python list of arrays. `array_write` rebinds the same variable, so it can be a loop var.

Example:
    >>> arr = oar.tensor.create_array('float32')
    >>> oar.tensor.array_write(x, oar.zeros([1], 'int64'), arr)
    >>> oar.tensor.array_length(arr)
"""
from ..core import dtype as D
from ..core.state import STATE
from ..kernels.tensor_array import (add as _array_add, clear as _clear, create as _create, length as _length, pick as
                                    _pick, position as _index, put as _put, read as _read, read_grad as
                                    _read_grad_kernel, split_like as _split_like, stack as _stack, stack_like as
                                    _stack_like, take_slice as _slice, unslice as _unslice, unstack as _unstack, write
                                    as _write, zeros as _zeros)
from ..ops.registry import apply, defop


def _is_static_array(a):
    return hasattr(a, "block") and a.attrs.get("kind") == "tensor_array"


def _grad_array(v):
    """Marks the static Variable `v` (a tensor array, or the gradient of one) as a tensor array."""
    v.attrs["kind"] = "tensor_array"
    return v


def _create_grad(g, out, *xs, dtype):
    from ..ops.common import const
    return tuple(apply(ARRAY_PICK, (g, x, const([k], D.int64))) for k, x in enumerate(xs))


# tensor arrays (Python lists in converted code): AMP never casts them and ONNX has no list type
ARRAY_FIELDS = dict(amp="skip", onnx_reason="tensor arrays (lists in converted code) have no ONNX form")


CREATE_ARRAY = defop("create_array", _create, inputs=("x",), variadic=True,
                     infer=lambda m, dtype: [(list(m[0][0]) if m else [], D.convert_dtype(dtype))],
                     grad=_create_grad, **ARRAY_FIELDS)


# ---- gradients ----------------------------------------------------------------------------------------------
# The gradient of a tensor array is a tensor array of the same element shapes in which a missing entry (None,
# or an index past the end) is a zero; so a read's gradient is cheap and unused positions cost nothing.


ARRAY_PICK = defop("array_pick", _pick, inputs=("array", "like", "i"), infer=lambda m: [m[1]],
                   grad=lambda g, out, arr, like, i: (_grad_array(apply(ARRAY_READ_GRAD, (g, i))), None, None),
                   nondiff=(1, 2), **ARRAY_FIELDS)
ARRAY_CLEAR = defop("array_clear", _clear, inputs=("array", "i"), infer=lambda m: [m[0]], nondiff=(1,),
                    grad=lambda g, out, arr, i: (_grad_array(apply(ARRAY_CLEAR, (g, i))), None), **ARRAY_FIELDS)
ARRAY_ADD = defop("array_add", _array_add, inputs=("x", "y"), infer=lambda m: [m[0]],
                  grad=lambda g, out, x, y: (g, g), **ARRAY_FIELDS)
ARRAY_ZEROS = defop("array_zeros", _zeros, inputs=("array",), infer=lambda m: [m[0]], **ARRAY_FIELDS,
                    differentiable=False)


def _write_grad(g, out, arr, x, i):
    """The written element's gradient is the entry at `i`; the array before the write gets the rest."""
    return _grad_array(apply(ARRAY_CLEAR, (g, i))), apply(ARRAY_PICK, (g, x, i)), None


ARRAY_WRITE = defop("array_write", _write, inputs=("array", "x", "i"), nondiff=(2,),
                    infer=lambda m: [(m[1][0], m[1][1])], grad=_write_grad, **ARRAY_FIELDS)
ARRAY_WRITE.set(side_effect=True)  # it writes the array variable in place


ARRAY_READ_GRAD = defop("array_read_grad", _read_grad_kernel, inputs=("x", "i"), nondiff=(1,),
                        infer=lambda m: [m[0]],
                        grad=lambda g, out, x, i: (apply(ARRAY_PICK, (g, x, i)), None), **ARRAY_FIELDS)
ARRAY_READ = defop("array_read", _read, inputs=("array", "i"), nondiff=(1,), infer=lambda m: [m[0]],
                   grad=lambda g, out, arr, i: (_grad_array(apply(ARRAY_READ_GRAD, (g, i))), None), **ARRAY_FIELDS)


ARRAY_UNSLICE = defop("array_unslice", _unslice, inputs=("g", "array"), nondiff=(1,), infer=lambda m, **a: [m[1]],
                      **ARRAY_FIELDS, differentiable=False)
ARRAY_SLICE = defop("array_slice", _slice, inputs=("array",), infer=lambda m, **a: [m[0]],
                    grad=lambda g, out, arr, start, stop, step: (
                        apply(ARRAY_UNSLICE, (g, arr), {"start": start, "stop": stop, "step": step}),), **ARRAY_FIELDS)
ARRAY_LENGTH = defop("array_length", _length, inputs=("array",),
                     infer=lambda m: [([1], D.int64)], **ARRAY_FIELDS, differentiable=False)


def _stack_infer(m, axis, use_stack):
    s = list(m[0][0])
    if use_stack:
        ax = axis % (len(s) + 1)
        s.insert(ax, -1)
    else:
        s[axis % len(s)] = -1
    return [(s, m[0][1])]


def _unstack_infer(m, axis):
    s = list(m[0][0])
    del s[axis % len(s)]
    return [(s, m[0][1])]


ARRAY_UNSTACK = defop("array_unstack", _unstack, inputs=("x",), infer=_unstack_infer,
                      grad=lambda g, out, x, axis: apply(ARRAY_TO_TENSOR_LIKE, (g, x), {"axis": axis,
                                                                                       "use_stack": True}),
                      **ARRAY_FIELDS)
ARRAY_SPLIT = defop("array_split", _split_like, inputs=("x", "array"), nondiff=(1,), infer=lambda m, axis: [m[1]],
                    grad=lambda g, out, x, arr, axis: (apply(ARRAY_TO_TENSOR_LIKE, (g, x), {"axis": axis,
                                                                                           "use_stack": False}),
                                                       None), **ARRAY_FIELDS)


ARRAY_TO_TENSOR_LIKE = defop("array_to_tensor_like", _stack_like, inputs=("array", "like"), nondiff=(1,),
                             infer=lambda m, axis, use_stack: [m[1]], **ARRAY_FIELDS, differentiable=False)


def _to_tensor_grad(g, out, arr, axis, use_stack):
    if use_stack:
        return (_grad_array(apply(ARRAY_UNSTACK, (g,), {"axis": axis})),)
    return (_grad_array(apply(ARRAY_SPLIT, (g, arr), {"axis": axis})),)


ARRAY_TO_TENSOR = defop("array_to_tensor", _stack, inputs=("array",), infer=_stack_infer, grad=_to_tensor_grad,
                        **ARRAY_FIELDS)


def create_array(dtype, initialized_list=None):
    """A new tensor array of `dtype`, optionally holding `initialized_list`."""
    items = list(initialized_list or [])
    if not STATE.static:
        return items
    from .builder import as_var, default_main_program
    block = default_main_program().current_block()
    ins = tuple(as_var(block, v) for v in items)
    return _grad_array(apply(CREATE_ARRAY, ins, {"dtype": D.convert_dtype(dtype).name}))


def array_write(x, i, array=None):
    """Writes `x` at position `i` (an int or a 1-element int tensor) of `array` (a new one when None); returns it."""
    if not STATE.static or not (hasattr(x, "block") or _is_static_array(array)):
        return _put([] if array is None else array, _index(i), x)
    from .builder import as_var, default_main_program, user_location
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
    array.stop_gradient = array.stop_gradient and xv.stop_gradient
    block.append_op("array_write", {"array": [array.name], "x": [xv.name], "i": [iv.name]},
                    {"out": [array.name]}, {}, user_location())
    return array


def array_slice(array, index):
    """`array[start:stop:step]` with Python int (or None) bounds: a new tensor array."""
    if any(b is not None and not isinstance(b, int) for b in (index.start, index.stop, index.step)):
        raise TypeError(f"a tensor array can be sliced only with int bounds, got {index!r}")
    if isinstance(array, list):
        return array[index]
    out = apply(ARRAY_SLICE, (array,), {"start": index.start, "stop": index.stop, "step": index.step})
    out.attrs["kind"] = "tensor_array"
    return out


def array_read(array, i):
    """The element at position `i` of `array`."""
    if isinstance(array, list):
        return array[_index(i)]
    from ..ops.common import operand
    return apply(ARRAY_READ, (array, operand(i) if not hasattr(i, "dtype") else i))


def array_length(array):
    """The number of elements of `array` (an int64 tensor of shape [1])."""
    if isinstance(array, list):
        from ..eager.tensor import to_tensor
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
        from ..eager.tensor import to_tensor
        sizes = [1 if use_stack else t.shape[axis] for t in input]
        return out, to_tensor(sizes, dtype="int32")
    return out, None
