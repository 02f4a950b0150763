"""The one op registry: every op is an `OpDef` (name, inputs, outputs, kernel, infer_meta, gradient rule).

`apply(op, inputs, attrs)` is the single dispatch point. In eager mode it runs the kernel on the inputs'
arrays at once and, when an input needs a gradient, records a `Node` on the tape. In static mode (inside
`program_guard`, or while `to_static` converts a function) it appends an `Operator` to the current Block
instead; the static builder, the executor, static backward and the exporters all read the same `OpDef`.

Gradient rules are written with other ops, so the same rule builds eager higher-order graphs and static
backward programs.
"""
import threading
from weakref import ref as _weakref

import numpy as np

from ..core import dtype as D
from ..core.info import FLAGS
from ..core.state import mode, probe_rng
from ..kernels import threads as _threads
from ..kernels.backend import array_module
from ..core.devices import RUNTIME as _DEVICE

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
        grad_reads: what the eager tape keeps for the gradient rule (PyTorch's saved tensors): None keeps every
            input and output; otherwise a tuple of ``"<slot>"`` (the input's value), ``"<slot>.shape"`` (its shape,
            dtype and stop_gradient only: the rule gets an allocation-free stand-in of zeros) and ``"out"``; the
            rule gets None for inputs not named (it may not touch them). Variadic ops name ``"<slot>[0]"`` (the
            first input) and ``"<slot>[1:]"`` (the others); ``"out[i]"`` keeps output i of a multi-output op
            (the others become stand-ins of their shape).
        scratch: the kernel scratch cache the op's kernel reuses buffers from (`oar.kernels.conv.SCRATCH`), or None:
            a compiled plan running the op holds a lease on it, so the buffers are kept while a plan (or a layer)
            that uses them lives and released with the last one (`docs/memory.md`).
    """

    __slots__ = ("name", "impl", "inputs", "outputs", "infer", "grad", "nondiff", "nondiff_out", "variadic",
                 "lower", "random", "check", "multi_out", "infer_reason", "differentiable", "amp", "side_effect",
                 "block_attrs", "name_attrs", "onnx", "onnx_reason", "verify", "out_elements", "view", "grad_reads",
                 "saved_inputs", "saves_out", "scratch")

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
        self.onnx = self.onnx_reason = self.verify = self.out_elements = self.grad_reads = None
        self.view = False
        self.scratch = None
        # derived from grad_reads by `_check_fields`: a mode per input (None: all kept); True / False / a bool
        # per output
        self.saved_inputs, self.saves_out = None, True

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
                       "onnx_reason", "verify", "out_elements", "view", "grad_reads",
                       "scratch"))


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
    reads = op.grad_reads
    if reads is not None:
        modes = _saved_modes(op, reads)
        # every input read: kept as by default; none read: nothing to look at per call
        op.saved_inputs = (None if all(m == 1 for m in modes) else False if not any(modes)
                           else _SHAPES if all(m == 2 for m in modes) else modes)
        kept = [r for r in reads if r.startswith("out[")]
        if "out" in reads:
            op.saves_out = True
        elif kept:
            idx = {int(r[4:-1]) for r in kept}
            op.saves_out = tuple(i in idx for i in range(len(op.outputs)))
        else:
            op.saves_out = False


_MODES = {"": 1, ".shape": 2}  # what `Node` keeps of an input: 0 nothing, 1 the tensor, 2 a shape stand-in
_SHAPES = "shapes"  # `OpDef.saved_inputs` when the rule reads the shape of every input (add, reshape, ...)
_NO_VERSIONS = ()  # `Node.versions` of a node that saved no tensor: no version to check


def _saved_modes(op, reads):
    """`grad_reads` as one mode per input slot (variadic: ``(first, others)``)."""
    slots = [op.inputs[0] + "[0]", op.inputs[0] + "[1:]"] if op.variadic else list(op.inputs)
    modes = [0] * len(slots)
    for r in reads:
        if r == "out" or (r.startswith("out[") and op.multi_out and r[4:-1].isdigit()
                          and int(r[4:-1]) < len(op.outputs) and not op.outputs[-1].endswith("*")):
            continue
        name, _, rest = r.partition(".")
        if name not in slots or ("." + rest if rest else "") not in _MODES:
            raise ValueError(f"op {op.name!r}: grad_reads entry {r!r} is not 'out', '<slot>' or '<slot>.shape' "
                             f"for a slot of {slots}")
        modes[slots.index(name)] = _MODES["." + rest if rest else ""]
    return tuple(modes)


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
    """One recorded op on the eager tape: enough to call its gradient rule later, and nothing that makes a
    reference cycle, so dropping the last tensor that leads to a graph frees it without a `gc` pass.

    - `edges`: per input, where its gradient goes (inputs are reached through their producers, not held): the
      producer `Node` (its output 0), ``(node, i)`` (output i > 0), the tensor itself for a leaf (or any tensor
      without a node), or None for a non-leaf input that had ``stop_gradient=True``; `edge` decodes one.
    - `saved`: per input, the tensor where the gradient rule reads it (`OpDef.grad_reads`), ``(shape, dtype,
      stop_gradient)`` where it reads the shape only, else None; `versions`: the saved tensors' versions when
      recorded (an in-place change since is an error; empty where no tensor is saved).
    - `outs`: weak references to the outputs (one, or a tuple for multi-output ops), for hooks, `stop_gradient` and
      `oar.grad` captures while the outputs live; `out_data`: the output arrays (likewise one or a tuple) where the
      rule reads them, else None (a dropped output is rebuilt from its array by `output`).
    Fewer, smaller objects per node keep the cyclic collector's work down on the eager hot path.
    """

    __slots__ = ("op", "attrs", "edges", "saved", "versions", "outs", "out_data", "__weakref__")

    def __init__(self, op, inputs, outs, attrs):  # on the eager hot path: one- and two-input ops written out
        self.op, self.attrs = op, attrs
        modes = op.saved_inputs
        n = len(inputs)
        if n == 2 and (modes is _SHAPES or modes is None):  # (comprehensions are calls in Python 3.11: ~70 ns)
            x, y = inputs
            nx, ny = x._node, y._node
            self.edges = (x if nx is None else None if x.stop_gradient else nx if not nx.op.multi_out else
                          nx.edge_to(x),
                          y if ny is None else None if y.stop_gradient else ny if not ny.op.multi_out else
                          ny.edge_to(y))
            if modes is None:
                self.saved, self.versions = inputs, (x._vc[0], y._vc[0])
            else:
                a, b = x._data, y._data
                self.saved = ((a.shape, a.dtype, x.stop_gradient), (b.shape, b.dtype, y.stop_gradient))
                self.versions = _NO_VERSIONS
        elif n == 1 and (modes is _SHAPES or modes is None):
            x = inputs[0]
            nx = x._node
            self.edges = (x if nx is None else None if x.stop_gradient else nx if not nx.op.multi_out else
                          nx.edge_to(x),)
            if modes is None:
                self.saved, self.versions = inputs, (x._vc[0],)
            else:
                a = x._data
                self.saved, self.versions = ((a.shape, a.dtype, x.stop_gradient),), _NO_VERSIONS
        else:
            self._record_inputs(op, inputs, modes)
        if SAVED_HOOKS.count and (hooks := SAVED_HOOKS.top()) is not None:
            self.saved, self.versions = hooks.pack_all(self.saved)
        keep = op.saves_out
        if not op.multi_out:
            o = outs[0]
            self.outs = _weakref(o)
            self.out_data = o._data if keep is True else None
            return
        if len(outs) == 2:  # (written out, as the inputs above)
            o, p = outs
            self.outs = (_weakref(o), _weakref(p))
        else:
            self.outs = tuple([_weakref(t) for t in outs])
        if keep is True:
            self.out_data = (o._data, p._data) if len(outs) == 2 else tuple([t._data for t in outs])
        else:  # the outputs the rule does not read: allocation-free stand-ins of their shape (zero-filling)
            keep = (False,) * len(outs) if keep is False else keep
            self.out_data = tuple([t._data if k else (t._data.shape, t._data.dtype) for t, k in zip(outs, keep)])

    def _record_inputs(self, op, inputs, modes):
        """`edges`, `saved` and `versions` for any input count and `OpDef.saved_inputs`."""
        self.edges = tuple([t if (n := t._node) is None else None if t.stop_gradient else
                            n if not n.op.multi_out else n.edge_to(t) for t in inputs])
        if modes is None:  # every input read
            self.saved = inputs
            self.versions = tuple([t._vc[0] for t in inputs])
        elif modes is False:  # none read
            self.saved, self.versions = (None,) * len(inputs), _NO_VERSIONS
        elif modes is _SHAPES:  # every input's shape only
            self.saved = tuple([(t._data.shape, t._data.dtype, t.stop_gradient) for t in inputs])
            self.versions = _NO_VERSIONS
        else:
            if op.variadic:
                modes = modes[:1] + modes[1:] * (len(inputs) - 1)
            self.saved = tuple([t if m == 1 else None if m == 0 else (t._data.shape, t._data.dtype, t.stop_gradient)
                                for t, m in zip(inputs, modes)])
            self.versions = tuple([t._vc[0] if m == 1 else None for t, m in zip(inputs, modes)])

    def ref(self, i):
        """The weak reference to output `i`."""
        return self.outs[i] if self.op.multi_out else self.outs

    def _set_ref(self, i, r):
        if self.op.multi_out:
            self.outs = self.outs[:i] + (r,) + self.outs[i + 1:]
        else:
            self.outs = r

    def n_outputs(self):
        return len(self.outs) if self.op.multi_out else 1

    def output(self, i):
        """Output `i` as a tensor for the gradient rule: the live output while it still holds the array the op
        made; once dropped, a tensor rebuilt from that array on this node (so higher-order gradients still flow
        here); a detached one where the live output was since changed in place."""
        if self.op.multi_out:
            live, data = self.outs[i](), self.out_data[i]
        else:
            live, data = self.outs(), self.out_data
        if isinstance(data, Tensor):  # oar.lazy()'s stand-in for the output (computed with it, same array)
            if i not in self.op.nondiff_out and mode().grad_enabled:  # create_graph: on the tape, as below
                data.stop_gradient, data._node = False, self
            return data
        if type(data) is not tuple and live is not None and live._data is data:
            return live
        t = _wrap(data if type(data) is not tuple else _zeros_view(*data))
        if live is None and i not in self.op.nondiff_out and mode().grad_enabled:  # create_graph: on the tape
            t.stop_gradient, t._node = False, self
            self._set_ref(i, _weakref(t))
        return t

    def rule_inputs(self):
        """The inputs as the gradient rule gets them: saved tensors, None, and shape-only stand-ins (zeros that
        allocate nothing) for inputs whose shape alone is read."""
        saved = self.saved
        if type(self.versions) is PackedVersions:
            saved = tuple([s.unpack() if type(s) is Packed else s for s in saved])
        if not self.op.saved_inputs:
            return saved
        if mode().grad_enabled:  # create_graph: the rule records ops on the stand-ins, so each is its own
            return [_shape_of(*s) if type(s) is tuple else s for s in saved]
        # otherwise nothing can change or hold a stand-in: one per (shape, dtype, stop_gradient) serves every rule
        get = _STAND_INS.get
        return [s if type(s) is not tuple else _stand_in(s) if (t := get(s)) is None else t for s in saved]

    def index(self, t):
        """The position of output tensor `t` among this node's outputs."""
        if not self.op.multi_out:
            return 0
        for i, r in enumerate(self.outs):
            if r() is t:
                return i
        raise RuntimeError(f"a tensor claims to be an output of '{self.op.name}' but is not among its outputs")

    def edge_to(self, t):
        """The `edges` entry for output tensor `t` of this (multi-output) node."""
        outs = self.outs
        if outs[0]() is t:
            return self
        return (self, self.index(t))

    def replace_output(self, i, t):
        """Output `i` is now tensor `t` (None: no tensor stands for it any more), after an in-place op."""
        self._set_ref(i, _no_tensor if t is None else _weakref(t))


def _no_tensor():
    return None


def edge(e):
    """An entry of `Node.edges` as ``(node, output index)``, ``(None, leaf)``, or None."""
    if e is None or type(e) is tuple:
        return e
    if type(e) is Node:
        return (e, 0)
    return (None, e)


class Packed:
    """A tensor a gradient rule reads, as `saved_tensors_hooks`' pack hook returned it; `unpack` gives the
    tensor back through the unpack hook, with the original's ``stop_gradient`` (rules read it to choose which
    gradients to compute)."""

    __slots__ = ("value", "_unpack", "_stop_gradient")

    def __init__(self, value, unpack, stop_gradient):
        self.value, self._unpack, self._stop_gradient = value, unpack, stop_gradient

    def unpack(self):
        t = self._unpack(self.value)
        if not hasattr(t, "_data"):
            raise TypeError(f"saved_tensors_hooks: unpack_hook returned a {type(t).__name__}, not a Tensor")
        if t.stop_gradient != self._stop_gradient:
            t.stop_gradient = self._stop_gradient
        return t


class PackedVersions(tuple):
    """`Node.versions` of a node whose saved tensors were packed: all None, since the in-place check cannot see
    through the hooks; its type tells `rule_inputs` to unpack."""


class SavedTensorHooks:
    """One `saved_tensors_hooks` pair: `pack_all` packs the tensors of a node's `saved`."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def pack_all(self, saved):
        packed = tuple([s if s is None or type(s) is tuple else
                        Packed(self.pack_hook(s), self.unpack_hook, s.stop_gradient) for s in saved])
        return packed, PackedVersions((None,) * len(saved))


class _SavedHookStacks:
    """The active `saved_tensors_hooks` of each thread; `count` (all threads) lets `Node` skip the lookup when
    none is active anywhere."""

    def __init__(self):
        self.count = 0
        self._local = threading.local()
        self._lock = threading.Lock()

    def top(self):
        stack = getattr(self._local, "stack", None)
        return stack[-1] if stack else None

    def push(self, hooks):
        self._local.__dict__.setdefault("stack", []).append(hooks)
        with self._lock:
            self.count += 1

    def pop(self):
        self._local.stack.pop()
        with self._lock:
            self.count -= 1


SAVED_HOOKS = _SavedHookStacks()

_ZEROS = {}  # (shape, dtype) -> a read-only stand-in array; cleared when it grows past 1024 shapes


def _zeros_view(shape, dtype):
    """Read-only zeros of `shape` that allocate nothing (every stride 0 over one zero), shared per shape."""
    key = (shape, dtype)
    a = _ZEROS.get(key)
    if a is None:
        if len(_ZEROS) >= 1024:
            _ZEROS.clear()
        z = np.zeros(1, dtype)
        z.flags.writeable = False
        a = _ZEROS[key] = np.ndarray(shape, dtype, z, 0, (0,) * len(shape))
    return a


_STAND_INS = {}  # (shape, dtype, stop_gradient) -> a shared stand-in tensor, for rules run without grad recording


def _stand_in(key):
    if len(_STAND_INS) >= 1024:
        _STAND_INS.clear()
    t = _STAND_INS[key] = _shape_of(*key)
    return t


def _shape_of(shape, dtype, stop_gradient):
    """A stand-in tensor for a gradient rule that reads only an input's shape, dtype and stop_gradient."""
    s = _wrap(_zeros_view(shape, dtype))
    s.stop_gradient = stop_gradient
    return s


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
    n = len(inputs)  # one- and two-input ops written out (a comprehension is a call in Python 3.11: ~70 ns)
    arrays = [inputs[0]._data, inputs[1]._data] if n == 2 else [inputs[0]._data] if n == 1 else \
        [inputs[0]._data, inputs[1]._data, inputs[2]._data] if n == 3 else [t._data for t in inputs]
    try:
        if _DEVICE.types:  # a GPU backend is loaded: the inputs' device decides (oar/ops/device.py)
            out = _device_run(op, arrays, attrs)
        else:
            out = op.impl(*arrays, **attrs)
    except Exception as e:
        if getattr(e, "_oar_op_error", False):  # already names the failing op and the user's line (programs)
            raise
        raise op_error(op, inputs, attrs, e) from None
    if FLAGS.check_nan_inf:
        check_finite(op.name, out, lambda: op_error(op, inputs, attrs, ""))
    if type(out) is tuple or type(out) is list:
        wrap = _wrap
        outs = (wrap(out[0]), wrap(out[1])) if len(out) == 2 else tuple([wrap(a) for a in out])
        for o in outs:
            a = o._data
            if a.base is not None:  # a view
                _alias(op, inputs, o)
                continue
            for x in arrays:  # or an input as it is
                if x is a:
                    _alias(op, inputs, o)
                    break
        if m.grad_enabled and op.grad is not None:
            for t in inputs:
                if not t.stop_gradient:
                    _record(op, inputs, outs, attrs)
                    break
        return outs
    res = _wrap(out)
    a = res._data
    if a.base is not None:  # a view
        _alias(op, inputs, res)
    elif n == 2:  # or a kernel that returned an input as it is
        if a is arrays[0] or a is arrays[1]:
            _alias(op, inputs, res)
    else:
        for x in arrays:
            if x is a:
                _alias(op, inputs, res)
                break
    if m.grad_enabled and op.grad is not None:
        for t in inputs:
            if not t.stop_gradient:
                node = Node(op, inputs, (res,), attrs)
                if res._data.dtype in _DIFFERENTIABLE and 0 not in op.nondiff_out:
                    res.stop_gradient = False
                    res._node = node
                break
    return res


def _alias(op, inputs, out):
    """An output whose array may share memory with an input's: a view op's output shares the input's version
    counter (marked shared, so in-place writes go through the common buffer); any other op's output is copied."""
    a = out._data
    may_share = array_module(a).may_share_memory
    for t in inputs:
        if type(t._data) is type(a) and may_share(a, t._data):  # (a host stand-in shares nothing with a GPU array)
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


def _set_threads(n):
    from ..kernels.threads import set_blas_threads
    if not set_blas_threads(n):
        raise ValueError("set_flags: FLAGS_paddle_num_threads needs the threadpoolctl package (pip install "
                         "threadpoolctl) to change the math library's thread count in a running process")


FLAGS.on_set["FLAGS_paddle_num_threads"] = _set_threads


def check_finite(name, out, context=None):
    """Raises RuntimeError naming op `name` when a floating array of its output `out` (an array or a
    tuple/list of them) holds NaN or Inf: ``oar.set_flags({'FLAGS_check_nan_inf': True})``. `context()`
    gives an exception whose text describes the call (its inputs)."""
    outs = out if type(out) is tuple or type(out) is list else (out,)
    for i, a in enumerate(outs):
        xp = array_module(a)
        if isinstance(a, xp.ndarray) and a.dtype.kind in "fc" and a.size and not xp.isfinite(a).all():
            nan, inf = int(xp.isnan(a).sum()), int(xp.isinf(a).sum())
            where = f" (call: {str(context()).removesuffix(' failed: ')})" if context is not None else ""
            raise RuntimeError(f"FLAGS_check_nan_inf: op '{name}' output {i} (shape {list(a.shape)}) has {nan} NaN "
                               f"and {inf} Inf values{where}")


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
    no_grad_set)` appends gradient ops (`oar.grad` on Variables, e.g. inside a `to_static` function);
    `global_block()` is the default main program's global block (an eager tensor's `.block`)."""

    def _not_loaded(self, *args):
        raise RuntimeError("static mode is on but oar.static is not imported (import oar.static)")

    append_op = assign_into = gradients = global_block = _not_loaded


STATIC = StaticHooks()


Tensor = _wrap = None  # the eager Tensor class, set by oar.eager.tensor (which sits above the ops)


def _bind_tensor(cls):
    global Tensor, _wrap
    Tensor, _wrap = cls, cls._wrap


# The BLAS thread policy (`oar/kernels/threads.py`) takes effect before the first kernel runs, for eager ops, the
# executor and the predictor alike; ``set_flags({'FLAGS_paddle_num_threads': n})`` changes it later.
FLAGS.values["FLAGS_paddle_num_threads"] = _threads.apply_default() or _threads.blas_threads() or 1


def _device_run(op, arrays, attrs):
    from .device import run  # imported on first device use: CPU-only runs never load it
    return run(op, arrays, attrs)
