"""The one op registry: every op is an `OpDef` (name, inputs, outputs, kernel, infer_meta, gradient rule).

`apply(op, inputs, attrs)` is the single dispatch point. In eager mode it runs the kernel on the inputs'
arrays at once and, when an input needs a gradient, records a `Node` on the tape. In static mode (inside
`program_guard`, or while `to_static` converts a function) it appends an `Operator` to the current Block
instead; the static builder, the executor, static backward and the exporters all read the same `OpDef`.

Gradient rules are written with other ops, so the same rule builds eager higher-order graphs and static
backward programs.
"""
import numpy as np

from ..core import dtype as D
from ..core.state import mode, probe_rng

REGISTRY = {}


AMP_CATEGORIES = ("white", "black", "gray", "skip")
# why an op may have no infer rule: probing its kernel (`infer_meta`) is then the rule
PROBE_REASONS = {
    "data-dependent": "output shape depends on input values, known only by running the kernel",
    "random": "a random kernel; probing draws from a throwaway generator",
    "probed": "output shape follows from the input shapes alone: probing the kernel on zeros gives it",
}


class OpDef:
    """Everything about one op, in one place: its kernel, shape rule, gradient, ONNX lowering and the facts the
    IR tools (printer, serializer, executor, passes, AMP, budget) need. Set them as `defop` keywords.

    Attributes:
        name: registry key and IR op type.
        impl: kernel, ``impl(*arrays, **attrs) -> array | tuple of arrays``.
        inputs / outputs: slot names; ``variadic=True`` makes all inputs one list slot ``inputs[0]``, and an
            output name ending in ``*`` makes the outputs one list slot whose length ``infer`` decides.
        infer: ``infer(metas, **attrs) -> [(shape, dtype), ...]`` with -1 for unknown dims; None probes the kernel.
        infer_reason: why `infer` is None (a key of `PROBE_REASONS`: "data-dependent", "random", "probed").
        grad: ``grad(gout, out, *inputs, **attrs) -> grads`` built from other ops (gout/out are tuples for
            multi-output ops); None means not differentiable.
        differentiable: True with a grad rule; False declared for ops without one (comparisons, integer ops,
            optimizer updates); None (undeclared) only while a `*_grad` kernel waits for its second-order rule.
        nondiff: indices of inputs that never receive gradients (indices, labels).
        nondiff_out: indices of outputs that carry no gradient (argmax indices, masks).
        lower: for ops with sub-blocks, ``lower(executor, op) -> callable`` used by the executor.
        random: the kernel draws from the global generator.
        check: ``check(*tensors, **attrs)`` run before the eager kernel (clear errors for bad arguments).
        amp: the op's `oar.amp.auto_cast` category: "white" (computed in float16), "black" (float32), "gray"
            (the inputs' dtype) or "skip" (inputs never cast: casts, control flow, updates); default "gray",
            "skip" for ops with `lower` or `random`.
        side_effect: removing the op changes more than its outputs (print, assert, collectives, array writes):
            dead-code elimination and the executor's pruning keep it.
        block_attrs: names of the attrs holding sub-block indices (an int, or a list of ints).
        name_attrs: names of the attrs holding variable names of those sub-blocks (checked when a file loads,
            renamed with the blocks).
        onnx: the ONNX lowering ``onnx(ctx, op)`` (`oar.onnx.context.Context`), or None; written beside the op.
        onnx_reason: why `onnx` is None ("training-only", "host callback", ...). Two reasons are implied:
            `GRAD_KERNEL_REASON` for gradient kernels (names ending in ``_grad``, ``_grad_input``, ``_grad_filter``)
            and `RANDOM_REASON` for random ops, unless the op declares a lowering or another reason.
        verify: ``verify(inputs, outputs, attrs) -> problem | None``: extra checks of a loaded op's fields.
        out_elements: for creation/expansion ops, ``out_elements(*arrays, **attrs) -> int`` (or True: from
            `infer`): a loaded program checks the output size against its budget (`bounds_output`).
        view: the eager output shares memory with the first input where NumPy gives a view (Paddle's view ops:
            reshape, squeeze, transpose, basic subscripts, ...): both then share one version counter, so writes
            in place through either are seen by the other (`docs/numerics.md`, "Views"). The output of any
            other op never aliases an input (`apply` copies it if the kernel returned a view).
    """

    __slots__ = ("name", "impl", "inputs", "outputs", "infer", "grad", "nondiff", "nondiff_out", "variadic",
                 "lower", "random", "check", "multi_out", "infer_reason", "differentiable", "amp", "side_effect",
                 "block_attrs", "name_attrs", "onnx", "onnx_reason", "verify", "out_elements", "view")

    def __init__(self, name, impl, inputs, outputs, infer, grad, nondiff, nondiff_out, variadic, lower, random,
                 check):
        self.name, self.impl, self.inputs, self.outputs = name, impl, inputs, outputs
        self.infer, self.grad, self.nondiff, self.nondiff_out = infer, grad, nondiff, nondiff_out
        self.variadic, self.lower, self.random, self.check = variadic, lower, random, check
        self.multi_out = len(outputs) > 1 or outputs[0].endswith("*")  # outputs come as a tuple
        self.infer_reason = None
        self.differentiable = True if grad is not None else None
        self.amp = "skip" if lower is not None or random else "gray"
        self.side_effect = False
        self.block_attrs = self.name_attrs = ()
        self.onnx = self.onnx_reason = self.verify = self.out_elements = None
        self.view = False

    def __repr__(self):
        return f"<op {self.name}>"

    def set(self, **fields):
        """Sets typed fields after `defop` (ops made by factories, lowerings kept in a sibling module); checks
        them as `defop` does. Returns the op."""
        for k, v in fields.items():
            if k not in _SETTABLE:
                raise TypeError(f"op {self.name!r}: unknown field {k!r}; settable: {sorted(_SETTABLE)}")
            setattr(self, k, tuple(v) if k in ("block_attrs", "name_attrs") else v)
        if fields.get("onnx") is not None and "onnx_reason" not in fields:
            self.onnx_reason = None  # a lowering replaces an implied reason
        _check_fields(self)
        _SELECTIONS.clear()
        return self


GRAD_KERNEL_REASON = "training-only (gradient kernel)"
RANDOM_REASON = "random (draws from oar's generator; ONNX random ops would not reproduce its stream)"
_GRAD_SUFFIXES = ("_grad", "_grad_input", "_grad_filter")
_SETTABLE = frozenset(("infer_reason", "differentiable", "amp", "side_effect", "block_attrs", "name_attrs", "onnx",
                       "onnx_reason", "verify", "out_elements", "view"))


def _check_fields(op):
    if op.amp not in AMP_CATEGORIES:
        raise ValueError(f"op {op.name!r}: amp={op.amp!r} is not one of {AMP_CATEGORIES}")
    if op.infer_reason is not None and op.infer_reason not in PROBE_REASONS:
        raise ValueError(f"op {op.name!r}: infer_reason={op.infer_reason!r} is not one of {sorted(PROBE_REASONS)}")
    if op.differentiable and op.grad is None:
        raise ValueError(f"op {op.name!r}: differentiable=True needs a grad rule")
    if op.differentiable is False and op.grad is not None:
        raise ValueError(f"op {op.name!r}: differentiable=False but a grad rule is given")
    if op.onnx is not None and op.onnx_reason is not None:
        raise ValueError(f"op {op.name!r}: an ONNX lowering and an onnx_reason exclude each other")


def defop(name, impl, inputs=("x",), outputs=("out",), infer=None, grad=None, nondiff=(), nondiff_out=(),
          variadic=False, lower=None, random=False, check=None, **fields):
    """Registers an op and returns its `OpDef`. See `OpDef` for the meaning of each field; `fields` are its typed
    fields (``amp``, ``side_effect``, ``block_attrs``, ``name_attrs``, ``onnx``, ``onnx_reason``, ``differentiable``,
    ``infer_reason``, ``verify``, ``out_elements``)."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is registered twice")
    op = OpDef(name, impl, tuple(inputs), tuple(outputs), infer, grad, frozenset(nondiff), frozenset(nondiff_out),
               variadic, lower, random, check)
    if name.endswith(_GRAD_SUFFIXES):
        op.onnx_reason = GRAD_KERNEL_REASON
    elif random:
        op.onnx_reason = RANDOM_REASON
    op.set(**fields)
    REGISTRY[name] = op
    _SELECTIONS.clear()
    return op


_SELECTIONS = {}  # (field, value) -> names, emptied whenever an op is registered or changes a field


def ops_where(field, value):
    """The names of the registered ops whose typed `field` is `value` (e.g. ``ops_where("amp", "white")``), cached
    until an op is registered or changed.

    Example:
        >>> 'matmul' in oar.ops.registry.ops_where('amp', 'white')
        True
    """
    key = (field, value)
    names = _SELECTIONS.get(key)
    if names is None:
        names = _SELECTIONS[key] = frozenset(n for n, d in list(REGISTRY.items()) if getattr(d, field) == value)
    return names


def lowerings(table):
    """Sets the ONNX lowering of several ops at once: ``{op name: lower(ctx, op)}`` (a table at the end of a family
    file, for ops made by a factory)."""
    for name, fn in table.items():
        REGISTRY[name].set(onnx=fn)


def bounds_output(*ops, elements=True):
    """Marks creation/expansion ops, whose output can be far larger than their inputs: a program loaded from a
    file checks their output size against its budget before the kernel runs (`oar.graph.budget`).

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
        op.out_elements = elements


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
        return STATIC.append_op(op, inputs, attrs)
    if m.hook is not None:  # oar.jit.trace records / oar.lazy() defers this thread's eager ops (`Mode.hook`)
        return m.hook(op, inputs, attrs)
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
        for o in outs:
            a = o._data
            if a.base is not None or any([a is t._data for t in inputs]):
                _alias(op, inputs, o)
    else:
        outs = None
        res = wrap(out)
        a = res._data
        if a.base is not None or any([a is t._data for t in inputs]):
            _alias(op, inputs, res)
    if m.grad_enabled and op.grad is not None:
        for t in inputs:
            if not t.stop_gradient:
                _record(op, inputs, outs if outs is not None else (res,), attrs)
                break
    return outs if outs is not None else res


def _alias(op, inputs, out):
    """An output whose array may share memory with an input's: a view op's output shares the input's version
    counter (marked shared, so in-place writes go through the common buffer); any other op's output is copied."""
    a = out._data
    for t in inputs:
        if np.may_share_memory(a, t._data):
            if op.view and t is inputs[0]:
                vc = t._vc
                vc[1] = True
                out._vc = vc
            else:
                out._data = a.copy()
            return


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


class StaticHooks:
    """What the layers below `oar.static` need from it, set when it is imported: `append_op(op, inputs, attrs)`
    builds an op call in static mode; `assign_into(src, dst)` writes `src` into the persistable variable of `dst`
    (a Variable, or a Tensor bound into the program); `gradients(targets, inputs, target_gradients,
    no_grad_set)` appends gradient ops (`oar.grad` on Variables, e.g. inside a `to_static` function)."""

    def _not_loaded(self, *args):
        raise RuntimeError("static mode is on but oar.static is not imported (import oar.static)")

    append_op = assign_into = gradients = _not_loaded


STATIC = StaticHooks()


Tensor = _wrap = None  # the eager Tensor class, set by oar.eager.tensor (which sits above the ops)


def _bind_tensor(cls):
    global Tensor, _wrap
    Tensor, _wrap = cls, cls._wrap
