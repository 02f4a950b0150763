"""ONNX lowerings of the ops of `oar/ops/manipulation.py` (reshape, transpose, concat, split, pad, ...), kept in
this sibling module because manipulation.py is at the file-size budget; manipulation.py imports it at its end, so
the lowerings register with the ops. Builders: `oar.ops.onnx_rules`."""
import numpy as np

from .onnx_rules import same
from .registry import lowerings

_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def _rank(ctx, op, slot="x"):
    return len(ctx.in_meta(op, slot)[0])


def _reshape(ctx, op):
    # Paddle's 0 (copy the dim) and -1 (infer one dim) mean the same in ONNX Reshape (allowzero=0)
    ctx.node("Reshape", [ctx.inp(op, "x"), ctx.ints(op.attrs["shape"])], [ctx.out(op)])


def _reshape_as(ctx, op):
    ctx.node("Reshape", [ctx.inp(op, "x"), ctx.node("Shape", [ctx.inp(op, "y")])], [ctx.out(op)])


def _flatten(ctx, op):
    shape = ctx.in_meta(op, "x")[0]
    start, stop = op.attrs["start_axis"], op.attrs["stop_axis"]
    x = ctx.inp(op, "x")
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
    ctx.node("Unsqueeze", [ctx.inp(op, "x"), ctx.ints([axis] if isinstance(axis, int) else axis)], [ctx.out(op)])


def _broadcast_to(ctx, op):
    # -1 keeps the input's dim; Expand broadcasts both ways, so a 1 there does the same
    ctx.node("Expand", [ctx.inp(op, "x"), ctx.ints([1 if s == -1 else s for s in op.attrs["shape"]])], [ctx.out(op)])


def _tile(ctx, op):
    reps = list(op.attrs["repeat_times"])
    x, nd = ctx.inp(op, "x"), _rank(ctx, op)
    if len(reps) > nd:
        x = ctx.node("Unsqueeze", [x, ctx.ints(list(range(len(reps) - nd)))])
    reps = [1] * (nd - len(reps)) + reps
    ctx.node("Tile", [x, ctx.ints(reps)], [ctx.out(op)])


def _split(ctx, op):
    outs, x = ctx.outs(op), ctx.inp(op, "x")
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
    starts, ends, steps = ctx.ints([-1] * n), ctx.ints([_SMALL] * n), ctx.ints([-1] * n)
    ctx.node("Slice", [ctx.inp(op, "x"), starts, ends, ctx.ints(axes), steps], [ctx.out(op)])


def _roll(ctx, op):
    """Per axis: the last ``k = shift mod n`` entries, then the first ``n - k`` (n the run-time size of the axis),
    as two Slices and a Concat; axis None rolls the flattened tensor by the sum of the shifts (NumPy's rule)."""
    x, shifts, axes = ctx.inp(op, "x"), list(op.attrs["shifts"]), op.attrs["axis"]
    flat = axes is None
    if flat:
        shape = ctx.node("Shape", [x])
        x = ctx.node("Reshape", [x, ctx.ints([-1])])
        shifts, axes = [sum(shifts)], [0]
    for shift, axis in zip(shifts, axes):
        n = ctx.node("Gather", [ctx.node("Shape", [x]), ctx.ints([axis])], axis=0)
        cut = ctx.node("Sub", [n, ctx.node("Mod", [ctx.ints([shift]), n])])  # n - k, in [1, n]
        tail = ctx.node("Slice", [x, cut, ctx.ints([_BIG]), ctx.ints([axis])])
        head = ctx.node("Slice", [x, ctx.ints([0]), cut, ctx.ints([axis])])
        x = ctx.node("Concat", [tail, head], axis=axis)
    if flat:
        x = ctx.node("Reshape", [x, shape])
    ctx.node("Identity", [x], [ctx.out(op)])


def _stack(ctx, op):  # ONNX has no Stack: each input gains the axis, then one Concat
    axis = ctx.ints([int(op.attrs["axis"])])
    ctx.node("Concat", [ctx.node("Unsqueeze", [x, axis]) for x in ctx.ins(op, "x")], [ctx.out(op)],
             axis=int(op.attrs["axis"]))


def _unstack(ctx, op):  # Split into parts of 1 (a one-part Split copies), then each loses the axis
    outs, axis = ctx.outs(op), int(op.attrs["axis"])
    parts = ctx.node("Split", [ctx.inp(op, "x")], n_out=len(outs), axis=axis)
    for p, o in zip(parts if len(outs) > 1 else [parts], outs):
        ctx.node("Squeeze", [p, ctx.ints([axis])], [o])


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


def _pad(ctx, op):
    a = op.attrs
    if a["mode"] not in _PAD_MODES:
        raise ctx.block_op_error(op, f"pad mode {a['mode']!r} has no ONNX lowering at opset 13")
    pw = [tuple(p) for p in a["pad_width"]]
    pads = ctx.ints([p[0] for p in pw] + [p[1] for p in pw])
    inputs = [ctx.inp(op, "x"), pads]
    if a["mode"] == "constant":
        inputs.append(ctx.const(a["value"] or 0, ctx.in_meta(op, "x")[1]))
    ctx.node("Pad", inputs, [ctx.out(op)], mode=_PAD_MODES[a["mode"]])


lowerings({
    "reshape": _reshape, "reshape_as": _reshape_as, "flatten": _flatten, "unsqueeze": _unsqueeze,
    "squeeze": lambda ctx, op: ctx.node("Squeeze", [ctx.inp(op, "x"), ctx.ints(list(op.attrs["axis"]))],
                                        [ctx.out(op)]),
    "transpose": lambda ctx, op: ctx.unary(op, "Transpose", perm=list(op.attrs["perm"])),
    "broadcast_to": _broadcast_to, "tile": _tile, "split": _split, "flip": _flip, "roll": _roll, "pad": _pad,
    "concat": lambda ctx, op: ctx.node("Concat", ctx.ins(op, "x"), [ctx.out(op)], axis=int(op.attrs["axis"])),
    "stack": _stack, "unstack": _unstack,
    "shape": same("Shape"), "numel": same("Size"),
})
