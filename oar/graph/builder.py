"""Static program building: the `Builder` (this thread's cursor: the (main, startup) programs, the block being
traced, the role of new ops) and `append_op`, which the registry's `apply` calls in static mode. Eager Tensors
met while building (a Layer's parameters during to_static) become persistable Variables whose values are those
Tensors, recorded in the scope the program is built for (`Builder.binding`)."""
import contextlib
import os
import sys
import linecache

import numpy as np

from ..core import dtype as D
from ..core.state import STATE
from ..ops import registry
from ..ops.registry import infer_meta
from ..eager.tensor import Tensor, Parameter
from .. import ir
from .cursor import BUILDER, Builder  # noqa: F401  (the Builder is defined beside Program's needs)
from .scope import global_scope
from .variable import Variable

_OAR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep




def default_main_program():
    """The Program that static-mode ops append to (outside any `program_guard`).

    Example:
        >>> oar.enable_static()
        >>> x = oar.static.data('x_default', [2], 'float32')
        >>> 'x_default' in [v.name for v in oar.static.default_main_program().list_vars()]
        True
        >>> oar.disable_static()
    """
    return BUILDER.main


def default_startup_program():
    """The Program that holds parameter initialisation.

    Example:
        >>> isinstance(oar.static.default_startup_program(), oar.static.Program)
        True
    """
    return BUILDER.startup


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Within the block, static ops go to `main_program` and parameter initialisers to `startup_program`.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 4], 'float32')
        ...     y = oar.static.nn.fc(x, size=2)
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> exe.run(main, feed={'x': np.ones([3, 4], 'float32')}, fetch_list=[y])[0].shape
        (3, 2)
        >>> oar.disable_static()
    """
    if not isinstance(main_program, ir.Program):
        raise TypeError(f"program_guard expects a Program, got {type(main_program).__name__}")
    prev = (BUILDER.main, BUILDER.startup)
    BUILDER.main = main_program
    if startup_program is not None:
        BUILDER.startup = startup_program
    try:
        yield
    finally:
        BUILDER.main, BUILDER.startup = prev


@contextlib.contextmanager
def static_mode(on=True):
    """Temporarily switches op dispatch to static building (used by to_static and tests)."""
    prev = STATE.static
    STATE.static = on
    try:
        yield
    finally:
        STATE.static = prev


def enable_static():
    """Switches oar to static mode: op calls build the default main Program instead of computing.

    Example:
        >>> oar.enable_static()
        >>> x = oar.static.data('x', [None, 3], 'float32')
        >>> x.shape
        [-1, 3]
        >>> oar.disable_static()
    """
    STATE.static = True


def disable_static(place=None):
    """Switches back to eager (dynamic) mode, the default.

    Example:
        >>> oar.enable_static()
        >>> oar.disable_static()
        >>> oar.in_dynamic_mode()
        True
    """
    STATE.static = False


def user_location():
    """(file, line, source text) of the innermost frame outside the oar package: the user's line."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_OAR_DIR):
        f = f.f_back
    if f is None:
        return None
    fn, ln = f.f_code.co_filename, f.f_lineno
    return (fn, ln, linecache.getline(fn, ln).strip())


def as_var(block, t):
    """The Variable for an op input: Variables pass through; an eager Tensor becomes a persistable var whose value is
    that Tensor, recorded in the scope the program is built for (`Builder.binding`)."""
    if isinstance(t, Variable):
        if t.__class__ is not Variable:  # e.g. dy2static's maybe-undefined value: checks itself when used
            t._on_use(block)
        return t
    if isinstance(t, Tensor):
        prog = block.program
        gb = prog.global_block()
        values = (BUILDER.scope(prog) or global_scope()).vars
        name = t.name
        v = gb.vars.get(name)
        if v is None or values.get(name) is not t:
            if v is not None:  # a different tensor under the same name
                name = prog.unique_name(name)
            is_param = isinstance(t, Parameter)
            v = gb.create_var(name, t.shape, t.dtype, persistable=True, stop_gradient=t.stop_gradient,
                              is_parameter=is_param, trainable=getattr(t, "trainable", False))
            values[name] = t
        return v
    raise TypeError(f"static op input must be a Variable or Tensor, got {type(t).__name__}")


def append_op(op, inputs, attrs):
    """Appends `op` to the current block of the main program and returns its output Variable(s)."""
    block = BUILDER.current_block()
    in_vars = [as_var(block, t) for t in inputs]
    loc = user_location()
    try:
        if op.check is not None:  # the argument checks eager mode runs (on metas only)
            op.check(*in_vars, **attrs)
        metas = infer_meta(op, [(v.shape, v.dtype) for v in in_vars], attrs)
    except Exception as e:
        raise _build_error(op, in_vars, attrs, e, loc) from None
    prefix = op.name
    outs = [block.create_var(block.program.unique_name(prefix + ".tmp"), shape, dtype) for shape, dtype in metas]
    sg = all(v.stop_gradient for v in in_vars) or op.grad is None
    for i, v in enumerate(outs):
        v.stop_gradient = sg or i in op.nondiff_out or v.dtype.kind not in "fc"
    if op.variadic:
        ins = {op.inputs[0]: [v.name for v in in_vars]}
    else:
        ins = {slot: [v.name] for slot, v in zip(op.inputs, in_vars)}
    if op.outputs[0].endswith("*"):
        outd = {op.outputs[0][:-1]: [v.name for v in outs]}
    else:
        outd = {slot: [v.name] for slot, v in zip(op.outputs, outs)}
    block.append_op(op.name, ins, outd, dict(attrs), loc)
    return tuple(outs) if op.multi_out else outs[0]


def _build_error(op, in_vars, attrs, exc, loc):
    shapes = ", ".join(f"{v.name}: {v.dtype.name}{v.shape}" for v in in_vars)
    where = f"\n  at {loc[0]}:{loc[1]}\n    {loc[2]}" if loc else ""
    kind = type(exc) if isinstance(exc, (ValueError, TypeError, IndexError)) else ValueError
    return kind(f"{op.name}({shapes}) failed while building the program: {exc}{where}")


def append_assign(src, dst):
    """Writes `src` into the existing Variable `dst` (used for in-place updates of persistable vars)."""
    block = BUILDER.current_block()
    src = as_var(block, src)
    block.append_op("assign", {"x": [src.name]}, {"out": [dst.name]}, {}, user_location())


def data(name, shape, dtype=None, lod_level=0):
    """Declares a feed Variable of the main program; None or -1 dims are filled at run time.

    Example:
        >>> x = oar.static.data(name='x', shape=[None, 784], dtype='float32')
    """
    shape = [-1 if d is None else int(d) for d in shape]
    dt = D.convert_dtype(dtype) if dtype is not None else D.default_float()
    block = BUILDER.main.global_block()
    v = block.create_var(name, shape, dt, stop_gradient=True, is_data=True)
    return v


def persistable_var(main, startup, name, value):
    """A persistable variable `name` of `main`'s global block, initialised to `value` (an array) by an op of
    `startup`: how optimizer accumulators, learning rates and metric statistics keep state between runs."""
    value = np.asarray(value)
    dt = D.convert_dtype(value.dtype)
    gb = main.global_block()
    v = gb.vars.get(name) or gb.create_var(name, list(value.shape), dt, persistable=True)
    sb = startup.global_block()
    if name not in sb.vars:
        sb.create_var(name, list(value.shape), dt, persistable=True)
        if value.size and np.all(value == value.flat[0]):
            sb.append_op("full", {}, {"out": [name]}, {"shape": list(value.shape), "value": value.flat[0].item(),
                                                      "dtype": dt.name})
        else:
            sb.append_op("assign_value", {}, {"out": [name]}, {"shape": list(value.shape),
                                                               "values": value.reshape(-1).tolist(),
                                                               "dtype": dt.name})
    return v


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block filled with `value` (Paddle's
    ``paddle.static.create_global_var``). A persistable one is filled by the startup program and keeps what ops
    write into it between runs; otherwise a `full` op of the main program makes it afresh at each run.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     step = oar.static.create_global_var([1], 0, 'int64', persistable=True, name='step')
        >>> oar.disable_static()
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> exe.run(main, fetch_list=[step])[0].tolist()
        [0]
    """
    if not STATE.static:
        raise RuntimeError("paddle.static.create_global_var builds a static Program: call paddle.enable_static() "
                           "first (in dynamic mode use paddle.full)")
    shape = [int(s) for s in shape]
    if not persistable:
        from ..ops.creation import full
        return full(shape, value, dtype)
    name = name or BUILDER.main.unique_name("global_var")
    return persistable_var(BUILDER.main, BUILDER.startup, name, np.full(shape, value, D.np_dtype(dtype)))


def _assign_into(src, dst):
    append_assign(src, as_var(default_main_program().global_block(), dst))


registry.STATIC.append_op = append_op  # the ops layer reaches the builder through these hooks
registry.STATIC.assign_into = _assign_into
registry.STATIC.global_block = lambda: default_main_program().global_block()
