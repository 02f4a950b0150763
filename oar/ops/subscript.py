"""Tensor subscripts: ``x[index]`` and ``x[index] = value`` as the `getitem` / `setitem` ops (with gradients).

An index is encoded as a JSON-friendly spec (so static programs can store it); tensor indices are op inputs.
  ["i", k] int   ["s", start, stop, step] slice   ["n"] None   ["e"] Ellipsis   ["t"] next tensor input
  ["S", start, stop, step] a slice whose bounds marked "t" are the next tensor inputs (``x[:n]``, n computed
  in a static program)
"""
from types import SimpleNamespace

import numpy as np

from ..core import dtype as D
from .common import operand
from .math import cast, unbroadcast, zeros_like
from ..kernels.indexing import getitem as _getitem, getitem_grad as _getitem_grad_impl, setitem as _setitem
from .registry import apply, defop, infer_meta


def encode_index(index):
    """Splits a Python index into (spec, tensor_inputs)."""
    if type(index) is not tuple and not isinstance(index, tuple):
        index = (index,)
    spec = []  # ints, slices of ints and None, None and Ellipsis (``x[:, t]``): the general path's spec, faster
    for it in index:
        ti = type(it)
        if ti is int:
            spec.append(["i", it])
        elif ti is slice and (type(a := it.start) is int or a is None) and (type(b := it.stop) is int or b is None) \
                and (type(c := it.step) is int or c is None):
            spec.append(["s", a, b, c])
        elif it is None:
            spec.append(["n"])
        elif it is Ellipsis:
            spec.append(["e"])
        else:
            return _encode_index(index)
    return spec, []


def _encode_index(index):
    """`encode_index` of any index tuple (tensors, arrays, lists, bools, NumPy integers, tensor slice bounds)."""
    from ..core.tensor_methods import TensorMethods
    spec, tensors = [], []
    for it in index:
        if it is None:
            spec.append(["n"])
        elif it is Ellipsis:
            spec.append(["e"])
        elif isinstance(it, slice):
            parts = [it.start, it.stop, it.step]
            if any(isinstance(p, TensorMethods) for p in parts):
                parts = [int(p) if isinstance(p, TensorMethods) and not hasattr(p, "block") else p for p in parts]
                for p in parts:
                    if isinstance(p, TensorMethods):
                        if p.dtype.kind not in "iu" or p.ndim > 1 or p.shape not in ([], [1]):
                            raise TypeError(f"slice bounds must be integers, got a {p.dtype.name} tensor of "
                                            f"shape {p.shape}")
                        tensors.append(p)
            spec.append(["S" if any(isinstance(p, TensorMethods) for p in parts) else "s"] +
                        [None if p is None else "t" if isinstance(p, TensorMethods) else int(p) for p in parts])
        elif isinstance(it, (bool, np.bool_)):
            tensors.append(operand(np.asarray(it)))
            spec.append(["t"])
        elif isinstance(it, (int, np.integer)):
            spec.append(["i", int(it)])
        elif isinstance(it, TensorMethods):
            tensors.append(it)
            spec.append(["t"])
        elif isinstance(it, (list, np.ndarray)):
            a = np.asarray(it)
            tensors.append(operand(a if a.dtype.kind in "biu" else a.astype(np.int64)))
            spec.append(["t"])
        else:
            raise TypeError(f"unsupported index {it!r} of type {type(it).__name__}")
    return spec, tensors


def _getitem_grad(g, out, x, *idx, spec):
    return (apply(GETITEM_GRAD, (x, g) + idx, {"spec": spec}),) + (None,) * len(idx)


def _getitem_infer(m, spec):
    """Probes the kernel; the dims that slices with tensor bounds address are unknown (-1), and so are unknown dims
    sliced with bounds of 2 or more (a probe size of 2 or 3 would cut ``3:5`` to nothing); an int index on an
    unknown dim is probed as 0 (``x[2]`` on a probe of size 2 would be out of range)."""
    if not any(e[0] == "S" for e in spec) and -1 not in m[0][0]:
        return infer_meta(_GETITEM_PROBE, m, {"spec": spec})
    x_shape, metas, new_spec = list(m[0][0]), [], []
    tensor_metas, d = iter(m[1:]), 0
    for e in spec:
        if e[0] == "e":
            d += len(x_shape) - _dims_used(spec, m[1:])
        elif e[0] == "t":
            t = next(tensor_metas)
            metas.append(t)
            d += len(t[0]) if D.convert_dtype(t[1]).kind == "b" else 1
        elif e[0] != "n":
            if e[0] == "S":  # probe a full slice of the dim made unknown instead
                for _ in range(e.count("t")):
                    next(tensor_metas)
                x_shape[d], e = -1, ["s", None, None, None]
            elif e[0] == "s" and d < len(x_shape) and x_shape[d] == -1 and any(
                    b is not None and abs(b) >= 2 for b in e[1:3]):  # bounds the probe sizes (2, 3) would cut
                e = ["s", None, None, None]
            elif e[0] == "i" and d < len(x_shape) and x_shape[d] == -1:  # x[2] drops the dim whatever its size;
                e = ["i", 0]                                             # the probe sizes (2, 3) may not hold 2
            d += 1
        new_spec.append(e)
    return infer_meta(_GETITEM_PROBE, [(x_shape, m[0][1])] + metas, {"spec": new_spec})


def _dims_used(spec, tensor_metas):
    """How many dims of x the entries of `spec` address (what the ellipsis leaves): ints, slices, tensors."""
    it, n = iter(tensor_metas), 0
    for e in spec:
        if e[0] == "t":
            t = next(it)
            n += len(t[0]) if D.convert_dtype(t[1]).kind == "b" else 1
        elif e[0] in "isS":
            for _ in range(e.count("t")):
                next(it)
            n += 1
    return n


_GETITEM_PROBE = SimpleNamespace(impl=_getitem, infer=None)  # what infer_meta needs to probe the kernel
GETITEM = defop("getitem", _getitem, inputs=("x",), variadic=True, grad=_getitem_grad, infer=_getitem_infer,
                grad_reads=("x[0].shape", "x[1:]"))
GETITEM.set(view=True)  # Paddle: a view of its input (shares memory)
GETITEM_GRAD = defop("getitem_grad", _getitem_grad_impl, inputs=("x",), variadic=True,
                     infer=lambda m, spec: [(m[0][0], m[1][1])],
                     grad=lambda gg, out, x, g, *idx, spec: (None, getitem(gg, spec, idx)) + (None,) * len(idx))


def getitem(x, spec, tensors):
    return apply(GETITEM, (x,) + tuple(tensors), {"spec": spec})


def _setitem_grad(g, out, x, v, *idx, spec):
    gx = apply(SETITEM, (g, zeros_like(v) if v.ndim else cast(zeros_like(v), g.dtype)) + tuple(idx), {"spec": spec})
    gv = getitem(g, spec, idx)
    if gv.shape != v.shape:
        from .math import sum as _sum
        extra = gv.ndim - v.ndim
        if extra > 0:
            gv = _sum(gv, axis=list(range(extra)))
        gv = unbroadcast(gv, v)
    return (gx, gv) + (None,) * len(idx)


SETITEM = defop("setitem", _setitem, inputs=("x",), variadic=True, infer=lambda m, spec: [m[0]],
                grad=_setitem_grad, onnx_reason="not lowered yet")


def setitem(x, index, value):
    """Out-of-place ``x[index] = value``; returns the new tensor."""
    spec, tensors = encode_index(index)
    v = operand(value, x)
    if v.dtype is not x.dtype:
        v = cast(v, x.dtype)
    return apply(SETITEM, (x, v) + tuple(tensors), {"spec": spec})


def tensor_getitem(self, index):
    spec, tensors = encode_index(index)
    return getitem(self, spec, tensors)


def tensor_setitem(self, index, value):
    out = setitem(self, index, value)
    self._inplace(out)


# ---- ONNX -------------------------------------------------------------------------------------------------------

_ONNX_BIG, _ONNX_SMALL = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def _onnx_getitem(ctx, op):
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
                starts.append(start if start is not None else (0 if step > 0 else _ONNX_BIG))
                ends.append(stop if stop is not None else (_ONNX_BIG if step > 0 else _ONNX_SMALL))
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
        x = ctx.node("Slice", [x, _onnx_ints_or_names(ctx, starts), _onnx_ints_or_names(ctx, ends), ctx.ints(axes),
                               _onnx_ints_or_names(ctx, steps)])
    for axis, idx in sorted(gathers, key=lambda g: -g[0]):  # highest axis first: lower axes keep their numbers
        x = ctx.node("Gather", [x, idx], axis=axis)
    if news:
        x = ctx.node("Unsqueeze", [x, ctx.ints(news)])
    ctx.node("Identity", [x], [ctx.out(op)])


def _onnx_ints_or_names(ctx, values):
    """A 1-D int64 input from ints and names of 1-element int64 tensors."""
    if all(isinstance(v, (int, np.integer)) for v in values):
        return ctx.ints(values)
    return ctx.node("Concat", [ctx.ints([v]) if isinstance(v, (int, np.integer)) else v for v in values], axis=0)


GETITEM.set(onnx=_onnx_getitem)
