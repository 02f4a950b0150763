"""`static_pylayer`: a piece of a static program with a gradient written by the user (Paddle's
`paddle.static.nn.static_pylayer`, the static twin of `PyLayer`).

The forward ops are built in place; their outputs pass through one `pylayer` op whose gradient rule calls
``backward_fn`` on the output gradients while the backward program is built, so the inputs' gradients are the ops
``backward_fn`` builds and no gradient flows through the forward ops themselves.
"""
from ..core.state import STATE
from ..ops.registry import apply, defop
from .pytree import flatten, unflatten


def _grad(gouts, outs, *ins, n_in, backward_fn):
    if backward_fn is None:
        return (None,) * len(ins)
    grads = backward_fn(*gouts)
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != n_in:
        raise ValueError(f"static_pylayer: backward_fn returned {len(grads)} gradients for {n_in} inputs")
    for g, x in zip(grads, ins[:n_in]):
        if g is not None and list(g.shape) != list(x.shape) and -1 not in list(x.shape) + list(g.shape):
            raise ValueError(f"static_pylayer: backward_fn gave a gradient of shape {g.shape} for input {x.name} "
                             f"of shape {x.shape}")
    return tuple(grads) + (None,) * (len(ins) - n_in)


PYLAYER = defop("pylayer", lambda *arrays, n_in, backward_fn: tuple(arrays[n_in:]), inputs=("x",), outputs=("out*",),
                variadic=True, infer=lambda m, n_in, backward_fn: list(m[n_in:]), grad=_grad,
                amp="skip", onnx_reason="a user-written gradient boundary: the exporter needs no such op")


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """Returns ``forward_fn(*inputs)`` built into the static program; the gradients of `inputs` are what
    ``backward_fn(*output_grads)`` builds (one per input; None: no gradient). With ``backward_fn=None`` no
    gradient reaches `inputs`.

    Example:
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('spl_x', [3])
        ...     x.stop_gradient = False
        ...     y = oar.static.nn.static_pylayer(lambda a: oar.exp(a), [x], lambda dy: dy * 2)
        ...     gx, = oar.static.gradients([oar.sum(y)], [x])
        >>> out, g = oar.static.Executor().run(main, feed={'spl_x': np.zeros(3, 'float32')}, fetch_list=[y, gx])
        >>> oar.disable_static()
        >>> out.tolist(), g.tolist()
        ([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    """
    if not STATE.static:
        raise RuntimeError("static_pylayer builds a static program: call oar.enable_static() first (in dynamic mode "
                           "use oar.autograd.PyLayer)")
    if not callable(forward_fn) or (backward_fn is not None and not callable(backward_fn)):
        raise TypeError("static_pylayer: forward_fn and backward_fn must be callable")
    ins = list(inputs)
    outs = forward_fn(*ins)
    leaves, tree = flatten(outs)
    if not leaves:
        return outs
    res = apply(PYLAYER, tuple(ins) + tuple(leaves), {"n_in": len(ins), "backward_fn": backward_fn})
    res = res if isinstance(res, tuple) else (res,)
    for r, x in zip(res, leaves):
        r.stop_gradient = x.stop_gradient and all(v.stop_gradient for v in ins)
    return unflatten(tree, list(res))
