"""Tensor-array kernels (oar/graph/tensor_array.py): a tensor array's run-time value is a Python list of arrays; its
gradient is a list of the same length in which a missing entry (None, or an index past the end) is a zero."""
from .backend import array_module


def position(i):
    """A position given as an int, a one-element array or a one-element Tensor."""
    xp = array_module(i)
    return int(xp.asarray(getattr(i, "_data", i)).reshape(-1)[0])


def put(a, k, x):
    """Sets ``a[k] = x`` in the list `a`, growing it with None up to `k`."""
    if k < len(a):
        a[k] = x
    else:
        a.extend([None] * (k - len(a)))
        a.append(x)
    return a


def create(*xs, dtype):
    return list(xs)


def write(arr, x, i):
    return put(list(arr), position(i), x)


def pick(g, x, i):
    xp = array_module(g, x, i)
    k = position(i)
    e = g[k] if k < len(g) else None
    return xp.zeros_like(x) if e is None else e


def clear(g, i):
    k = position(i)
    if k >= len(g) or g[k] is None:
        return g
    g = list(g)
    g[k] = None
    return g


def add(a, b):
    n = max(len(a), len(b))
    a, b = list(a) + [None] * (n - len(a)), list(b) + [None] * (n - len(b))
    return [y if x is None else x if y is None else x + y for x, y in zip(a, b)]


def read(arr, i):
    return arr[position(i)]


def read_grad(g, i):
    return [None] * position(i) + [g]


def take_slice(arr, start, stop, step):
    return list(arr[start:stop:step])


def unslice(g, arr, start, stop, step):
    """The gradient of a slice: the slice's gradient put back at the positions it came from (None elsewhere)."""
    out = [None] * len(arr)
    for j, i in enumerate(range(len(arr))[start:stop:step]):
        if j < len(g):
            out[i] = g[j]
    return out


def stack(arr, axis, use_stack):
    xp = array_module(arr, axis, use_stack)
    return xp.stack(arr, axis) if use_stack else xp.concatenate(arr, axis)


def unstack(g, axis):
    xp = array_module(g, axis)
    return [xp.take(g, k, axis) for k in range(g.shape[axis])]


def split_like(g, arr, axis):
    xp = array_module(g, arr, axis)
    cuts = xp.cumsum([a.shape[axis] for a in arr])[:-1]
    return xp.split(g, cuts, axis)


def stack_like(g, like, axis, use_stack):
    """Stacks a gradient array whose missing entries are zeros, into the shape of `like`."""
    xp = array_module(g, like, axis, use_stack)
    n = like.shape[axis] if use_stack else None
    if use_stack:
        shape = list(like.shape)
        del shape[axis % like.ndim]
        parts = [e if e is not None else xp.zeros(shape, like.dtype) for e in list(g)[:n]]
        parts += [xp.zeros(shape, like.dtype)] * (n - len(parts))
        return xp.stack(parts, axis)
    if not g or any(e is None for e in g):
        raise ValueError("array_to_tensor_like: a concatenated gradient array has missing entries")
    return xp.concatenate(g, axis)


def length(arr):
    xp = array_module(arr)
    return xp.asarray([len(arr)], xp.int64)


def zeros(arr):
    """The zero gradient of any tensor array: no entries."""
    return []
