"""`PyLayer`: a differentiable function with a hand-written backward (Paddle's `paddle.autograd.PyLayer`).

Eagerly, `apply` runs `forward` without recording and puts one tape node on the outputs whose gradient rule calls
`backward`. In a static program (inside `to_static`) the call becomes one `py_layer` op: the executor runs
`forward` on the op's inputs, and the gradient op `py_layer_grad` runs `backward` with the context that forward
filled. The op names the class by a key of this Python process: a saved program that holds one runs where the class
is defined in the same process, and elsewhere fails with an error that says so."""
import itertools
import threading
import types

import numpy as np

from ..core.state import STATE, no_grad
from ..ops.common import not_differentiable_again
from ..ops.registry import OpDef, apply, defop, infer_meta, _record


class PyLayerContext:
    """What `forward` leaves for `backward`: ``ctx.save_for_backward(*tensors)`` / ``ctx.saved_tensor()``, plus any
    attribute set on it.

    Example:
        >>> ctx = oar.autograd.PyLayerContext()
        >>> ctx.save_for_backward(oar.ones([2]))
        >>> [t.shape for t in ctx.saved_tensor()]
        [[2]]
    """

    def __init__(self):
        self._saved = ()
        self.materialize_grads = True
        self.non_differentiable = ()

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def saved_tensor(self):
        return self._saved

    def mark_not_inplace(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


def _as_tuple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


def _is_tensor(v):
    from .tensor import Tensor
    return isinstance(v, Tensor) or hasattr(v, "block")


def _check_grads(cls, grads, n):
    if len(grads) != n:
        raise ValueError(f"{cls.__name__}.backward returned {len(grads)} gradients; forward took {n} tensor inputs")
    return grads


# ---- the static form: one op per call; `key` names the PyLayer class of this process ------------------------------

_CLASSES = {}
_KEYS = itertools.count()


class _Contexts(threading.local):
    def __init__(self):  # per thread: a program runs its forward and backward in the calling thread
        self.by_key = {}  # key -> contexts of forward runs whose backward has not run yet (LIFO, as backward runs)


_CONTEXTS = _Contexts()


def _class(key, name):
    try:
        return _CLASSES[key]
    except KeyError:
        raise RuntimeError(f"this program calls PyLayer {name!r}, which exists only in the Python process that "
                           f"built it: a program with a PyLayer runs only there") from None


class _Eager:
    """Runs user code eagerly even while a program is being built (infer probes the forward at build time)."""

    def __enter__(self):
        self.saved = STATE.static, STATE.amp
        STATE.static, STATE.amp = False, None

    def __exit__(self, *exc):
        STATE.static, STATE.amp = self.saved


def _forward_arrays(arrays, key, name, layout, push=True):
    from .tensor import Tensor
    cls = _class(key, name)
    ctx = PyLayerContext()
    tensors = iter([Tensor._wrap(a) for a in arrays])
    args = [next(tensors) if is_t else v for is_t, v in layout]
    with _Eager(), no_grad():
        outs = _as_tuple(cls.forward(ctx, *args))
    if push:
        stack = _CONTEXTS.by_key.setdefault(key, [])
        stack.append(ctx)
        del stack[:-64]  # forward-only runs (inference) never pop: keep the recent ones
    return tuple(o._data for o in outs)


def _backward_arrays(*arrays, key, name, n_grads):
    from .tensor import Tensor
    cls = _class(key, name)
    stack = _CONTEXTS.by_key.get(key)
    if not stack:
        raise RuntimeError(f"PyLayer {name!r}: backward ran before its forward")
    ctx = stack.pop()
    grads = [Tensor._wrap(a) for a in arrays[:n_grads]]
    inputs = arrays[n_grads:]
    with _Eager(), no_grad():
        res = _check_grads(cls, _as_tuple(cls.backward(ctx, *grads)), len(inputs))
    return tuple(np.zeros_like(x) if g is None else np.asarray(g._data, x.dtype) for g, x in zip(res, inputs))


def _py_layer_infer(metas, key, name, layout):
    probe = types.SimpleNamespace(impl=lambda *a, **k: _forward_arrays(a, push=False, **k), infer=None)
    return infer_meta(probe, metas, {"key": key, "name": name, "layout": layout})


def _py_layer_grad(gouts, outs, *inputs, key, name, layout):
    from ..ops.math import zeros_like
    grads = [g if g is not None else zeros_like(o) for g, o in zip(gouts, outs)]
    res = apply(PY_LAYER_GRAD, tuple(grads) + tuple(inputs), {"key": key, "name": name, "n_grads": len(grads)})
    return res if isinstance(res, tuple) else (res,)


PY_LAYER = defop("py_layer", lambda *arrays, key, name, layout: _forward_arrays(arrays, key, name, layout),
                 inputs=("x",), outputs=("out*",), variadic=True, infer=_py_layer_infer, grad=_py_layer_grad,
                 onnx_reason="host callback (Python code of a PyLayer)")
PY_LAYER_GRAD = defop("py_layer_grad", _backward_arrays, inputs=("x",), outputs=("x_grad*",), variadic=True,
                      infer=lambda metas, key, name, n_grads: list(metas[n_grads:]),
                      grad=not_differentiable_again("py_layer_grad", "a PyLayer's backward in a static program",
                                                    "take the second-order gradient eagerly"))


class PyLayer:
    """Subclass with static methods ``forward(ctx, *args)`` and ``backward(ctx, *output_grads)`` (one gradient
    per tensor input, None for none), then call ``MyLayer.apply(*args)``.

    Example:
        >>> class Cube(oar.autograd.PyLayer):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, dy):
        ...         (x,) = ctx.saved_tensor()
        ...         return dy * 3 * x ** 2
        >>> x = oar.to_tensor([2.0], stop_gradient=False)
        >>> y = Cube.apply(x)
        >>> y.backward()
        >>> y.numpy().tolist(), x.grad.numpy().tolist()
        ([8.0], [12.0])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("PyLayer subclasses define backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{cls.__name__}.apply takes positional arguments (Paddle's PyLayer does too)")
        tensors = [a for a in args if _is_tensor(a)]
        if STATE.static:
            return cls._apply_static(args, tensors)
        ctx = PyLayerContext()
        with no_grad():
            outs = cls.forward(ctx, *args)
        single = not isinstance(outs, (tuple, list))
        outs = _as_tuple(outs)
        if STATE.grad_enabled and any(not t.stop_gradient for t in tensors):
            frozen = {id(t) for t in ctx.non_differentiable}
            nondiff_out = frozenset(i for i, o in enumerate(outs) if id(o) in frozen)
            op = OpDef(f"py_layer[{cls.__name__}]", None, ("x",), ("out*",), None, None, frozenset(), nondiff_out,
                       True, None, False, None)
            op.grad = lambda gouts, o, *inputs: cls._eager_backward(ctx, gouts, o, len(inputs))
            outs = tuple(o if all(o is not t for t in tensors) else o * 1 for o in outs)  # no aliasing of inputs
            _record(op, tuple(tensors), outs, {})
        return outs[0] if single else outs

    @classmethod
    def _eager_backward(cls, ctx, gouts, outs, n):
        from ..ops.math import zeros_like
        if ctx.materialize_grads:
            gouts = [g if g is not None else zeros_like(o) for g, o in zip(gouts, outs)]
        # the walk runs rules with grad mode on only for create_graph: then a backward written with ops is recorded
        # and differentiable again (second order), as in Paddle
        return _check_grads(cls, _as_tuple(cls.backward(ctx, *gouts)), n)

    @classmethod
    def _apply_static(cls, args, tensors):
        key = getattr(cls, "_oar_key", None)
        if key is None or _CLASSES.get(key) is not cls:
            key = next(_KEYS)
            cls._oar_key = key
            _CLASSES[key] = cls
        layout = [(True, None) if _is_tensor(a) else (False, a) for a in args]
        if any(not is_t and not isinstance(v, (int, float, bool, str, type(None))) for is_t, v in layout):
            raise TypeError(f"{cls.__name__}.apply in a static program takes tensors and plain numbers only")
        outs = apply(PY_LAYER, tuple(tensors), {"key": key, "name": cls.__name__, "layout": layout})
        return outs[0] if len(outs) == 1 else outs
