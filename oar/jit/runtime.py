"""The runtime operators that converted code calls as `_jst.<name>`: the one place where "Python value or
graph op" is decided, at run time. Non-Variables always keep plain Python semantics.

Control flow lives in `control.py` and `loop_runtime.py`; builtins, calls and list mutation are here.
"""
import builtins
import functools
import importlib
import inspect
import os
import threading
import types

from . import log
from .static_values import is_array, is_var, no_state, weak  # noqa: F401  (no_state: converted code's)
from .places import ld_attr, st_attr  # noqa: F401
from .undefined import NO_RETURN, UndefinedVar, check_defined, returned  # noqa: F401
from . import array_ops  # noqa: F401  (registers array_delete / array_undelete for saved programs too)
from .effects import CURRENT, graph_break_wanted
from .store_runtime import (st_item, del_item, aug_item, set_attr, aug_attr, del_attr,  # noqa: F401
                            user_locals, logged_call)
from ..nn.layer import layers as _layer

# The control-flow operators converted code calls (`_jst.convert_ifelse`, ...): their modules are imported on the
# first access (module `__getattr__` below), so converting and running a function without control flow skips them.
_CONTROL_FLOW = dict.fromkeys(("convert_ifelse", "convert_ifexp", "convert_logical_and", "convert_logical_or",
                               "convert_logical_not", "convert_compare_chain"), "control")
_CONTROL_FLOW.update(dict.fromkeys(("convert_while", "convert_for", "convert_range", "convert_enumerate",
                                    "convert_zip"), "loop_runtime"))
_OAR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SKIP_MODULES = {"numpy", "builtins", "functools", "itertools", "math", "collections", "typing", "copy", "abc",
                 "warnings", "re", "os", "sys", "inspect", "logging", "operator", "random", "time"}
IGNORED_MODULES = set()       # module names given to oar.jit.ignore_module
NOT_TO_STATIC = set()         # code objects marked by oar.jit.not_to_static


class _Calls(threading.local):
    def __init__(self):
        self.depth = {}  # code object -> depth of this thread's converted calls now running (recursion check)


_CALLS = _Calls()

MAX_STATIC_RECURSION = 64


# ---- calls ------------------------------------------------------------------------------------------------------

@functools.cache
def _skip_dirs():
    """The standard library's and site-packages' folders (their functions are never converted)."""
    import sysconfig
    return tuple({sysconfig.get_paths()[k] + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib")})


def _skip(fn):
    code = getattr(fn, "__code__", None)
    if code is None or code in NOT_TO_STATIC:
        return True
    mod = (getattr(fn, "__module__", None) or "").split(".")[0]
    if mod == "oar" or mod in _SKIP_MODULES or getattr(fn, "__module__", None) in IGNORED_MODULES or \
            mod in IGNORED_MODULES:
        return True
    f = code.co_filename
    return f.startswith(_OAR_DIR) or f.startswith(_skip_dirs()) or f.startswith("<")


def convert_call(fn):
    """The callable to use for `fn` in converted code: user functions, methods and sublayers converted
    (recursively, cached); oar's own functions, builtins and ignored modules unchanged."""
    from .convert import ConversionError, ConvertedCodeError, convert_function, is_converted
    from .static_function import StaticFunction
    if isinstance(fn, UndefinedVar):
        raise fn.error()
    rec = CURRENT.recorder
    if rec is not None and type(fn) is types.BuiltinMethodType:
        return logged_call(fn)
    if isinstance(fn, StaticFunction):
        return fn._traced_callable()
    if isinstance(fn, types.FunctionType):
        if is_converted(fn.__code__) or _skip(fn):
            return _array_aware(fn)
        if inspect.isgeneratorfunction(fn):
            return fn
        try:
            conv = convert_function(fn)
        except ConvertedCodeError:
            raise  # never run unconverted inside a program: names the function's file and line
        except ConversionError as e:  # no source (built at run time): called as it is, as Paddle does
            log.info(1, f"calling {fn.__qualname__} as it is: {e}")
            return fn
        if conv.eager_reason is not None:
            return fn
        if rec is not None:
            rec.enter_function(conv.fn)
        return _guard_recursion(conv.fn)
    if isinstance(fn, types.MethodType):
        if is_var(fn.__self__) and fn.__name__ in ("numpy", "item"):
            if graph_break_wanted():
                from .errors import unsupported
                raise unsupported(f"`.{fn.__name__}()` on the static value '{fn.__self__.name}' (Python code sees "
                                  "its value)", "With full_graph=False it runs as Python (a graph break).")
            return _static_value(fn.__self__, fn.__name__)
        if is_var(fn.__self__) and fn.__name__ in ("tolist", "__array__"):
            from .errors import unsupported
            raise unsupported(f"`.{fn.__name__}()` on the static value '{fn.__self__.name}'",
                              "Its value exists only when the program runs: keep the computation in oar ops "
                              "(oar.sum, oar.where, ...), return the tensor and call .numpy() outside, or mark the "
                              "helper that needs NumPy with @oar.jit.not_to_static.")
        inner = convert_call(fn.__func__)
        if inner is fn.__func__:
            return fn
        if rec is not None and isinstance(fn.__self__, _layer.Layer):
            from .guards import add_object_method
            add_object_method(rec.guards, fn.__func__, fn.__self__)
        return types.MethodType(inner, fn.__self__)
    return fn  # a Layer converts its user-defined forward in Layer.__call__ (static_forward below)


def static_forward(layer):
    """The forward a Layer call runs while a program is built: a user-defined `forward` converted (so user
    layers inside oar containers such as Sequential and LayerList are converted too), oar's own unchanged."""
    if "forward" in layer.__dict__:
        return layer.forward
    fwd = getattr(type(layer), "forward", None)
    if not isinstance(fwd, types.FunctionType):
        return layer.forward
    conv = convert_call(fwd)
    if conv is fwd:
        return layer.forward
    rec = CURRENT.recorder
    if rec is not None:
        from .guards import add_object_method
        add_object_method(rec.guards, fwd, layer)
    return types.MethodType(conv, layer)


def _static_value(var, method):
    """`x.numpy()` / `x.item()` on a static value, as Paddle's AST mode treats them: the value stays a tensor
    (a condition on it becomes a `cond` op); `item()` gives the one element as a 0-D tensor."""
    def numpy():  # a copy marked as NumPy's view: iterating a 1-D one gives NumPy scalars (weak numbers)
        from ..ops.creation import assign
        out = assign(var)
        out.attrs["numpy"] = True
        return out

    def item(*index):
        from ..ops.manipulation import reshape
        flat = reshape(var, [-1])
        if not index:
            if var.size not in (1, -1):
                raise ValueError(f"item(): the static value '{var.name}' has {var.size} elements, not one")
            return weak(reshape(flat, []))
        return weak(flat[index[0]] if len(index) == 1 else var[index])
    return numpy if method == "numpy" else item


def _guard_recursion(fn):
    code = fn.__code__

    def call(*args, **kwargs):
        from ..core.state import STATE
        if not STATE.static:
            return fn(*args, **kwargs)
        depth = _CALLS.depth
        d = depth.get(code, 0)
        if d >= MAX_STATIC_RECURSION:
            raise RecursionError(
                f"'{fn.__qualname__}' ({code.co_filename}:{code.co_firstlineno}) calls itself more than "
                f"{MAX_STATIC_RECURSION} times while being converted: its recursion ends on a tensor value, which "
                "a static program cannot express. End the recursion on a Python value, or write it as a while "
                "loop over tensors")
        depth[code] = d + 1
        try:
            return fn(*args, **kwargs)
        finally:
            depth[code] = d
    call.__wrapped__ = fn
    return call


def _array_aware(fn):
    """`oar.stack` / `oar.concat` of a list carried through a static loop (a tensor array)."""
    name = getattr(fn, "__name__", "")
    if name in ("stack", "concat") and getattr(fn, "__module__", "").startswith("oar."):
        def call(x, axis=0, name=None):
            if is_array(x):
                from ..graph.tensor_array import array_to_tensor
                return array_to_tensor(x, axis, fn.__name__ == "stack")
            return fn(x, axis)
        return call
    return fn


# ---- builtins ---------------------------------------------------------------------------------------------------

def convert_print(*args, **kwargs):
    """`print`: static values print when the program runs (a `print` op); others print now."""
    if not any(is_var(a) for a in args):
        return builtins.print(*args, **kwargs)
    from ..graph.debug_ops import Print
    text = [str(a) for a in args if not is_var(a)]
    for a in args:
        if is_var(a):
            Print(a, message=" ".join(text) or None)


def convert_assert(cond, message):
    """`assert cond, message`: a static condition becomes an `assert` op keeping the message."""
    if isinstance(cond, UndefinedVar):
        raise cond.error()
    if not is_var(cond):
        if not cond:
            msg = message()
            raise AssertionError(msg) if msg is not None else AssertionError()
        return
    from ..graph.debug_ops import Assert
    from .control import _pred
    msg = message()
    Assert(_pred(cond), name=str(msg) if msg is not None else "assert")


def convert_len(x):
    """`len(x)`: a Python int when known, a run-time shape value for an unknown first dim or a tensor array."""
    if is_var(x):
        if is_array(x):
            from ..graph.tensor_array import array_length
            from ..ops.manipulation import reshape
            return reshape(array_length(x), [])
        if x.ndim == 0:
            raise TypeError(f"len() of a 0-D tensor '{x.name}'")
        if x.shape[0] >= 0:
            return x.shape[0]
        from ..ops.manipulation import shape
        return shape(x)[0]
    return len(x)


_CAST = {"int": "int32", "float": "float32", "bool": "bool"}  # Paddle's dtypes for int()/float()/bool()


def convert_cast(x, kind):
    """`int(x)`, `float(x)`, `bool(x)`: a cast op for a static value (to int32 / float32 / bool, as Paddle),
    Python otherwise."""
    if not is_var(x):
        return {"int": int, "float": float, "bool": bool}[kind](x)
    if graph_break_wanted():
        from .errors import unsupported
        raise unsupported(f"`{kind}()` of the static value '{x.name}' (Python code sees a Python {kind})",
                          "With full_graph=False it runs as Python (a graph break).")
    from ..ops.math import cast
    return weak(cast(x, _CAST[kind]))


def convert_shape(x):
    """`x.shape`: known dims as ints, unknown dims (-1) as run-time values."""
    if not is_var(x):
        return x.shape
    if all(d >= 0 for d in x.shape):
        return list(x.shape)
    from ..ops.manipulation import shape
    s = shape(x)
    return [d if d >= 0 else s[i] for i, d in enumerate(x.shape)]


def convert_size(x):
    """`x.size`: the element count; on a static value with an unknown dim, a run-time int64 value (eager gives
    the count, never -1). Anything else keeps its own `size` attribute."""
    if not is_var(x) or all(d >= 0 for d in x.shape):
        return x.size
    from ..ops.manipulation import numel
    return numel(x)


def convert_append(xs, v):
    """`xs.append(v)`: on a tensor array (a list carried by a static loop) an `array_write` at the end."""
    if is_array(xs):
        from ..graph.tensor_array import array_length, array_write
        if xs.attrs.pop("empty_dtype", False) and v.dtype is not xs.dtype:
            xs.dtype = v.dtype
        array_write(v, array_length(xs), xs)
        return xs
    logged_call(xs.append)(v) if CURRENT.recorder is not None else xs.append(v)
    return xs


def convert_pop(xs, index=None):
    """`xs.pop(index)`; returns (xs, value). On a tensor array (a list carried by a static loop) the element
    at `index` (default: the last) is read and removed at run time, so the array's length decreases."""
    if is_array(xs):
        from .array_ops import array_pop
        return array_pop(xs, index)
    pop = logged_call(xs.pop) if CURRENT.recorder is not None else xs.pop
    return xs, (pop() if index is None else pop(index))


_layer.STATIC_FORWARD[:] = [static_forward]


def __getattr__(name):
    module = _CONTROL_FLOW.get(name)
    if module is None:
        raise AttributeError(f"module 'oar.jit.runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __package__), name)
    globals()[name] = value
    return value
