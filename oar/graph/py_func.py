"""`py_func`: an op of a static program that calls a Python function on NumPy arrays when the program runs
(Paddle's `paddle.static.py_func`), with an optional Python gradient function.

The op always runs (it is side-effecting: a `func` that only prints still prints), and its results are assigned
into the `out` Variables the user created, as Paddle's op writes into them.
"""
import numpy as np

from ..core import dtype as D
from ..core.state import STATE
from ..ops.registry import apply, defop


def _call(func, arrays, metas, what):
    res = func(*arrays)
    if not metas:
        return ()
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(res) != len(metas):
        raise ValueError(f"py_func: {what} {getattr(func, '__name__', func)!r} returned {len(res)} values for "
                         f"{len(metas)} outputs")
    out = []
    for i, (r, (shape, dtype)) in enumerate(zip(res, metas)):
        a = np.asarray(r.numpy() if hasattr(r, "numpy") else r)
        if a.dtype != D.convert_dtype(dtype).np:
            raise TypeError(f"py_func: output {i} of {what} {getattr(func, '__name__', func)!r} is {a.dtype}, "
                            f"the out Variable is {D.convert_dtype(dtype).name}")
        if len(shape) != a.ndim or any(s >= 0 and s != n for s, n in zip(shape, a.shape)):
            raise ValueError(f"py_func: output {i} of {what} has shape {list(a.shape)}, the out Variable "
                             f"{list(shape)}")
        out.append(a)
    return tuple(out)


def _forward(*arrays, func, metas, backward_func, skip):
    return _call(func, arrays, metas, "func")


def _backward(*arrays, func, n_x):
    """`arrays`: every forward input (for the gradients' shapes), then what `backward_func` takes."""
    xs = arrays[:n_x]
    res = func(*arrays[n_x:])
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(res) != n_x:
        raise ValueError(f"py_func: backward_func returned {len(res)} gradients for {n_x} inputs")
    out = []
    for r, x in zip(res, xs):
        out.append(np.zeros_like(x) if r is None else np.asarray(r.numpy() if hasattr(r, "numpy") else r,
                                                                    dtype=x.dtype).reshape(x.shape))
    return tuple(out)


def _grad(gouts, outs, *xs, func, metas, backward_func, skip):
    if backward_func is None:
        return (None,) * len(xs)
    take = [v for i, v in enumerate(tuple(xs) + tuple(outs)) if i not in skip]
    grads = tuple(g if g is not None else _zeros(o) for g, o in zip(gouts, outs))
    res = apply(PY_FUNC_GRAD, tuple(xs) + tuple(take) + grads, {"func": backward_func, "n_x": len(xs)})
    return res if isinstance(res, tuple) else (res,)


def _zeros(v):
    from ..ops.math import zeros_like
    return zeros_like(v)


PY_FUNC = defop("py_func", _forward, inputs=("x",), outputs=("out*",), variadic=True,
                infer=lambda m, metas, **a: [(list(s), D.convert_dtype(d)) for s, d in metas], grad=_grad,
                side_effect=True, amp="skip", onnx_reason="runs a Python function: ONNX cannot hold it")
PY_FUNC_GRAD = defop("py_func_grad", _backward, inputs=("x",), outputs=("out*",), variadic=True,
                     infer=lambda m, n_x, **a: [(list(s), d) for s, d in m[:n_x]], differentiable=False,
                     side_effect=True, amp="skip")


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Adds an op to the static program that calls ``func(*x)`` (NumPy arrays) when the program runs and writes
    its results into the Variables `out` (created beforehand, with their shapes and dtypes); `out` None or ``[]``
    for a function run for its effect. ``backward_func(*x, *out, *out_grads)`` (less the Variables in
    `skip_vars_in_backward_input`) returns the gradients of `x` (None: no gradient).

    Example:
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('pf_x', [3])
        ...     y = main.current_block().create_var(name='pf_y', shape=[3], dtype='float32')
        ...     y = oar.static.py_func(lambda a: np.tanh(a), x, y)
        >>> exe = oar.static.Executor()
        >>> out, = exe.run(main, feed={'pf_x': np.zeros(3, 'float32')}, fetch_list=[y])
        >>> oar.disable_static()
        >>> out.tolist()
        [0.0, 0.0, 0.0]
    """
    from .builder import append_assign
    if not STATE.static:
        raise RuntimeError("py_func builds an op of a static program: call oar.enable_static() first")
    if not callable(func) or (backward_func is not None and not callable(backward_func)):
        raise TypeError("py_func: func and backward_func must be callable")
    xs = [] if x is None else list(x) if isinstance(x, (list, tuple)) else [x]
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    skip = skip_vars_in_backward_input
    skip = [] if skip is None else list(skip) if isinstance(skip, (list, tuple)) else [skip]
    position = {v.name: i for i, v in enumerate(xs + outs)}
    names = [v if isinstance(v, str) else v.name for v in skip]
    if not set(names) <= set(position):
        raise ValueError(f"py_func: skip_vars_in_backward_input {sorted(set(names) - set(position))} are neither in "
                         f"x nor in out")
    metas = tuple((tuple(v.shape), v.dtype.name) for v in outs)
    res = apply(PY_FUNC, tuple(xs), {"func": func, "metas": metas, "backward_func": backward_func,
                                 "skip": frozenset(position[n] for n in names)})
    res = res if isinstance(res, tuple) else (res,) if outs else ()
    for r, o in zip(res, outs):
        append_assign(r, o)
        o.stop_gradient = r.stop_gradient
    return out
