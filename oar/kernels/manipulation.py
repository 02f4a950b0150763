"""Shape and layout kernels: reshape, transpose, squeeze, broadcast, tile, concat/split, stack/unstack, flip, roll,
pad, repeat."""
import itertools
import math


from ..core import dtype as D
from .backend import array_module


def reshape_target(ins, shape):
    """Paddle's reshape target for an input of shape `ins`: 0 copies the input dim, one -1 is inferred from the
    element count; a clear ValueError when the counts cannot match."""
    out = [ins[i] if s == 0 else s for i, s in enumerate(shape)]
    if out.count(-1) == 1 and -1 not in ins:
        known, total = math.prod(d for d in out if d != -1), math.prod(ins)
        if known == 0 or total % known:
            raise ValueError(f"reshape: cannot reshape a tensor of shape {list(ins)} into {shape}")
        out[out.index(-1)] = total // known
    elif -1 not in out and -1 not in ins and math.prod(out) != math.prod(ins):
        raise ValueError(f"reshape: cannot reshape a tensor of shape {list(ins)} ({math.prod(ins)} elements) "
                         f"into {shape} ({math.prod(out)} elements)")
    return out


def reshape(x, shape):
    try:
        return x.reshape([x.shape[i] if s == 0 else s for i, s in enumerate(shape)])
    except ValueError:  # explain in the user's terms (checked only on failure: reshape is on the hot path)
        reshape_target(x.shape, shape)
        raise


def reshape_as(x, y):
    return x.reshape(y.shape)


def flatten(x, start_axis, stop_axis):
    return x.reshape(x.shape[:start_axis] + (-1,) + x.shape[stop_axis + 1:])


def transpose(x, perm):
    xp = array_module(x, perm)
    return xp.transpose(x, perm)


def squeeze(x, axis):
    xp = array_module(x, axis)
    return xp.squeeze(x, tuple(axis))


def unsqueeze(x, axis):
    xp = array_module(x, axis)
    return xp.expand_dims(x, axis)


def broadcast_to(x, shape):
    xp = array_module(x, shape)
    shape = [x.shape[i - (len(shape) - x.ndim)] if s == -1 else s for i, s in enumerate(shape)]
    return xp.broadcast_to(x, shape)


def tile(x, repeat_times):
    xp = array_module(x, repeat_times)
    return xp.tile(x, repeat_times)


def tile_grad(g, x, repeat_times):
    """Sums the tiles of `g` back onto the shape of `x`."""
    inter = []
    for r, d in zip(repeat_times, (1,) * (g.ndim - x.ndim) + x.shape):
        inter += [r, d]
    return g.reshape(inter).sum(axis=tuple(range(0, len(inter), 2))).reshape(x.shape)


def concat(*xs, axis):
    xp = array_module(*xs)
    return xp.concatenate(xs, axis=axis)


def stack(*xs, axis):
    xp = array_module(*xs)
    return xp.stack(xs, axis=axis)


def unstack(x, axis, num):
    """The `num` slices of `x` along `axis`, that dim removed (checks the run-time dim: unknown when built)."""
    if x.shape[axis] != num:
        raise ValueError(f"unstack: dim {axis} of shape {list(x.shape)} is {x.shape[axis]}, the program was built "
                         f"for {num} parts")
    lead = (slice(None),) * axis
    return tuple(x[lead + (i,)] for i in range(num))


def split_like(g, *xs, axis):
    """Splits `g` along `axis` into parts as long as each of `xs` there."""
    xp = array_module(g, *xs)
    return tuple(xp.split(g, list(itertools.accumulate([x.shape[axis] for x in xs]))[:-1], axis=axis))


def split_sizes(n, sections, num, axis):
    """The part sizes along a dim of size `n`: `num` equal parts, or `sections` with at most one -1."""
    if num:
        if n % num:
            raise ValueError(f"split: dim {axis} of size {n} does not divide into {num} equal parts")
        return [n // num] * num
    if -1 in sections:
        rest = n - (sum(sections) + 1)
        if rest < 0:
            raise ValueError(f"split: sections {sections} need more than the {n} elements of dim {axis}")
        sections = list(sections)
        sections[sections.index(-1)] = rest
    elif sum(sections) != n:
        raise ValueError(f"split: sections {sections} do not add up to dim {axis} of size {n}")
    return sections


def split(x, sections, axis, num=0):
    xp = array_module(x, sections, axis)
    if num or -1 in sections or sum(sections) != x.shape[axis]:  # sizes set at run time (unknown dims at build)
        sections = split_sizes(x.shape[axis], sections, num, axis)
    return tuple(xp.split(x, list(itertools.accumulate(sections))[:-1], axis=axis))


def shape(x):
    xp = array_module(x)
    return xp.asarray(x.shape, dtype=xp.int64)


def numel(x):
    xp = array_module(x)
    return xp.asarray(x.size, dtype=xp.int64)


def flip(x, axis):
    xp = array_module(x, axis)
    return xp.flip(x, axis).copy()


def roll(x, shifts, axis):
    xp = array_module(x, shifts, axis)
    if axis is None:
        return xp.roll(x.reshape(-1), shifts).reshape(x.shape)
    return xp.roll(x, shifts, axis)


PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(x, pad_width, mode, value):
    xp = array_module(x, pad_width, mode, value)
    if mode == "constant":
        return xp.pad(x, pad_width, mode="constant", constant_values=value)
    return xp.pad(x, pad_width, mode=PAD_MODES[mode])


def pad_grad(x, g, pad_width, mode):
    """Adds each output position's gradient to the input position it was copied from."""
    xp = array_module(x, g, pad_width, mode)
    src = xp.arange(x.size).reshape(x.shape)
    src = xp.pad(src, pad_width, mode="constant", constant_values=-1) if mode == "constant" else \
        xp.pad(src, pad_width, mode=PAD_MODES[mode])
    keep = src.reshape(-1) >= 0
    idx, w = src.reshape(-1)[keep], g.reshape(-1)[keep]
    if xp.iscomplexobj(w):  # bincount takes real weights only
        gx = xp.bincount(idx, w.real, x.size) + 1j * xp.bincount(idx, w.imag, x.size)
    else:
        gx = xp.bincount(idx, weights=w, minlength=x.size)
    return gx.astype(g.dtype, copy=False).reshape(x.shape)


def repeat_index(x, repeats, axis):
    """The gather index that repeats each slice of `x` along `axis` (`repeats`: a count or one per slice)."""
    return arange_repeated(x.shape[axis], repeats.reshape(-1) if repeats.ndim else int(repeats))


def arange_repeated(n, repeats):
    """``[0, .., 0, 1, .., 1, ...]``: each of ``range(n)`` `repeats` times."""
    xp = array_module(n, repeats)
    return xp.repeat(xp.arange(n), repeats)


def repeat_count(x, repeats, axis):
    """The length of `repeat_index`'s result (an upper bound for the output budget)."""
    xp = array_module(x, repeats, axis)
    return int(xp.sum(repeats, dtype=xp.float64)) if repeats.ndim else x.shape[axis] * abs(int(repeats))


def reshape_dynamic(x, shape, static_shape):
    """`reshape` to a target given as an int array (0 copies the input dim)."""
    target = [x.shape[i] if s == 0 else int(s) for i, s in enumerate(shape.tolist())]
    return x.reshape(target)


def view_dtype(x, dtype):
    """The bytes of `x` read as `dtype` (the last dim rescaled by the item sizes)."""
    return x.view(D.np_dtype(dtype))
