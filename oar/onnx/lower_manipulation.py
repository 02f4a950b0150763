"""ONNX lowerings of shape manipulation and indexing (ops of `oar/ops/manipulation.py` and `indexing.py`)."""
import numpy as np

from .lower_math import register

_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def _x(ctx, op):
    return ctx.inp(op, "x")


def _rank(ctx, op, slot="x"):
    return len(ctx.in_meta(op, slot)[0])


def _reshape(ctx, op):
    # Paddle's 0 (copy the dim) and -1 (infer one dim) mean the same in ONNX Reshape (allowzero=0)
    ctx.node("Reshape", [_x(ctx, op), ctx.ints(op.attrs["shape"])], [ctx.out(op)])


def _reshape_as(ctx, op):
    ctx.node("Reshape", [_x(ctx, op), ctx.node("Shape", [ctx.inp(op, "y")])], [ctx.out(op)])


def _flatten(ctx, op):
    shape = ctx.in_meta(op, "x")[0]
    start, stop = op.attrs["start_axis"], op.attrs["stop_axis"]
    x = _x(ctx, op)
    tail = shape[stop + 1:]
    if -1 not in tail:  # dims before the merged range are copied (0), the tail is known
        target = ctx.ints([0] * start + [-1] + tail)
    else:
        s = ctx.node("Shape", [x])
        parts = [ctx.node("Slice", [s, ctx.ints([0]), ctx.ints([start])])] if start else []
        parts += [ctx.ints([-1]), ctx.node("Slice", [s, ctx.ints([stop + 1]), ctx.ints([_BIG])])]
        target = ctx.node("Concat", parts, axis=0)
    ctx.node("Reshape", [x, target], [ctx.out(op)])


def _unsqueeze(ctx, op):
    axis = op.attrs["axis"]
    ctx.node("Unsqueeze", [_x(ctx, op), ctx.ints([axis] if isinstance(axis, int) else axis)], [ctx.out(op)])


def _broadcast_to(ctx, op):
    # -1 keeps the input's dim; Expand broadcasts both ways, so a 1 there does the same
    ctx.node("Expand", [_x(ctx, op), ctx.ints([1 if s == -1 else s for s in op.attrs["shape"]])], [ctx.out(op)])


def _tile(ctx, op):
    reps = list(op.attrs["repeat_times"])
    x, nd = _x(ctx, op), _rank(ctx, op)
    if len(reps) > nd:
        x = ctx.node("Unsqueeze", [x, ctx.ints(list(range(len(reps) - nd)))])
    reps = [1] * (nd - len(reps)) + reps
    ctx.node("Tile", [x, ctx.ints(reps)], [ctx.out(op)])


def _split(ctx, op):
    outs, x = ctx.outs(op), _x(ctx, op)
    sections, axis = list(op.attrs["sections"]), int(op.attrs["axis"])
    if op.attrs.get("num"):  # equal parts of a dim unknown at export: Split without sizes divides evenly
        ctx.node("Split", [x], outs, axis=axis)
        return
    if -1 in sections:  # the -1 part is the run-time dim minus the others
        i = sections.index(-1)
        dim = ctx.node("Gather", [ctx.node("Shape", [x]), ctx.ints([axis])], axis=0)
        rest = ctx.node("Sub", [dim, ctx.ints([sum(sections) + 1])])
        parts = ([ctx.ints(sections[:i])] if i else []) + [rest] + \
            ([ctx.ints(sections[i + 1:])] if i + 1 < len(sections) else [])
        split = ctx.node("Concat", parts, axis=0) if len(parts) > 1 else rest
    else:
        split = ctx.ints(sections)
    ctx.node("Split", [x, split], outs, axis=axis)


def _flip(ctx, op):
    axis = op.attrs["axis"]
    axes = [axis] if isinstance(axis, int) else list(axis)
    n = len(axes)
    ctx.node("Slice", [_x(ctx, op), ctx.ints([-1] * n), ctx.ints([_SMALL] * n), ctx.ints(axes), ctx.ints([-1] * n)],
             [ctx.out(op)])


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


def _pad(ctx, op):
    a = op.attrs
    if a["mode"] not in _PAD_MODES:
        raise ctx.block_op_error(op, f"pad mode {a['mode']!r} has no ONNX lowering at opset 13")
    pw = [tuple(p) for p in a["pad_width"]]
    pads = ctx.ints([p[0] for p in pw] + [p[1] for p in pw])
    inputs = [_x(ctx, op), pads]
    if a["mode"] == "constant":
        inputs.append(ctx.const(a["value"] or 0, ctx.in_meta(op, "x")[1]))
    ctx.node("Pad", inputs, [ctx.out(op)], mode=_PAD_MODES[a["mode"]])


def _getitem(ctx, op):
    """Basic indexing: ints, slices, None, Ellipsis, and int tensors (one 1-D tensor at most) by Gather."""
    spec = op.attrs["spec"]
    names = op.inputs["x"]
    x, tensors = ctx.name(names[0]), names[1:]
    nd = len(ctx.meta(names[0])[0])
    n_used = sum(1 for s in spec if s[0] in "isSt")
    starts, ends, axes, steps, gathers, news = [], [], [], [], [], []
    d = o = t = 0
    n_vector = 0
    for s in spec:
        k = s[0]
        if k == "e":
            d += nd - n_used
            o += nd - n_used
        elif k == "n":
            news.append(o)
            o += 1
        elif k in "sS":
            start, stop, step = s[1:]
            if k == "S":  # bounds given by tensors: their names stand in the lists (joined below)
                bounds = []
                for b in (start, stop, step):
                    if b == "t":
                        name = ctx.name(tensors[t])
                        if ctx.meta(tensors[t])[1].name != "int64":
                            name = ctx.cast(name, "int64")
                        b = ctx.node("Reshape", [name, ctx.ints([1])])
                        t += 1
                    bounds.append(b)
                start, stop, step = bounds
                if isinstance(step, str) and (start is None or stop is None):
                    raise ctx.block_op_error(op, "a slice with a tensor step and an open bound has no ONNX lowering")
            step = 1 if step is None else step
            if (start, stop, step) != (None, None, 1):
                starts.append(start if start is not None else (0 if step > 0 else _BIG))
                ends.append(stop if stop is not None else (_BIG if step > 0 else _SMALL))
                axes.append(d)
                steps.append(step)
            d += 1
            o += 1
        elif k == "i":
            gathers.append((d, ctx.const(np.asarray(s[1], np.int64))))
            d += 1
        else:
            shape, dt = ctx.meta(tensors[t])
            if dt.kind not in "iu" or len(shape) > 1:
                raise ctx.block_op_error(op, f"indexing by a {dt.name} tensor of shape {shape} (only int scalars "
                                             "and one 1-D int tensor) has no ONNX lowering")
            if len(shape) == 1:
                n_vector += 1
                o += 1
            gathers.append((d, ctx.name(tensors[t])))
            t += 1
            d += 1
    if n_vector > 1:
        raise ctx.block_op_error(op, "indexing by several 1-D tensors (advanced indexing) has no ONNX lowering")
    if axes:
        x = ctx.node("Slice", [x, _ints_or_names(ctx, starts), _ints_or_names(ctx, ends), ctx.ints(axes),
                               _ints_or_names(ctx, steps)])
    for axis, idx in sorted(gathers, key=lambda g: -g[0]):  # highest axis first: lower axes keep their numbers
        x = ctx.node("Gather", [x, idx], axis=axis)
    if news:
        x = ctx.node("Unsqueeze", [x, ctx.ints(news)])
    ctx.node("Identity", [x], [ctx.out(op)])


def _ints_or_names(ctx, values):
    """A 1-D int64 input from ints and names of 1-element int64 tensors."""
    if all(isinstance(v, (int, np.integer)) for v in values):
        return ctx.ints(values)
    return ctx.node("Concat", [ctx.ints([v]) if isinstance(v, (int, np.integer)) else v for v in values], axis=0)


def _one_hot(ctx, op):
    depth = ctx.const(np.asarray(op.attrs["num_classes"], np.int64))
    ctx.node("OneHot", [_x(ctx, op), depth, ctx.const(np.asarray([0, 1], np.float32))], [ctx.out(op)], axis=-1)


TABLE = {
    "reshape": _reshape, "reshape_as": _reshape_as, "flatten": _flatten, "unsqueeze": _unsqueeze,
    "squeeze": lambda ctx, op: ctx.node("Squeeze", [_x(ctx, op), ctx.ints(list(op.attrs["axis"]))], [ctx.out(op)]),
    "transpose": lambda ctx, op: ctx.unary(op, "Transpose", perm=list(op.attrs["perm"])),
    "broadcast_to": _broadcast_to, "tile": _tile, "split": _split, "flip": _flip, "pad": _pad,
    "concat": lambda ctx, op: ctx.node("Concat", ctx.ins(op, "x"), [ctx.out(op)], axis=int(op.attrs["axis"])),
    "shape": lambda ctx, op: ctx.unary(op, "Shape"),
    "numel": lambda ctx, op: ctx.unary(op, "Size"),
    "getitem": _getitem,
    "gather": lambda ctx, op: ctx.node("Gather", [_x(ctx, op), ctx.inp(op, "index")], [ctx.out(op)],
                                       axis=int(op.attrs["axis"])),
    "gather_nd": lambda ctx, op: ctx.node("GatherND", [_x(ctx, op), ctx.inp(op, "index")], [ctx.out(op)]),
    "take_along_axis": lambda ctx, op: ctx.node("GatherElements", [ctx.inp(op, "arr"), ctx.inp(op, "indices")],
                                                [ctx.out(op)], axis=int(op.attrs["axis"])),
    "one_hot": _one_hot,
}

register(TABLE)
