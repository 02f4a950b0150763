"""Static backward: walk a block's ops in reverse and call each OpDef's gradient rule on Variables.

The rules are the same ones eager autograd calls; in static mode calling ops on Variables appends ops, so the
backward program is built by the very code that computes eager gradients. Ops with sub-blocks (cond, while)
have rules that build gradient sub-blocks; they read the forward `Operator` and the set of names that need a
gradient from `CTX`.

Example:
    >>> oar.enable_static()
    >>> main, startup = oar.static.Program(), oar.static.Program()
    >>> with oar.static.program_guard(main, startup):
    ...     x = oar.static.data('x', [None, 3]); x.stop_gradient = False
    ...     y = (x * x).sum()
    ...     dx, = oar.static.gradients([y], [x])
    >>> dx.name
    'x@GRAD'
    >>> exe = oar.static.Executor()
    >>> exe.run(main, feed={'x': np.array([[1.0, 2.0, 3.0]], 'float32')}, fetch_list=[dx])[0].tolist()
    [[2.0, 4.0, 6.0]]
    >>> oar.disable_static()
"""
import contextlib
import threading

from ..core.state import STATE
from ..ops import registry
from ..ops.registry import REGISTRY
from .builder import BUILDER
from .variable import Variable


class _Ctx(threading.local):  # per thread: two threads may build backward programs at once
    op = None       # the forward Operator whose gradient rule is running
    req = frozenset()  # names that need a gradient


CTX = _Ctx()


def is_array(v):
    return v.attrs.get("kind") == "tensor_array"


def differentiable(v):
    """Float tensors and float tensor arrays (whose gradients are tensor arrays); not a while op's history."""
    return v.dtype.kind in "fc" and not v.attrs.get("history")


@contextlib.contextmanager
def building(block):
    """Static mode with `block` of its program as the current block."""

    prev = (STATE.static, BUILDER.main)
    STATE.static, BUILDER.main = True, block.program
    try:
        with BUILDER.in_block(block):
            yield
    finally:
        STATE.static, BUILDER.main = prev


def requires_grad(ops, block, start, no_grad=()):
    """Names that depend differentiably on `start` through `ops`."""
    req = set(start) - set(no_grad)
    for op in ops:
        d = REGISTRY.get(op.type)
        if d is None or d.grad is None:
            continue
        ins = op.input_names()
        if any(n in req and i not in d.nondiff for i, n in enumerate(ins)):
            for i, n in enumerate(op.output_names()):
                if i in d.nondiff_out or n in no_grad:
                    continue
                v = block.var(n)
                if differentiable(v):
                    req.add(n)
    return req


def zeros_grad(v):
    """A zero gradient for `v` (an empty gradient array for a tensor array)."""
    if is_array(v):
        from .tensor_array import ARRAY_ZEROS, _grad_array
        from ..ops.registry import apply
        return _grad_array(apply(ARRAY_ZEROS, (v,)))
    from ..ops.math import zeros_like
    return zeros_like(v)


def _accumulate(grads, name, g, var):
    prev = grads.get(name)
    if is_array(var):
        from .tensor_array import ARRAY_ADD, _grad_array
        if prev is not None:
            from ..ops.registry import apply
            g = apply(ARRAY_ADD, (prev, g))
        grads[name] = _grad_array(g)
        return
    if g.dtype is not var.dtype and differentiable(var):
        from ..ops.math import cast
        g = cast(g, var.dtype)
    grads[name] = g if prev is None else prev + g


def _redefined(block, ops):
    """Per op, the output names that already held a value before it (in-place writes such as `array_write`,
    or outer variables a loop body assigns): once the op's gradient rule ran, their gradient so far belongs to
    the overwritten value and is dropped."""
    seen, res = set(), []
    for op in ops:
        outs = op.output_names()
        ins = set(op.input_names())
        res.append([n for n in outs if n in ins or n in seen or n not in block.vars])
        seen.update(ins)
        seen.update(outs)
    return res


def backward_ops(block, ops, targets, target_grads, req, rename=False):
    """Appends to `block` the gradient ops of `ops` (forward ops of `block`) for `targets` seeded with
    `target_grads`; returns ``{name: grad Variable}`` for every name in `req` that gets a gradient."""
    grads = {}
    fwd_names = set(block.vars)
    for t, g in zip(targets, target_grads):
        if g is not None:
            _accumulate(grads, t, g, block.var(t))
    redefined = _redefined(block, ops)
    with building(block):
        for k in range(len(ops) - 1, -1, -1):
            op = ops[k]
            d = REGISTRY.get(op.type)
            if d is None or d.grad is None:
                continue
            outs = op.output_names()
            if not any(n in grads for n in outs):
                continue
            ins = op.input_names()
            if not any(n in req and i not in d.nondiff for i, n in enumerate(ins)):
                continue
            if rename:
                for n in outs:
                    if n in grads:
                        grads[n] = _name_grad(block, grads[n], n, fwd_names)
            out_vars = [block.var(n) for n in outs]
            in_vars = [block.var(n) for n in ins]
            prev = CTX.op, CTX.req
            CTX.op, CTX.req = op, req
            try:
                if len(outs) == 1 and not d.multi_out:
                    res = d.grad(grads[outs[0]], out_vars[0], *in_vars, **op.attrs)
                else:
                    gouts = tuple(grads.get(n) if grads.get(n) is not None else
                                  (zeros_grad(v) if differentiable(v) and i not in d.nondiff_out else None)
                                  for i, (n, v) in enumerate(zip(outs, out_vars)))
                    res = d.grad(gouts, tuple(out_vars), *in_vars, **op.attrs)
            except Exception as e:
                raise _grad_error(op, e) from None
            finally:
                CTX.op, CTX.req = prev
            if not isinstance(res, (tuple, list)):
                res = (res,)
            for n in redefined[k]:
                grads.pop(n, None)
            for i, (n, g) in enumerate(zip(ins, res)):
                if g is None or i in d.nondiff or n not in req:
                    continue
                _accumulate(grads, n, g, in_vars[i])
        if rename:
            for n in list(grads):
                if n in req:
                    grads[n] = _name_grad(block, grads[n], n, fwd_names)
    return grads


def _grad_error(op, e):
    from ..ir.printer import format_op
    msg = f"building the gradient of op {format_op(op, with_loc=False)} failed: {e}"
    if op.loc:
        msg += f"\n  File \"{op.loc[0]}\", line {op.loc[1]}\n    {op.loc[2]}"
    try:
        return type(e)(msg)
    except Exception:
        return RuntimeError(msg)


def _name_grad(block, g, name, fwd_names):
    """Renames the gradient Variable `g` of `name` to ``name@GRAD`` when it is a fresh backward value."""
    want = name + "@GRAD"
    if g.name == want or g.name in fwd_names or g.name.endswith("@GRAD") or g.block is not block \
            or block.has_var(want) or g.name not in block.vars:
        return g
    old = g.name
    for op in reversed(block.ops):
        if old in op.output_names():
            for names in op.outputs.values():
                for i, n in enumerate(names):
                    if n == old:
                        names[i] = want
            break
    else:
        return g
    for op in block.ops:
        for names in op.inputs.values():
            for i, n in enumerate(names):
                if n == old:
                    names[i] = want
    del block.vars[old]
    g.name = want
    block.vars[want] = g
    block.program._bump()
    return g


def _names(xs):
    return [x.name if isinstance(x, Variable) else str(x) for x in xs]


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Appends the ops computing d(sum of targets)/d(inputs); returns a grad Variable (or None) per input.

    Args:
        targets: Variable or list of Variables.
        inputs: Variable or list of Variables to differentiate against.
        target_gradients: seeds for the targets (ones when None).
        no_grad_set: names or Variables that get no gradient.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [2]); x.stop_gradient = False
        ...     loss = (x * x * x).sum()
        ...     dx, = oar.static.gradients([loss], [x])
        >>> oar.static.Executor().run(main, feed={'x': np.array([1.0, 2.0], 'float32')}, fetch_list=[dx])[0].tolist()
        [3.0, 12.0]
        >>> oar.disable_static()
    """
    targets = [targets] if isinstance(targets, Variable) else list(targets)
    with BUILDER.role_guard(targets[0].block.program, "backward"):
        return _gradients(targets, inputs, target_gradients, no_grad_set)


def _gradients(targets, inputs, target_gradients, no_grad_set):
    inputs = [inputs] if isinstance(inputs, Variable) else list(inputs)
    block = targets[0].block
    ops = list(block.ops)
    no_grad = set(_names(no_grad_set or ()))
    req = requires_grad(ops, block, [v.name for v in inputs], no_grad)
    seeds = []
    with building(block):
        tg = target_gradients if target_gradients is not None else [None] * len(targets)
        if not isinstance(tg, (list, tuple)):
            tg = [tg]
        for t, g in zip(targets, tg):
            if g is None:
                from ..ops.creation import full
                from ..ops.math import ones_like
                g = full(t.shape, 1, t.dtype) if -1 not in t.shape else ones_like(t)  # a constant when it can be
                g = _name_grad(block, g, t.name, set())
            seeds.append(g)
    grads = backward_ops(block, ops, [t.name for t in targets], seeds, req, rename=True)
    return [grads.get(v.name) for v in inputs]


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None):
    """Appends the backward of `loss` to its program; returns ``[(param, param@GRAD)]``.

    Args:
        loss: the scalar loss Variable.
        parameter_list: parameters (Variables or names) to differentiate; all trainable ones when None.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 3])
        ...     loss = oar.static.nn.fc(x, size=1).mean()
        ...     params_grads = oar.static.append_backward(loss)
        >>> oar.disable_static()
        >>> [(p.shape, g.shape) for p, g in params_grads]
        [([3, 1], [3, 1]), ([1], [1])]
    """
    block = loss.block
    prog = block.program
    if parameter_list is None:
        params = [v for v in prog.global_block().vars.values() if v.is_parameter and v.trainable
                  and not v.stop_gradient]
    else:
        params = [prog.global_block().var(n) for n in _names(parameter_list)]
    grads = gradients([loss], params, None, no_grad_set)
    return [(p, g) for p, g in zip(params, grads) if g is not None]


registry.STATIC.gradients = gradients  # oar.grad on Variables (autograd sits below static)
