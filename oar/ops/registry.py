"""The one op registry: every op is an `OpDef` (name, inputs, outputs, kernel, infer_meta, gradient rule).

`apply(op, inputs, attrs)` is the single dispatch point. In eager mode it runs the kernel on the inputs'
arrays at once and, when an input needs a gradient, records a `Node` on the tape. In static mode (inside
`program_guard`, or while `to_static` converts a function) it appends an `Operator` to the current Block
instead; the static builder, the executor, static backward and the exporters all read the same `OpDef`.

Gradient rules are written with other ops, so the same rule builds eager higher-order graphs and static
backward programs.
"""
import numpy as np

from ..framework import dtype as D
from ..framework.state import mode, probe_rng

REGISTRY = {}


class OpDef:
    """Everything about one op.

    Attributes:
        name: registry key and IR op type.
        impl: kernel, ``impl(*arrays, **attrs) -> array | tuple of arrays``.
        inputs / outputs: slot names; ``variadic=True`` makes all inputs one list slot ``inputs[0]``, and an
            output name ending in ``*`` makes the outputs one list slot whose length ``infer`` decides.
        infer: ``infer(metas, **attrs) -> [(shape, dtype), ...]`` with -1 for unknown dims; None probes the kernel.
        grad: ``grad(gout, out, *inputs, **attrs) -> grads`` built from other ops (gout/out are tuples for
            multi-output ops); None means not differentiable.
        nondiff: indices of inputs that never receive gradients (indices, labels).
        nondiff_out: indices of outputs that carry no gradient (argmax indices, masks).
        lower: for ops with sub-blocks, ``lower(executor, op) -> callable`` used by the executor.
        random: the kernel draws from the global generator.
    """

    __slots__ = ("name", "impl", "inputs", "outputs", "infer", "grad", "nondiff", "nondiff_out", "variadic",
                 "lower", "random", "check", "extra", "multi_out")

    def __init__(self, name, impl, inputs, outputs, infer, grad, nondiff, nondiff_out, variadic, lower, random,
                 check):
        self.name, self.impl, self.inputs, self.outputs = name, impl, inputs, outputs
        self.infer, self.grad, self.nondiff, self.nondiff_out = infer, grad, nondiff, nondiff_out
        self.variadic, self.lower, self.random, self.check = variadic, lower, random, check
        self.extra = {}  # per-exporter hooks (e.g. 'onnx') added by their modules
        self.multi_out = len(outputs) > 1 or outputs[0].endswith("*")  # outputs come as a tuple

    def __repr__(self):
        return f"<op {self.name}>"


def defop(name, impl, inputs=("x",), outputs=("out",), infer=None, grad=None, nondiff=(), nondiff_out=(),
          variadic=False, lower=None, random=False, check=None):
    """Registers an op and returns its `OpDef`. See `OpDef` for the meaning of each field."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is registered twice")
    op = OpDef(name, impl, tuple(inputs), tuple(outputs), infer, grad, frozenset(nondiff), frozenset(nondiff_out),
               variadic, lower, random, check)
    REGISTRY[name] = op
    return op


def bounds_output(*ops, elements=True):
    """Marks creation/expansion ops, whose output can be far larger than their inputs: a program loaded from a
    file checks their output size against its budget before the kernel runs (`oar.static.budget`).

    Args:
        ops: the `OpDef`s.
        elements: ``elements(*arrays, **attrs) -> int``, the output's element count; by default the op's `infer`
            rule applied to the inputs' real shapes.

    Example (beside the op's definition in its family file; registering ops is not for a doctest)::

        bounds_output(FULL, ARANGE)            # sizes from their infer rules: the `shape`, `end` attributes
        bounds_output(TILE, elements=lambda x, repeat_times: x.size * prod(repeat_times))
    """
    for op in ops:
        if elements is True and op.infer is None:
            raise ValueError(f"bounds_output: op {op.name!r} has no infer rule; give elements=")
        op.extra["out_elements"] = elements


def get_op(name):
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown op {name!r}") from None


class Node:
    """One recorded op on the eager tape: enough to call its gradient rule later."""

    __slots__ = ("op", "inputs", "outputs", "attrs", "versions")

    def __init__(self, op, inputs, outputs, attrs):
        self.op, self.inputs, self.outputs, self.attrs = op, inputs, outputs, attrs
        self.versions = tuple([t._version for t in inputs])


_EMPTY = {}
# NumPy dtypes whose tensors carry gradients (bfloat16 from ml_dtypes has NumPy kind 'V', so kinds do not do)
_DIFFERENTIABLE = frozenset(d.np for d in D.ALL if d.kind in "fc" and d.np is not None)


def apply(op, inputs, attrs=_EMPTY):
    """Runs `op` on `inputs` (Tensors, or Variables in static mode) with keyword `attrs`."""
    m = mode()  # this thread's modes
    if m.amp is not None:  # oar.amp.auto_cast: casts the inputs by the op's list, then comes back here
        return m.amp(op, inputs, attrs)
    if m.static:
        return _static_apply(op, inputs, attrs)
    if op.check is not None:
        op.check(*inputs, **attrs)
    try:
        out = op.impl(*[t._data for t in inputs], **attrs)
    except Exception as e:
        if getattr(e, "_oar_op_error", False):  # already names the failing op and the user's line (programs)
            raise
        raise op_error(op, inputs, attrs, e) from None
    wrap = _wrap
    if type(out) is tuple or type(out) is list:
        outs = tuple([wrap(a) for a in out])
    else:
        outs = None
        res = wrap(out)
    if m.grad_enabled and op.grad is not None:
        for t in inputs:
            if not t.stop_gradient:
                _record(op, inputs, outs if outs is not None else (res,), attrs)
                break
    return outs if outs is not None else res


def _record(op, inputs, outs, attrs):
    node = Node(op, inputs, outs, attrs)
    nd = op.nondiff_out
    for i, t in enumerate(outs):
        if i not in nd and t._data.dtype in _DIFFERENTIABLE:
            t.stop_gradient = False
            t._node = node


def op_error(op, inputs, attrs, exc):
    """A clear error naming the op, its inputs' dtypes and shapes, and the kernel's complaint."""
    parts = []
    names = op.inputs if not op.variadic else [f"{op.inputs[0]}[{i}]" for i in range(len(inputs))]
    for n, t in zip(names, inputs):
        d = getattr(t, "_data", None)
        parts.append(f"{n}: {d.dtype}{list(d.shape)}" if d is not None else f"{n}: {t!r}")
    parts += [f"{k}={v!r}" for k, v in attrs.items() if not callable(v)]
    msg = f"{op.name}({', '.join(parts)}) failed: {exc}"
    kind = type(exc) if isinstance(exc, (ValueError, TypeError, IndexError, RuntimeError)) else ValueError
    try:
        return kind(msg)
    except Exception:
        return ValueError(msg)


def infer_meta(op, metas, attrs):
    """Output (shape, dtype) pairs for input metas; uses `op.infer` or probes the kernel on zero arrays.

    A probe runs the kernel twice with every unknown (-1) dim set to 2, then 3 (and with bool inputs all False,
    then all True); output dims that differ are unknown. Random kernels draw from a throwaway generator, so
    probing never moves the user's seed.
    """
    if op.infer is not None:
        return op.infer(metas, **attrs)
    fills = [(2, False)]
    if any(d < 0 for s, _ in metas for d in s):
        fills.append((3, False))
    if any(D.convert_dtype(t).kind == "b" for _, t in metas):
        fills.append((2, True))  # a bool mask's True count decides some output dims: those become -1
    with probe_rng():  # random kernels draw from a throwaway generator of this thread
        runs = []
        for fill, value in fills:
            arrays = [np.full([fill if d < 0 else d for d in s], value if D.convert_dtype(t).kind == "b" else 0,
                              D.np_dtype(t)) for s, t in metas]
            with np.errstate(all="ignore"):
                out = op.impl(*arrays, **attrs)
            runs.append(out if isinstance(out, (tuple, list)) else (out,))
    result = []
    for i, a in enumerate(runs[0]):
        a = np.asarray(a)
        shape = list(a.shape)
        for other in runs[1:]:
            b = np.asarray(other[i])
            shape = [x if x == y else -1 for x, y in zip(shape, b.shape)] if b.ndim == a.ndim else [-1] * a.ndim
        result.append((shape, D.convert_dtype(a.dtype)))
    return result


def _static_apply(op, inputs, attrs):
    from ..static.builder import append_op
    return append_op(op, inputs, attrs)


_Tensor = _wrap = None  # set by oar.tensor.tensor (avoids an import cycle on the hot path)


def _bind_tensor(cls):
    global _Tensor, _wrap
    _Tensor, _wrap = cls, cls._wrap
