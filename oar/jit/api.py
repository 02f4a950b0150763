"""`to_static` and its companions (Paddle 2.x `paddle.jit` names)."""
import types

from . import runtime
from .log import set_code_level, set_verbosity  # noqa: F401
from .static_function import ENABLED, StaticFunction


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, full_graph=True, check=None,
              property=False):
    """Converts a function, a Layer method or a whole Layer into a static program, keeping its Python.

    Args:
        function: a function, a Layer method, or a Layer (its `forward` is converted; the layer keeps its
            parameters, state_dict and train/eval). Omit it to use `to_static(...)` as a decorator.
        input_spec: InputSpecs (None dims for a dynamic batch) and Python values matching the arguments.
        build_strategy: an `oar.static.BuildStrategy`; the passes its switches select run on each program
            built (gradient-safe ones on training programs, folding ones on eval programs too).
        full_graph: True (default): a statement that cannot become part of a program (it needs a tensor's
            value in Python) raises a clear error. False: the function is split there -- the statement runs as
            Python between programs (a graph break, listed in `.graph_breaks` and logged at verbosity 1).
        check: run the eager function beside the program for the first calls and raise when an output
            differs (also switched on by the environment variable OAR_TO_STATIC_CHECK=1).
        backend: Paddle's compiler backend; only None (oar's executor) is supported ('CINN' raises).
        property: Paddle's mark for a method saved as a constant property; only False is supported.
        Any other keyword raises TypeError (a misspelt ``input_specs=`` is not ignored).

    Example:
        >>> from oar.static import InputSpec
        >>> @oar.jit.to_static
        ... def f(x):
        ...     return x * 2 if x.sum() > 0 else -x
        >>> f(oar.to_tensor([1.0, 2.0])).numpy().tolist(), f(oar.to_tensor([-1.0])).numpy().tolist()
        ([2.0, 4.0], [1.0])
        >>> net = oar.jit.to_static(oar.nn.Linear(784, 10), input_spec=[InputSpec([None, 784], 'float32')])
        >>> net(oar.ones([3, 784])).shape
        [3, 10]
    """
    if backend is not None:
        raise ValueError(f"to_static: backend={backend!r} is not supported; oar runs programs with its own executor "
                         "(backend=None)")
    if property:
        raise NotImplementedError("to_static(property=True): saving a method as a constant property is not "
                                  "supported")
    if build_strategy is not None:
        from ..graph.build_strategy import BuildStrategy
        if not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"to_static: build_strategy must be an oar.static.BuildStrategy, got "
                            f"{type(build_strategy).__name__}")

    def decorate(fn):
        from ..nn.layer import Layer
        if isinstance(fn, StaticFunction):
            return fn
        if isinstance(fn, Layer):
            fwd = fn.__dict__.get("forward")
            if isinstance(fwd, StaticFunction):
                return fn
            cls_fwd = type(fn).forward
            if isinstance(cls_fwd, StaticFunction):  # @to_static already on the class method
                return fn
            fn.__dict__["forward"] = StaticFunction(cls_fwd, input_spec, build_strategy, full_graph, check,
                                                    layer=fn)
            return fn
        if not callable(fn):
            raise TypeError(f"to_static expects a function or a Layer, got {type(fn).__name__}")
        return StaticFunction(fn, input_spec, build_strategy, full_graph, check)
    if function is None:
        return decorate
    return decorate(function)


def not_to_static(func=None):
    """Marks a function that converted code calls as it is (never converted).

    Example:
        >>> @oar.jit.not_to_static
        ... def helper(x): ...
    """
    if func is None:
        return not_to_static
    code = getattr(func, "__code__", None)
    if code is not None:
        runtime.NOT_TO_STATIC.add(code)
    return func


def ignore_module(modules):
    """Functions of these modules are called as they are by converted code.

    Example:
        >>> import fractions
        >>> oar.jit.ignore_module([fractions])
    """
    for m in modules if isinstance(modules, (list, tuple, set)) else [modules]:
        runtime.IGNORED_MODULES.add(m.__name__ if isinstance(m, types.ModuleType) else str(m))


def enable_to_static(enable_to_static_bool):
    """False: every `to_static` function runs its original Python (eagerly); True (default): converted.

    Example:
        >>> f = oar.jit.to_static(lambda x: x + 1)
        >>> oar.jit.enable_to_static(False)
        >>> f(oar.ones([2])).numpy().tolist()   # runs the Python function as it is
        [2.0, 2.0]
        >>> oar.jit.enable_to_static(True)
    """
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static expects a bool, got {type(enable_to_static_bool).__name__}")
    ENABLED["on"] = enable_to_static_bool
