"""Shape manipulation ops (subscripts `x[...]` live in `subscript.py`)."""
import math

import numpy as np

from ..core import dtype as D
from ..core.state import mode
from . import subscript
from .common import infer_same, public_api, const, operand, to_int_list
from .math import unbroadcast, zeros_like, cast
from ..kernels.manipulation import (PAD_MODES as _PAD_MODES, arange_repeated as _arange_repeated,
                                    broadcast_to as _broadcast_to, concat as _concat, flatten as _flatten,
                                    flip as _flip, numel as _numel, pad as _pad, pad_grad as _pad_grad_impl,
                                    repeat_count as _repeat_count, repeat_index as _repeat_index,
                                    reshape as _reshape, reshape_as as _reshape_as,
                                    reshape_target as _reshape_target, roll as _roll, shape as _shape,
                                    split as _split, split_like as _split_like, split_sizes as _split_sizes,
                                    stack as _stack, unstack as _unstack_impl,
                                    squeeze as _squeeze, tile as _tile, tile_grad as _tile_grad_impl,
                                    transpose as _transpose, unsqueeze as _unsqueeze)
from .registry import apply, bounds_output, defop

# ---- reshape family --------------------------------------------------------------------------------------------


def _reshape_infer(m, shape):
    """Paddle's reshape target: 0 copies the input dim, one -1 is inferred from the element count."""
    return [(_reshape_target(m[0][0], shape), m[0][1])]


RESHAPE = defop("reshape", _reshape, infer=_reshape_infer,
                grad=lambda g, out, x, shape: reshape_as(g, x), grad_reads=("x.shape",))
RESHAPE.set(view=True)  # Paddle: a view of its input (shares memory)

RESHAPE_AS = defop("reshape_as", _reshape_as, inputs=("x", "y"), nondiff=(1,),
                   infer=lambda m: [(m[1][0], m[0][1])], grad=lambda g, out, x, y: (reshape_as(g, x), None))
RESHAPE_AS.set(view=True)  # Paddle: a view of its input (shares memory)


def reshape_as(x, y):
    """Reshapes `x` to `y`'s (runtime) shape."""
    if x.shape == y.shape and -1 not in y.shape:
        return x
    if -1 not in y.shape and 0 not in y.shape:  # (RESHAPE reads a 0 as "keep the input's dim")
        return apply(RESHAPE, (x,), {"shape": list(y.shape)})
    return apply(RESHAPE_AS, (x, y))


def reshape(x, shape, name=None):
    """Gives `x` a new shape with the same number of elements; 0 keeps a dim, -1 infers one.

    Example:
        >>> oar.reshape(oar.ones([2, 6]), [3, -1]).shape
        [3, 4]
    """
    if hasattr(shape, "dtype") or (isinstance(shape, (list, tuple)) and any(hasattr(s, "dtype") for s in shape)):
        from .dynamic_shape import reshape_dynamic
        return reshape_dynamic(x, shape)
    return apply(RESHAPE, (x,), {"shape": [int(s) for s in shape]})


def _flatten_infer(m, start_axis, stop_axis):
    shape, dtype = m[0]
    merged = shape[start_axis:stop_axis + 1]
    n = -1 if any(d < 0 for d in merged) else math.prod(merged)
    return [(list(shape[:start_axis]) + [n] + list(shape[stop_axis + 1:]), dtype)]


FLATTEN = defop("flatten", _flatten, infer=_flatten_infer,
                grad=lambda g, out, x, start_axis, stop_axis: reshape_as(g, x), grad_reads=("x.shape",))
FLATTEN.set(view=True)  # Paddle: a view of its input (shares memory)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merges dims `start_axis`..`stop_axis` into one.

    Example:
        >>> oar.flatten(oar.ones([2, 3, 4]), start_axis=1).shape
        [2, 12]
    """
    nd = x.ndim
    if nd == 0:
        return reshape(x, [1])
    s, e = start_axis % nd, stop_axis % nd
    if s > e:
        raise ValueError(f"flatten: start_axis {start_axis} is after stop_axis {stop_axis}")
    return apply(FLATTEN, (x,), {"start_axis": s, "stop_axis": e})


def _transpose_infer(m, perm):
    s = m[0][0]
    if sorted(perm) != list(range(len(s))):
        raise ValueError(f"transpose: perm {perm} is not a permutation of the {len(s)} dims of shape {s}")
    return [([s[p] for p in perm], m[0][1])]


TRANSPOSE = defop("transpose", _transpose, infer=_transpose_infer,
                  grad=lambda g, out, x, perm: transpose(g, sorted(range(len(perm)), key=list(perm).__getitem__)),
                  grad_reads=())
TRANSPOSE.set(view=True)  # Paddle: a view of its input (shares memory)


def transpose(x, perm, name=None):
    """Permutes the dims of `x`.

    Example:
        >>> oar.transpose(oar.ones([2, 3, 4]), perm=[2, 0, 1]).shape
        [4, 2, 3]
    """
    perm = [int(p) % max(x.ndim, 1) for p in perm]
    return apply(TRANSPOSE, (x,), {"perm": perm})


def moveaxis(x, source, destination, name=None):
    """Moves the axes `source` of `x` to the positions `destination` (other axes keep their order).

    Example:
        >>> oar.moveaxis(oar.ones([2, 3, 4]), 0, -1).shape
        [3, 4, 2]
        >>> oar.moveaxis(oar.ones([2, 3, 4]), [0, 1], [2, 0]).shape
        [3, 4, 2]
    """
    nd = x.ndim
    src = [int(a) % nd for a in ([source] if isinstance(source, int) else source)]
    dst = [int(a) % nd for a in ([destination] if isinstance(destination, int) else destination)]
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):  # numpy's rule: fill the destinations in increasing order
        perm.insert(d, s)
    return transpose(x, perm)


def _squeeze_axes(shape, axis):
    if axis is None:
        return [i for i, d in enumerate(shape) if d == 1]
    axes = [axis] if isinstance(axis, int) else list(axis)
    return [a % len(shape) for a in axes if shape[a % len(shape)] == 1] if shape else []


def squeeze(x, axis=None, name=None):
    """Removes dims of size 1 (those in `axis`, or all).

    Example:
        >>> oar.squeeze(oar.ones([1, 3, 1])).shape, oar.squeeze(oar.ones([1, 3, 1]), axis=0).shape
        ([3], [3, 1])
    """
    axes = _squeeze_axes(x.shape, axis)
    if not axes:
        return x
    shape = [d for i, d in enumerate(x.shape) if i not in axes]
    if shape.count(-1) > 1:  # a reshape target holds one unknown dim at most
        return apply(SQUEEZE, (x,), {"axis": axes})
    return reshape(x, shape)


def _squeeze_infer(m, axis):
    shape, dtype = m[0]
    drop = {a % len(shape) for a in axis} if shape else set()
    return [([d for i, d in enumerate(shape) if i not in drop], dtype)]


SQUEEZE = defop("squeeze", _squeeze, infer=_squeeze_infer,
                grad=lambda g, out, x, axis: reshape_as(g, x))
SQUEEZE.set(view=True)  # Paddle: a view of its input (shares memory)


def unsqueeze(x, axis, name=None):
    """Inserts dims of size 1 at the positions `axis` (of the output).

    Example:
        >>> oar.unsqueeze(oar.ones([3]), axis=[0, 2]).shape
        [1, 3, 1]
    """
    axes = [axis] if isinstance(axis, int) else [int(a) for a in axis]
    nd = x.ndim + len(axes)
    axes = sorted(a % nd for a in axes)
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    if shape.count(-1) > 1 or 0 in shape:  # reshape reads a 0 as "keep the input's dim": not for zero-size dims
        return apply(UNSQUEEZE, (x,), {"axis": axes})
    return reshape(x, shape)


def _unsqueeze_infer(m, axis):
    shape, dtype = m[0]
    axes = [axis] if isinstance(axis, int) else list(axis)
    n = len(shape) + len(axes)
    new = {a % n for a in axes}
    rest = iter(shape)
    return [([1 if i in new else next(rest) for i in range(n)], dtype)]


UNSQUEEZE = defop("unsqueeze", _unsqueeze, infer=_unsqueeze_infer,
                  grad=lambda g, out, x, axis: reshape_as(g, x))
UNSQUEEZE.set(view=True)  # Paddle: a view of its input (shares memory)


def _broadcast_to_infer(m, shape):
    xs, dtype = m[0]
    lead = len(shape) - len(xs)
    return [([xs[i - lead] if s == -1 else s for i, s in enumerate(shape)], dtype)]


BROADCAST_TO = defop("broadcast_to", _broadcast_to, infer=_broadcast_to_infer,
                     grad=lambda g, out, x, shape: unbroadcast(g, x))
# a view, but the next op materialises it; -1 keeps x's dim, as in the kernel
bounds_output(BROADCAST_TO, elements=lambda x, shape: math.prod(abs(int(
    x.shape[i - (len(shape) - x.ndim)] if s == -1 and 0 <= i - (len(shape) - x.ndim) < x.ndim else s))
    for i, s in enumerate(shape)))


def broadcast_to(x, shape, name=None):
    """Broadcasts `x` to `shape` (-1 keeps a dim).

    Example:
        >>> oar.broadcast_to(oar.to_tensor([1.0, 2.0]), [3, 2]).shape
        [3, 2]
    """
    if isinstance(shape, (list, tuple)) and any(hasattr(s, "block") for s in shape):  # static Variables
        from .dynamic_shape import broadcast_dynamic  # entries known only when the program runs
        return broadcast_dynamic(x, shape)
    return apply(BROADCAST_TO, (x,), {"shape": to_int_list(shape)})


expand = broadcast_to


def tile(x, repeat_times, name=None):
    """Repeats `x` along each dim.

    Example:
        >>> oar.tile(oar.to_tensor([1, 2]), [2, 2]).numpy().tolist()
        [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    reps = to_int_list(repeat_times)
    return apply(TILE, (x,), {"repeat_times": reps})


def _tile_grad(g, out, x, repeat_times):
    reps = [1] * (g.ndim - len(repeat_times)) + list(repeat_times)
    xs = [1] * (g.ndim - x.ndim) + list(x.shape)
    if xs.count(-1) > 1:  # the [rep, dim, ...] target below would hold several unknown dims
        return apply(TILE_GRAD, (g, x), {"repeat_times": reps})
    inter = []
    for r, d in zip(reps, xs):
        inter += [r, d]
    gg = reshape(g, inter)
    from .math import sum as _sum
    gg = _sum(gg, axis=list(range(0, 2 * len(reps), 2)))
    return reshape_as(gg, x)


def _tile_infer(m, repeat_times):
    shape, dtype = m[0]
    n = max(len(shape), len(repeat_times))
    shape = [1] * (n - len(shape)) + list(shape)
    reps = [1] * (n - len(repeat_times)) + list(repeat_times)
    return [([0 if r == 0 else -1 if d < 0 else d * r for d, r in zip(shape, reps)], dtype)]


TILE = defop("tile", _tile, infer=_tile_infer, grad=_tile_grad)
# np.tile repeats one dim at a time: a 0 in a later dim does not shrink the earlier steps, so count each repeat >= 1
bounds_output(TILE, elements=lambda x, repeat_times:
              max(x.size, 1) * math.prod(max(abs(int(r)), 1) for r in repeat_times))
TILE_GRAD = defop("tile_grad", _tile_grad_impl, inputs=("grad", "x"), nondiff=(1,),
                  infer=lambda m, repeat_times: [(m[1][0], m[0][1])],
                  grad=lambda gg, out, g, x, repeat_times: (tile(gg, repeat_times), None))


# ---- joining and splitting -------------------------------------------------------------------------------------

def _concat_infer(m, axis):
    shapes = [s for s, _ in m]
    out = list(shapes[0])
    out[axis] = -1 if any(s[axis] == -1 for s in shapes) else int(sum(s[axis] for s in shapes))
    for s in shapes[1:]:
        if len(s) != len(out) or any(a != b and a != -1 and b != -1 for i, (a, b) in enumerate(zip(s, shapes[0]))
                                     if i != axis):
            raise ValueError(f"concat: shapes {shapes} differ outside axis {axis}")
    return [(out, m[0][1])]


def _concat_grad(g, out, *xs, axis):
    if all(-1 not in x.shape for x in xs):
        return tuple(split(g, [x.shape[axis] for x in xs], axis=axis))
    return tuple(apply(SPLIT_LIKE, (g,) + tuple(xs), {"axis": axis}))


CONCAT = defop("concat", _concat, inputs=("x",), variadic=True,
               infer=_concat_infer, grad=_concat_grad, grad_reads=("x[0].shape", "x[1:].shape"))
SPLIT_LIKE = defop("split_like", _split_like,
                   inputs=("x",), outputs=("out*",), variadic=True,
                   infer=lambda m, axis: [(list(s), m[0][1]) for s, _ in m[1:]],
                   differentiable=False, onnx_reason="training-only (splits a gradient)")


def concat(x, axis=0, name=None):
    """Joins tensors along an existing `axis`.

    Example:
        >>> oar.concat([oar.ones([2, 3]), oar.zeros([1, 3])], axis=0).shape
        [3, 3]
    """
    xs = _one_dtype(x, "concat")
    return apply(CONCAT, tuple(xs), {"axis": int(axis) % max(xs[0].ndim, 1)})


def _one_dtype(x, what):
    """The tensors of `x` (a list or tuple, not empty) in one dtype: Paddle refuses mixed dtypes; under
    `auto_cast` its cast rules decide (promoted here)."""
    if hasattr(x, "dtype"):  # a tensor is not a list of tensors (Paddle raises too)
        raise ValueError(f"{what}: x must be a list or tuple of tensors, got a tensor")
    xs = list(x)
    if not xs:
        raise ValueError(f"{what} needs at least one tensor, got an empty list")
    t = xs[0].dtype
    for i, o in enumerate(xs[1:], 1):
        if o.dtype != t:
            if mode().amp is None:
                raise ValueError(f"{what}: tensor {i} has dtype {o.dtype.name}, tensor 0 has {t.name}; all "
                                 "must have one dtype (cast them first)")
            t = D.promote(t, o.dtype)
    return [cast(v, t) for v in xs]


def stack(x, axis=0, name=None):
    """Joins tensors of the same shape along a new `axis`.

    Example:
        >>> oar.stack([oar.ones([2]), oar.zeros([2])], axis=1).numpy().tolist()
        [[1.0, 0.0], [1.0, 0.0]]
    """
    xs = _one_dtype(x, "stack")
    nd = xs[0].ndim + 1
    if not -nd <= int(axis) < nd:
        raise ValueError(f"stack: axis {axis} is out of range [{-nd}, {nd}) for tensors of rank {nd - 1}")
    return apply(STACK, tuple(xs), {"axis": int(axis) % nd})


def _stack_infer(m, axis):
    shapes = [list(s) for s, _ in m]
    out = list(shapes[0])
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != len(out) or any(a != b and a != -1 and b != -1 for a, b in zip(s, out)):
            raise ValueError(f"stack: tensor {i} has shape {s}, tensor 0 has {shapes[0]}; all must have one shape")
        out = [b if a == -1 else a for a, b in zip(out, s)]
    return [(out[:axis] + [len(shapes)] + out[axis:], m[0][1])]


def _unstack_infer(m, axis, num):
    s = list(m[0][0])
    if s[axis] not in (-1, num):
        raise ValueError(f"unstack: dim {axis} of shape {s} is not {num}")
    return [(s[:axis] + s[axis + 1:], m[0][1])] * num


STACK = defop("stack", _stack, inputs=("x",), variadic=True, infer=_stack_infer, grad_reads=(),
              grad=lambda g, out, *xs, axis: tuple(apply(UNSTACK, (g,), {"axis": axis, "num": len(xs)})))
UNSTACK = defop("unstack", _unstack_impl, outputs=("out*",), infer=_unstack_infer,
                grad=lambda g, out, x, axis, num: stack(
                    [gi if gi is not None else zeros_like(o) for gi, o in zip(g, out)], axis=axis))


def _split_infer(m, sections, axis, num=0):
    s = m[0][0]
    return [([n if i == axis else d for i, d in enumerate(s)], m[0][1]) for n in (sections or [-1] * num)]


SPLIT = defop("split", _split, outputs=("out*",), infer=_split_infer,
              grad=lambda g, out, x, sections, axis, num=0: concat(
                  [gi if gi is not None else zeros_like(o) for gi, o in zip(g, out)], axis=axis))


def split(x, num_or_sections, axis=0, name=None):
    """Splits into `num_or_sections` equal parts or parts of the given sizes (one may be -1).

    On a dim unknown when a static program is built, the sizes are worked out when it runs.

    Example:
        >>> [p.shape for p in oar.split(oar.ones([6, 2]), [1, -1, 2])]
        [[1, 2], [3, 2], [2, 2]]
        >>> [p.shape for p in oar.split(oar.ones([6, 2]), 3)]
        [[2, 2], [2, 2], [2, 2]]
    """
    axis = int(axis) % x.ndim
    n = x.shape[axis]
    if isinstance(num_or_sections, (int, np.integer)):
        num = int(num_or_sections)
        if num <= 0:
            raise ValueError(f"split: the number of parts must be positive, got {num}")
        if n == -1:  # attrs {sections: [], num}: the kernel divides the run-time dim
            return list(apply(SPLIT, (x,), {"sections": [], "axis": axis, "num": num}))
        sections = _split_sizes(n, [], num, axis)
    elif any(hasattr(s, "block") for s in num_or_sections):  # static tensors among the sizes
        return _split_by_slices(x, list(num_or_sections), axis)
    else:
        sections = [int(s) for s in num_or_sections]
        if sections.count(-1) > 1 or any(s < -1 for s in sections):
            raise ValueError(f"split: sections {sections} may hold one -1 and otherwise sizes >= 0")
        if n != -1:  # on an unknown dim the kernel resolves a -1 section and checks the sum
            sections = _split_sizes(n, sections, 0, axis)
    return list(apply(SPLIT, (x,), {"sections": sections, "axis": axis}))


def _split_by_slices(x, sections, axis):
    """`split` with sizes computed in a static program: one slice per part, its bounds built with ops.
    The parts after a -1 are placed from the end of the dim."""
    sections = [s if hasattr(s, "block") else int(s) for s in sections]
    minus = [i for i, s in enumerate(sections) if isinstance(s, int) and s == -1]
    if len(minus) > 1:
        raise ValueError(f"split: sections may hold one -1, got {len(minus)}")
    j = minus[0] if minus else len(sections)
    lead = [["s", None, None, None]] * axis
    parts, start = [], 0
    for i in range(j):
        stop = start + sections[i]
        parts.append((start, stop))
        start = stop
    if minus:
        tail, stop = [], shape(x)[axis]
        for s in reversed(sections[j + 1:]):
            tail.append((stop - s, stop))
            stop = tail[-1][0]
        parts += [(start, stop)] + tail[::-1]
    out = []
    for a, b in parts:
        spec, bounds = ["s", a, b, None], []
        for k in (1, 2):
            if hasattr(spec[k], "block"):
                bounds.append(spec[k])
                spec[0], spec[k] = "S", "t"
        out.append(subscript.getitem(x, lead + [spec], bounds))
    return out


def chunk(x, chunks, axis=0, name=None):
    """Splits into `chunks` equal parts.

    Example:
        >>> [c.shape for c in oar.chunk(oar.arange(6), 3)]
        [[2], [2], [2]]
    """
    return split(x, chunks, axis)


def unbind(input, axis=0):
    """Splits along `axis` into tensors with that dim removed.

    Example:
        >>> [p.numpy().tolist() for p in oar.unbind(oar.to_tensor([[1, 2], [3, 4]]), axis=1)]
        [[1, 3], [2, 4]]
    """
    axis = axis % input.ndim
    if input.shape[axis] == -1:
        raise ValueError(f"unbind: dim {axis} of shape {input.shape} is unknown when the program is built, so the "
                         "number of outputs is too; use split with sections or index the tensor")
    if mode().static:
        return list(apply(UNSTACK, (input,), {"axis": axis, "num": input.shape[axis]}))
    # eager: subscripts, so the pieces are views of `input` as in Paddle
    return [subscript.tensor_getitem(input, (slice(None),) * axis + (i,)) for i in range(input.shape[axis])]


# ---- shape queries ---------------------------------------------------------------------------------------------

SHAPE = defop("shape", _shape, infer=lambda m: [([len(m[0][0])], D.int64)],
              amp="skip", differentiable=False)
NUMEL = defop("numel", _numel, infer=lambda m: [([], D.int64)], amp="skip",
              differentiable=False)


def shape(input):
    """The shape of `input` as a 1-D int64 tensor (known at run time in static mode).

    Example:
        >>> oar.shape(oar.ones([2, 3])).numpy().tolist()
        [2, 3]
    """
    return apply(SHAPE, (input,))


def numel(x, name=None):
    """The number of elements as a 0-D int64 tensor.

    Example:
        >>> oar.numel(oar.ones([2, 3])).item()
        6
    """
    return apply(NUMEL, (x,))


# ---- flip / roll / pad / repeat_interleave -------------------------------------------------------------------

def _axes(axis, ndim):
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    return [int(a) % max(ndim, 1) for a in axes]


FLIP = defop("flip", _flip, grad=lambda g, out, x, axis: apply(FLIP, (g,),
                                                                                                  {"axis": axis}),
             infer=infer_same)


def flip(x, axis, name=None):
    """Reverses the order of elements along `axis` (an int or a list).

    Example:
        >>> oar.flip(oar.to_tensor([[1, 2], [3, 4]]), axis=[1]).numpy().tolist()
        [[2, 1], [4, 3]]
    """
    return apply(FLIP, (x,), {"axis": _axes(axis, x.ndim)})


ROLL = defop("roll", _roll, grad=lambda g, out, x, shifts, axis: apply(ROLL, (g,), {
    "shifts": [-s for s in shifts], "axis": axis}), infer=infer_same)


def roll(x, shifts, axis=None, name=None):
    """Shifts elements circularly by `shifts` along `axis` (of the flattened tensor when None).

    Example:
        >>> oar.roll(oar.to_tensor([1, 2, 3, 4]), 1).numpy().tolist()
        [4, 1, 2, 3]
        >>> oar.roll(oar.to_tensor([[1, 2], [3, 4]]), -1, axis=1).numpy().tolist()
        [[2, 1], [4, 3]]
    """
    shifts = to_int_list(shifts, "shifts")
    if axis is not None:
        axis = _axes(axis, x.ndim)
        if len(axis) != len(shifts):
            raise ValueError(f"roll: {len(shifts)} shifts given for {len(axis)} axes")
    return apply(ROLL, (x,), {"shifts": shifts, "axis": axis})


def _pad_infer(m, pad_width, mode, value):
    return [([d + a + b if d != -1 else -1 for d, (a, b) in zip(m[0][0], pad_width)], m[0][1])]


PAD = defop("pad", _pad, infer=_pad_infer,
            grad=lambda g, out, x, pad_width, mode, value: apply(PAD_GRAD, (x, g), {"pad_width": pad_width,
                                                                                      "mode": mode}))
bounds_output(PAD)
PAD_GRAD = defop("pad_grad", _pad_grad_impl, inputs=("x", "grad"), nondiff=(0,),
                 infer=lambda m, pad_width, mode: [(m[0][0], m[1][1])],
                 grad=lambda gg, out, x, g, pad_width, mode: (None, apply(PAD, (gg,), {
                     "pad_width": pad_width, "mode": mode, "value": 0.0})))


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", pad_from_left_axis=True, name=None):
    """Pads `x`; Paddle's layout of `pad`: with 2*ndim entries (constant mode), [before, after] pairs from the
    first dim (from the last when `pad_from_left_axis` is False, as PyTorch); otherwise pairs from the LAST spatial
    dim backwards ([left, right, top, bottom, ...] for NCHW; from the last dim for a tensor of rank < 3).

    Modes: 'constant' (with `value`), 'reflect', 'replicate', 'circular'.

    Example:
        >>> oar.pad(oar.ones([1, 1, 2, 2]), [1, 1, 0, 0]).shape
        [1, 1, 2, 4]
    """
    p = to_int_list(pad, "pad")
    nd = x.ndim
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {sorted(_PAD_MODES)}, got {mode!r}")
    if len(p) % 2:
        raise ValueError(f"pad: needs an even number of entries, got {p}")
    if len(p) == 2 * nd and mode == "constant" and pad_from_left_axis:
        width = [[p[2 * i], p[2 * i + 1]] for i in range(nd)]
    else:
        k = len(p) // 2
        channel_last = data_format.endswith("C") and data_format != "NC"
        spatial = list(range(1, nd - 1)) if channel_last else list(range(2, nd))
        if len(p) == 2 * nd or nd < 3 or mode == "constant" and k > len(spatial):
            spatial = list(range(nd))  # Paddle 3: constant padding goes on from the last dim backwards
        if k > len(spatial) or nd < 3 and k > nd:
            raise ValueError(f"pad: {len(p)} entries do not fit a tensor of shape {x.shape} ({data_format})")
        width = [[0, 0] for _ in range(nd)]
        for j in range(k):  # pairs go from the last spatial dim backwards
            width[spatial[len(spatial) - 1 - j]] = [p[2 * j], p[2 * j + 1]]
    return apply(PAD, (x,), {"pad_width": width, "mode": mode, "value": float(value)})


REPEAT_INDEX = defop("repeat_index", _repeat_index, inputs=("x", "repeats"), nondiff=(0, 1),
                     infer=lambda m, axis: [([-1], D.int64)],
                     differentiable=False, onnx_reason="data-dependent output size")
bounds_output(REPEAT_INDEX, elements=_repeat_count)


def repeat_interleave(x, repeats, axis=None, name=None):
    """Repeats each element (each slice along `axis`; of the flattened tensor when None) `repeats` times;
    `repeats` is an int or a 1-D tensor with one count per slice. Built on `gather`, which gives the gradient.

    Example:
        >>> oar.repeat_interleave(oar.to_tensor([1, 2]), 2).numpy()
        array([1, 1, 2, 2])
    """
    from .indexing import gather
    if axis is None:
        x, axis = flatten(x), 0
    axis = int(axis) % x.ndim
    if isinstance(repeats, (int, np.integer)) and x.shape[axis] != -1:  # the index is a known constant
        index = const(_arange_repeated(x.shape[axis], int(repeats)), D.int64)
    else:  # computed when the program runs (repeats given as a tensor, or an unknown dim)
        index = apply(REPEAT_INDEX, (x, operand(repeats)), {"axis": axis})
    return gather(x, index, axis)


def unstack(x, axis=0, num=None):
    """Splits along `axis` into tensors with that dim removed, as one op. Unlike `unbind` the parts are copies (as
    Paddle: writing into one leaves `x` alone). `num` must match the dim; on a dim unknown when a static program is
    built it sets the number of parts (checked when the program runs).

    Example:
        >>> [p.shape for p in oar.unstack(oar.ones([2, 3]))]
        [[3], [3]]
    """
    if not -x.ndim <= int(axis) < x.ndim:
        raise ValueError(f"unstack: axis {axis} is out of range [{-x.ndim}, {x.ndim}) for a tensor of rank {x.ndim}")
    axis = int(axis) % x.ndim
    n = x.shape[axis]
    if n == -1 and num is None:
        raise ValueError(f"unstack: dim {axis} of shape {x.shape} is unknown when the program is built; give num")
    if num is not None and n >= 0 and num != n:
        raise ValueError(f"unstack: num={num} but the input has {n} entries along axis {axis} (shape {x.shape})")
    n = n if n >= 0 else int(num)
    return list(apply(UNSTACK, (x,), {"axis": axis, "num": n})) if n else []


def rot90(x, k=1, axes=(0, 1), name=None):
    """Rotates by 90 degrees `k` times in the plane of `axes`.

    Example:
        >>> oar.rot90(oar.to_tensor([[1, 2], [3, 4]])).numpy().tolist()
        [[2, 4], [1, 3]]
    """
    k %= 4
    a, b = axes
    if k == 0:
        return x
    if k == 2:
        return flip(x, [a, b])
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(flip(x, b), perm) if k == 1 else flip(transpose(x, perm), b)


from . import manipulation_onnx  # noqa: E402,F401  (the family's ONNX lowerings)

__all__ = public_api(globals(), internal=('reshape_as',))
