"""`StaticFunction`: what `to_static` returns (its programs: `concrete.py`).

Calling a StaticFunction in eager mode looks up (or builds) the ConcreteProgram for the call's signature --
tensor shapes and dtypes (or the `input_spec`'s), non-tensor argument values, train/eval -- and runs it as one
eager op through `ProgramRunner`. Building = running the converted function on `oar.static.data` placeholders
inside a fresh Program.
"""
import inspect
import os
import threading
import types

import numpy as np

from ..core.devices import is_device_array, to_host
from ..core.state import STATE, get_rng_state, mode, set_rng_state
from ..graph import builder
from ..graph import pytree
from ..graph.input_spec import InputSpec
from ..graph.program import Program
from ..graph.scope import Scope
from ..graph.variable import Variable
from ..core.tensor_methods import TensorMethods
from ..eager.tensor import Tensor
from . import effects, errors, guards, log
from . import replay as replay_mod
from ..core.capture import capturing
from .concrete import ConcreteProgram, ProgramCache, _spec_of  # noqa: F401  (ConcreteProgram: public here too)
from .convert import ConversionError, convert_function
from .train_step import TrainCapture

ENABLED = {"on": True}
CHECK_CALLS = 3


BOUND_KEY = "_oar_static_functions"  # instance.__dict__ key: {class-level StaticFunction: the instance's own}

# exact call signatures (train/eval, auto_cast, shapes, dtypes) kept for the one-key hot path; with an input_spec
# many batch sizes map to one program, so the table is bounded: further signatures take the keyed path
MAX_FAST = 64


class StaticFunction:
    """A function (or Layer method) converted by `to_static`. Call it like the original.

    Attributes:
        dygraph_function: the original function. code: the converted source. concrete_program: the latest
        ConcreteProgram. program_cache: every program built. rollback(): the original function back.

    Example:
        >>> from oar.static import InputSpec
        >>> def f(x):
        ...     return x + 1
        >>> sf = oar.jit.to_static(f)
        >>> sf(oar.zeros([2])).numpy().tolist()  # builds (once per signature) and runs the program
        [1.0, 1.0]
        >>> 'def f(x)' in sf.code             # the converted source
        True
        >>> cp = sf.get_concrete_program(InputSpec([None, 4], 'float32'))
        >>> cp.inputs[0].shape
        [-1, 4]
    """

    def __init__(self, function, input_spec=None, build_strategy=None, full_graph=True, check=None, layer=None):
        if isinstance(function, types.MethodType):
            layer, function = function.__self__, function.__func__
        self._function = function
        self._layer = layer
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._spec_leaves = pytree.flatten(self._input_spec)[0] if input_spec is not None else None
        self._build_strategy = build_strategy
        self.program_cache = ProgramCache()
        self._check = check if check is not None else os.environ.get("OAR_TO_STATIC_CHECK", "") not in ("", "0")
        self._checks_left = CHECK_CALLS
        self._lock = threading.RLock()  # two threads calling with a new signature: one traces, the other waits
        self._last = None
        self._warned_eager = False
        self._conv = None
        self._eager_reason = None  # set once when the function cannot be converted: later calls run eagerly
        self._fast = {}
        self._training = True
        self._full_graph = full_graph
        self._segmented = None  # full_graph=False and a graph break found: the function run as pieces
        self.retrace_reasons = []  # why a cached program's guards failed and the function was traced again
        self._piece = False     # a program piece of a split function: its graph breaks go to the whole function
        self.__name__ = getattr(function, "__name__", "static_function")
        self.__doc__ = getattr(function, "__doc__", None)
        self.__wrapped__ = function

    # ---- descriptor: @to_static on a Layer method ---------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        # The instance owns its converted method (programs, runners, plans): they die with it. (A mapping held
        # here, even a weak-keyed one, would keep the instance alive through the value's `_layer`.)
        d = getattr(instance, "__dict__", None)
        owned = d.get(BOUND_KEY) if d is not None else {}
        if owned is None:
            owned = d[BOUND_KEY] = {}
        sf = owned.get(self)
        if sf is None:
            with self._lock:
                sf = owned.get(self)
                if sf is None:
                    sf = owned[self] = StaticFunction(self._function, self._input_spec, self._build_strategy,
                                                      check=self._check, layer=instance)
        return sf

    @property
    def graph_breaks(self):
        """[(line, source)] of the statements that run as Python between programs (`full_graph=False`)."""
        return self._segmented.graph_breaks if self._segmented is not None else []

    def _call_pieces(self, args, kwargs):
        call_args = (self._layer,) + tuple(args) if self._layer is not None else tuple(args)
        return self._segmented(*call_args, **kwargs)

    def _split(self, error, args, kwargs):
        """`full_graph=False`: runs the function split at the statement that raised `error` (and at any later
        break found the same way, inside loop and branch bodies too)."""
        from . import graph_break
        from .convert import function_tree
        self._segmented = graph_break.SegmentedFunction(
            self._function, function_tree(self._function), lambda f: _piece(f, self._build_strategy, self._check))
        self._segmented.add_break(error)  # nothing ran yet: the whole function's trace was undone
        return self._call_pieces(args, kwargs)

    # ---- train / eval ---------------------------------------------------------------------------------------
    @property
    def training(self):
        """Train or eval mode: the Layer's for a Layer method, the function's own (`train()`/`eval()`) otherwise;
        programs are cached per mode."""
        return bool(self._layer.training) if self._layer is not None else self._training

    def train(self):
        """Builds and runs training programs (a plain function; for a Layer method use `layer.train()`).

        Example:
            >>> sf = oar.jit.to_static(lambda x: x * 2)
            >>> sf.eval(); sf.training
            False
            >>> sf.train(); sf.training
            True
        """
        self._set_mode(True)

    def eval(self):
        """Builds and runs eval programs (a plain function; for a Layer method use `layer.eval()`)."""
        self._set_mode(False)

    def _set_mode(self, training):
        if self._layer is not None:
            raise RuntimeError(f"'{self.__name__}' is a method of {type(self._layer).__name__}: switch the mode with "
                               f"layer.{'train' if training else 'eval'}() instead")
        self._training = training

    @property
    def dygraph_function(self):
        return types.MethodType(self._function, self._layer) if self._layer is not None else self._function

    @property
    def code(self):
        """The converted source code (what runs when the program is built)."""
        return convert_function(self._function).code

    @property
    def concrete_program(self):
        """The ConcreteProgram of the latest call (built from `input_spec` when there was none yet)."""
        if self._last is None:
            if self._input_spec is None:
                raise ValueError(f"'{self.__name__}' has no program yet: call it once or pass input_spec")
            return self.get_concrete_program(*self._input_spec)
        return self._last

    def rollback(self):
        """The original function (for a Layer, `forward` is restored to its class method).

        Example:
            >>> net = oar.jit.to_static(oar.nn.Linear(2, 2))
            >>> type(net.forward).__name__
            'StaticFunction'
            >>> _ = net.forward.rollback()    # net runs eagerly again
            >>> type(net.forward).__name__
            'method'
        """
        if self._layer is not None and self._layer.__dict__.get("forward") is self:
            del self._layer.__dict__["forward"]
            return self._layer.forward
        return self.dygraph_function

    def _converted(self):
        conv = convert_function(self._function)
        fn = conv.fn
        return types.MethodType(fn, self._layer) if self._layer is not None else fn, conv

    def _traced_callable(self):
        """The converted function to call while another program is being built."""
        try:
            fn, conv = self._converted()
        except ConversionError as e:
            if self._full_graph:
                raise ConversionError(f"to_static(full_graph=True) cannot convert '{self.__name__}' "
                                      f"({_where(self._function)}): {e}") from None
            return self.dygraph_function
        return fn if conv.eager_reason is None else self.dygraph_function

    # ---- calling ------------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not ENABLED["on"]:
            return self.dygraph_function(*args, **kwargs)
        if mode().static:
            return self._traced_callable()(*args, **kwargs)
        if self._segmented is not None:
            return self._call_pieces(args, kwargs)
        fast = self._fast_key(args) if not kwargs and not self._check else None
        if fast is not None:  # hot path: plain tensor arguments seen before
            cp = self._fast.get(fast)
            if cp is not None and (cp.guard is None or cp.guard(args, kwargs)):
                return cp.pack_outputs(cp.runner(*args), args, kwargs)
        if self._conv is None:
            if self._eager_reason is None:
                try:
                    _, conv = self._converted()
                except ConversionError as e:
                    if self._full_graph:  # never a silent eager run: the caller asked for one whole program
                        raise ConversionError(f"to_static(full_graph=True) cannot convert '{self.__name__}' "
                                              f"({_where(self._function)}): {e}\nFix the code, or pass "
                                              "full_graph=False to run it eagerly.") from None
                    self._eager_reason = str(e)
                else:
                    self._eager_reason = conv.eager_reason
                    self._conv = conv if conv.eager_reason is None else None
            if self._eager_reason is not None:
                return self._eager(self._eager_reason, args, kwargs)
        leaves, tree = _flat_args(args, kwargs)
        try:
            cp = self._cached(leaves, tree, lambda: self._leaf_names(args, kwargs), (args, kwargs))
        except Exception as e:
            from .graph_break import is_break
            if self._full_graph or not is_break(e) or self._function.__name__ == "<lambda>" or self._piece:
                raise
            return self._split(e, args, kwargs)
        tensors = [a for a in leaves if isinstance(a, TensorMethods)]
        # (with an input_spec too: the exact signature was checked against it once, and stays accepted; a
        # program traced again after its guards failed replaces the old one)
        if fast is not None and (fast in self._fast or len(self._fast) < MAX_FAST):
            self._fast[fast] = cp
        if self._check and self._checks_left > 0 and cp.train is None:
            return self._checked_call(cp, tensors, args, kwargs)
        return cp.pack_outputs(cp.runner(*tensors), args, kwargs)

    def _eager(self, reason, args, kwargs):  # full_graph=False, or a debugger call in the function
        if not self._warned_eager:
            self._warned_eager = True
            log.info(0, f"'{self.__name__}' runs eagerly (not converted): {reason}")
        return self.dygraph_function(*args, **kwargs)

    def _fast_key(self, args):
        """(train/eval, auto_cast, each argument's shape and dtype) when every argument is a plain Tensor."""
        key = [self.training, mode().amp]
        for a in args:
            if type(a) is not Tensor:
                return None
            d = a._data
            key.append(d.shape)
            key.append(d.dtype)
        return tuple(key)

    def _key(self, leaves, tree=None):
        parts = []
        for a in leaves:
            if isinstance(a, TensorMethods):
                d = a._data
                parts.append((d.shape, d.dtype.str))
            elif isinstance(a, InputSpec):
                parts.append(("spec", a.shape, a.dtype.name))
            else:
                try:
                    hash(a)
                    parts.append(("py", a))
                except TypeError:
                    parts.append(("py-id", id(a)))
        parts.append(self.training)
        parts.append(STATE.amp)  # oar.amp.auto_cast settings: the casts are ops of the program
        parts.append(_frozen(tree))  # the nesting: {'n': 0} + [1.0] and {'n': 0, 'b': 1.0} + [] differ
        return tuple(parts)

    def _with_specs(self, leaves):
        """The decorator's InputSpecs stand for the tensors they match (dynamic dims stay dynamic)."""
        specs = self._spec_leaves
        if specs is None or len(specs) != len(leaves):
            return leaves
        out = []
        for k, (a, s) in enumerate(zip(leaves, specs)):
            if isinstance(a, TensorMethods) and isinstance(s, InputSpec):
                _check_spec(self.__name__, k, a, s)
                a = s
            out.append(a)
        return out

    def _cached(self, leaves, tree, leaf_names, call=None):
        """The ConcreteProgram for flattened arguments, traced once per signature and again when its guards
        fail (`leaf_names()` gives the input names, asked for only when a program is built; `call`: the
        call's (args, kwargs), which the guards read)."""
        leaves = self._with_specs(leaves)
        key = self._key(leaves, tree)
        cp = self.program_cache.get(key)
        if cp is None or not self._guards_hold(cp, call):
            with self._lock:  # never a half-built program: another thread waits for this trace and uses it
                cp = self.program_cache.get(key)
                reason = None
                if cp is not None and call is not None and cp.guards is not None:
                    reason = cp.guards.check(*call)
                if cp is None or reason is not None:
                    names = leaf_names()
                    cp = self._build(leaves, tree, names, call)
                    cp.arg_template = ([a if _spec_of(a) is None else _spec_of(a) for a in leaves], tree, names)
                    if reason is not None:
                        self.retrace_reasons.append(reason)
                        log.info(1, f"tracing '{self.__name__}' again: {reason}")
                        self.program_cache.replace(key, cp)
                    else:
                        self.program_cache.add(key, cp, self.__name__, names)
        self._last = cp
        return cp

    @staticmethod
    def _guards_hold(cp, call):
        return cp.guards is None or call is None or cp.guards.check(*call) is None

    def with_dynamic_batch(self, cp):
        """`cp` traced again with dim 0 of every tensor argument unknown (what `oar.jit.save` writes for a
        program that was only traced on real tensors, so the saved model accepts any batch size)."""
        leaves, tree, names = cp.arg_template
        relaxed = [InputSpec([None] + list(a.shape[1:]), a.dtype, a.name) if isinstance(a, InputSpec) and a.shape
                   else a for a in leaves]
        return self._cached(relaxed, tree, lambda: names)

    def get_concrete_program(self, *args, **kwargs):
        """The ConcreteProgram for these arguments (InputSpecs, Tensors or Python values, nested in lists,
        tuples and dicts like the function's arguments), built if needed and cached by signature.

        Example:
            >>> from oar.static import InputSpec
            >>> def scale(image, k):
            ...     return image * k
            >>> sf = oar.jit.to_static(scale)
            >>> cp = sf.get_concrete_program(InputSpec([None, 784], 'float32', 'image'), 3)
            >>> cp.inputs[0].shape
            [-1, 784]
        """
        leaves, tree = _flat_args(args, kwargs)
        return self._cached(leaves, tree, lambda: self._leaf_names(args, kwargs), (args, kwargs))

    def _leaf_names(self, args, kwargs):
        """A name per flattened argument leaf, in `_flat_args` order: `x`, `xs_0`, `d_w`, a keyword's name."""
        params = _arg_names(self._function, self._layer is not None)
        out = []

        def rec(o, name):
            if isinstance(o, (list, tuple)):
                for j, v in enumerate(o):
                    rec(v, f"{name}_{j}")
            elif isinstance(o, dict):
                for k, v in o.items():
                    rec(v, f"{name}_{k}")
            else:
                out.append(name)
        for i, a in enumerate(args):
            rec(a, params[i] if i < len(params) else f"input_{i}")
        for k, v in kwargs.items():
            rec(v, k)
        return out

    def _build(self, leaves, tree, names, call=None):
        fn, conv = self._converted()
        call_args, call_kwargs = call if call is not None else pytree.unflatten(tree, leaves)
        rec = effects.Recorder(self._full_graph)
        plain = getattr(fn, "__func__", fn)
        rec.guards.add_function(plain, guards.param_getters(plain, self._layer, call_args, call_kwargs),
                                call_args, call_kwargs)
        rec.adopt_args(call_args, call_kwargs)
        rec.adopt(self._layer)
        rec.enter_function(plain)
        if log.code_level():
            log.code(100, "final", self.__name__, conv.code)
        main, startup = Program(), Program()
        scope = Scope()   # the eager Tensors the function reads (parameters, buffers): the program's values
        inputs, used = [], set()
        train = TrainCapture(main, scope)
        try:
            with (builder.program_guard(main, startup), builder.static_mode(True), capturing(train),
                  builder.BUILDER.binding(main, scope), effects.recording(rec)):
                new = []
                for i, a in enumerate(leaves):
                    spec = _spec_of(a)
                    if spec is None:
                        new.append(a)
                        continue
                    name = spec.name or (names[i] if i < len(names) else f"input_{i}")
                    while name in used:
                        name = f"{name}_{len(used)}"
                    used.add(name)
                    v = builder.data(name, list(spec.shape), spec.dtype)
                    v.stop_gradient = spec.dtype.kind not in "fc"
                    inputs.append(v)
                    new.append(v)
                args, kwargs = effects.bind_args(rec, call_args, call_kwargs, new)
                input_names = [v.name for v in inputs]
                out = fn(*args, **kwargs)
                replay = rec.finish()
                out_template = replay.build(out) if replay_mod.needs_template(out, rec) else None
                # an in-place op on an input rebinds its Python object to the result; the feed is the original
                inputs = [main.global_block().vars[n] for n in input_names]
                out_leaves, out_tree = pytree.flatten(out)
                fixed = []
                for v in out_leaves:
                    if isinstance(v, Variable) and v.__class__ is not Variable:
                        v.check_output(self.__name__)
                    if isinstance(v, TensorMethods) and not isinstance(v, Variable):
                        from ..ops.creation import assign
                        v = assign(v)
                    fixed.append(v)
        except Exception as e:
            rec.undo()
            raise errors.attach(e, self.__name__, "converting") from None
        rec.undo()
        rec.guards.relax({id(op[1]) for op in rec.ops if op[0] == "contents"})
        rec.check_untracked(self.__name__, main)
        outputs = [v for v in fixed if isinstance(v, Variable)]
        from .undefined import UndefinedVar
        for v in fixed:
            if isinstance(v, UndefinedVar) and not self._piece:  # a piece's: a local left without a value
                raise v.error()
        training = self.training
        cp = ConcreteProgram(main, startup, inputs, outputs, out_tree, fixed, self.__name__, training, scope)
        cp.replay = replay if replay or out_template is not None else None
        cp.out_template = out_template
        if scope.vars or self._layer is not None:
            rec.guards.add_layer_edits()
        cp.guards = rec.guards if len(rec.guards) else None
        cp.guard = cp.guards.compiled() if cp.guards is not None else None
        cp.train = train.finish() if train.used else None
        if self._build_strategy is not None and cp.train is None:
            cp.apply_build_strategy(self._build_strategy)
        return cp

    # ---- check mode ---------------------------------------------------------------------------------------
    def _checked_call(self, cp, tensors, args, kwargs):
        self._checks_left -= 1
        state = get_rng_state()
        from ..core.state import no_grad
        with no_grad():
            expected = self.dygraph_function(*args, **kwargs)
        set_rng_state(state)
        got = cp.pack_outputs(cp.runner(*tensors), args, kwargs)
        compare_outputs("to_static", self.__name__, expected, got, "converted")
        return got


def compare_outputs(mode_name, fn_name, expected, got, what):
    """Check mode (`to_static(check=True)`, `trace(check=True)`, lazy): raises AssertionError when the outputs
    `got` of the `what` ("converted", "traced") run differ from the eager run's `expected`."""
    el, _ = pytree.flatten(expected)
    gl, _ = pytree.flatten(got)
    if len(el) != len(gl):
        raise AssertionError(f"{mode_name} check: '{fn_name}' returns {len(gl)} values {what} but {len(el)} eagerly")
    for i, (e, g) in enumerate(zip(el, gl)):
        ea, ga = (to_host(a) if is_device_array(a) else np.asarray(a)  # compared on the host
                  for a in (getattr(e, "_data", e), getattr(g, "_data", g)))
        if ea.shape != ga.shape or not np.allclose(ea, ga, rtol=1e-5, atol=1e-6, equal_nan=True):
            diff = np.max(np.abs(ea.astype(float) - ga.astype(float))) if ea.shape == ga.shape else "shape"
            raise AssertionError(f"{mode_name} check: output {i} of '{fn_name}' differs between eager and "
                                 f"{what} runs (eager shape {list(ea.shape)}, {what} {list(ga.shape)}, "
                                 f"max abs diff {diff})")


def _frozen(tree):
    """A flatten tree as a hashable value."""
    if isinstance(tree, (list, tuple)):
        return tuple(_frozen(t) for t in tree)
    return tree


def _piece(fn, build_strategy, check):
    """A program piece of a function split at graph breaks: traced with `full_graph=False` semantics (Python
    values stay Python), its own breaks raised to the function, which splits there too."""
    sf = StaticFunction(fn, build_strategy=build_strategy, full_graph=False, check=check)
    sf._piece = True
    return sf


def _check_spec(fn_name, k, t, spec):
    """A tensor passed where the decorator's InputSpec stands must match it: no silent casts or reshapes."""
    label = f"input {k}" + (f" ('{spec.name}')" if spec.name else "") + f" of '{fn_name}'"
    if t.dtype is not spec.dtype:
        raise TypeError(f"{label} is a {t.dtype.name} tensor but its InputSpec says {spec.dtype.name}; cast it "
                        f"(x.astype('{spec.dtype.name}')) or change the InputSpec")
    shape = list(t.shape)
    if len(shape) != len(spec.shape) or any(d >= 0 and d != n for d, n in zip(spec.shape, shape)):
        raise ValueError(f"{label} has shape {shape} but its InputSpec says {list(spec.shape)} (-1: any size)")


def _flat_args(args, kwargs):
    if not kwargs:
        leaves, tree = pytree.flatten(list(args))
        return leaves, ("tuple", [tree, ("dict", [])])
    return pytree.flatten((list(args), dict(kwargs)))


def _arg_names(fn, is_method):
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return []
    return names[1:] if is_method else names


def _where(fn):
    """`file:line` of a function's definition."""
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else repr(fn)
