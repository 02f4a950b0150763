"""The eager autograd walk: visit recorded nodes in reverse topological order and call each op's gradient rule."""
import threading

import numpy as np

from ..kernels.backend import array_module

from ..core.devices import RUNTIME, device_of, is_device_array, place_array
from ..core.state import mode, own_mode
from ..ops import registry
from ..ops.registry import Node, _SHAPES, _STAND_INS, _stand_in
from .tensor import Tensor


class _Walk(threading.local):
    """Per thread: the callbacks to run once the backward walk this thread is running ends (DataParallel's
    gradient all-reduce). Two threads' backward walks never run each other's callbacks."""

    def __init__(self):
        self.callbacks = []
        self.symbolic = None   # set_symbolic_backward


_WALK = _Walk()


def queue_callback(fn):
    """Runs ``fn()`` once, right after the backward walk now running in this thread has delivered every
    gradient."""
    _WALK.callbacks.append(fn)


def _key(t):
    """Where the gradient of tensor `t` is collected: its producer `Node` for output 0, the `edges` entry
    ``(node, i)`` for output i, ``id(t)`` for a leaf (a Node or a tuple never equals an int)."""
    n = t._node
    if n is None:
        return id(t)
    i = n.index(t)
    return n if i == 0 else (n, i)


def _graph(roots):
    """Nodes reachable from `roots`: for each, how many reachable nodes consume its outputs (`pending`, by node),
    and, for a node with an input whose gradient is blocked (a live output set to stop_gradient since it was
    recorded, as `oar.grad`'s no_grad_vars do), its `edges` with None there (`blocked`, by node; the walk reads
    every other node's `edges` as they are). A node edge is also the key its gradient is collected under in the
    walk (`_key`)."""
    pending, blocked, seen = {}, {}, set()
    stack = [roots[0]._node] if len(roots) == 1 and roots[0]._node is not None else \
        [t._node for t in roots if t._node is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        edges = node.edges
        if edges is None:
            raise RuntimeError("backward through a graph that was already freed: pass retain_graph=True to the first "
                               "backward() to run backward twice")
        cut = False
        for e in edges:
            te = type(e)
            if te is Node:
                n, t = e, (e.outs() if not e.op.multi_out else e.outs[0]())
            elif te is tuple:
                n = e[0]
                t = n.outs[e[1]]()
            else:  # a leaf, or None
                continue
            if t is None or not t.stop_gradient:
                pending[n] = pending.get(n, 0) + 1
                stack.append(n)
            else:
                cut = True
        if cut:
            blocked[node] = [None if _blocked(e) else e for e in edges]
    return pending, blocked


def _blocked(e):
    """Whether `edges` entry `e` leads to a live output that has stop_gradient set."""
    te = type(e)
    if te is Node:
        t = e.outs() if not e.op.multi_out else e.outs[0]()
    elif te is tuple:
        t = e[0].outs[e[1]]()
    else:
        return False
    return t is not None and t.stop_gradient


def _accumulate(store, key, g):
    prev = store.get(key)
    store[key] = g if prev is None else prev + g


class _RetainGrad:
    """The marker `Tensor.retain_grads()` puts among a non-leaf tensor's hooks: its gradient, once every hook
    before it has run, is kept in ``.grad``."""

    def __repr__(self):
        return "retain_grads"


RETAIN_GRAD = _RetainGrad()


def _run_hooks(t, g, store=True):
    for hook in t._hooks or ():
        if hook is RETAIN_GRAD:
            if store:  # each backward replaces it (Paddle 3.3.1 does not accumulate a non-leaf's gradient)
                t._grad = g if mode().grad_enabled else Tensor._wrap(g._data.copy())
            continue
        r = hook(g)
        if r is not None:
            g = r
    return g


def _seen_output(o, g, capture, captured):
    """An output's gradient as its hooks leave it, noted for `oar.grad` when asked for."""
    if o is not None:
        if o._hooks:
            g = _run_hooks(o, g, capture is None)
        if capture is not None and id(o) in capture:
            captured[id(o)] = g
    return g


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, capture=None):
    """Propagates `root_grads` from `roots`. Leaves get ``.grad`` unless `capture` (id -> tensor) is given,
    in which case the gradients of those tensors are returned in a dict instead."""
    pending, blocked = _graph(roots)
    callbacks = _WALK.callbacks
    del callbacks[:]  # left over from a walk that raised
    grads, captured, ready = {}, {}, []
    if len(roots) == 1 and roots[0]._node is not None:  # one non-leaf root (a loss): the loops below, written out
        t = roots[0]
        grads[_key(t)] = root_grads[0]
        if t._node not in pending:
            ready.append(t._node)
    else:
        for t, g in zip(roots, root_grads):
            _accumulate(grads, _key(t), g)
        seen = set()
        for t in roots:  # distinct root nodes that no other reachable node feeds
            n = t._node
            if n is not None and n not in seen:
                seen.add(n)
                if n not in pending:
                    ready.append(n)
        for t in roots:  # a root that is itself a leaf
            if t._node is None and id(t) in grads:
                _deliver(t, grads.pop(id(t)), capture, captured, mode().grad_enabled)
    m = own_mode()  # (`no_grad()` / `enable_grad()` written out: this thread's own modes, switched and restored)
    prev, m.grad_enabled = m.grad_enabled, bool(create_graph)
    try:
        _walk(ready, pending, blocked, grads, retain_graph, bool(create_graph), capture, captured)
    finally:
        m.grad_enabled = prev
    while callbacks:
        callbacks.pop(0)()
    return captured


def _walk(ready, pending, blocked, grads, retain_graph, grad_on, capture, captured):
    """Runs the gradient rules of the `ready` nodes and of each node whose consumers have all run, routes their
    input gradients (summed under a producer's key, or delivered to a leaf) and counts each producer's consumers
    down. A single-output node's rule is called here (`Node.output` and `Node.rule_inputs` written out: the eager
    hot path); a multi-output node's through `_multi_grads`. `grad_on`: the rules' ops are recorded (create_graph)."""
    while ready:
        node = ready.pop()
        vs = node.versions
        if vs:  # (a node that saved no tensor has none to check)
            for t, v in zip(node.saved, vs):
                if v is not None and t._vc[0] != v:
                    _version_error(node, t, v)
        tg = node.edges if not blocked else blocked.get(node, node.edges)  # where each input's gradient goes
        op = node.op
        res = _UNREACHED
        if not op.multi_out:
            g = grads.pop(node, None)
            if g is not None:
                o = node.outs()
                if o is not None and (o._hooks or capture is not None):
                    g = _seen_output(o, g, capture, captured)
                out = None
                od = node.out_data
                if od is not None:  # the rule reads the output: the live one, while it holds the array made
                    out = o if o is not None and type(od) is np.ndarray and o._data is od else node.output(0)
                saved, modes = node.saved, op.saved_inputs
                if type(vs) is not tuple:  # packed by saved_tensors_hooks
                    saved = node.rule_inputs()
                elif modes is _SHAPES and len(saved) <= 2 and not grad_on:  # `rule_inputs` written out:
                    x = _STAND_INS.get(saved[0])  # one shared stand-in per (shape, dtype, stop_gradient)
                    if x is None:
                        x = _stand_in(saved[0])
                    if len(saved) == 2:
                        y = _STAND_INS.get(saved[1])
                        saved = (x, _stand_in(saved[1]) if y is None else y)
                    else:
                        saved = (x,)
                elif modes:
                    saved = node.rule_inputs()
                res = op.grad(g, out, *saved, **node.attrs)
        else:
            gouts, found = [], False
            for i, r in enumerate(node.outs):
                g = grads.pop(node if i == 0 else (node, i), None)
                if g is not None:
                    found = True
                    o = r()
                    if o is not None and (o._hooks or capture is not None):
                        g = _seen_output(o, g, capture, captured)
                gouts.append(g)
            if found:
                res = _multi_grads(node, gouts)
        if res is _UNREACHED:  # no gradient reached this node: its producers are only counted down
            for x in tg:
                tx = type(x)
                if tx is Node:
                    n = x
                elif tx is tuple:
                    n = x[0]
                else:
                    continue
                left = pending[n] - 1
                pending[n] = left
                if left == 0:
                    ready.append(n)
        else:
            if not isinstance(res, (tuple, list)):
                res = (res,)
            nondiff = op.nondiff
            if nondiff:
                res = [None if i in nondiff else g for i, g in enumerate(res)]
            if len(res) < len(tg):  # (a rule that returned fewer gradients than the node has inputs)
                res = list(res) + [None] * (len(tg) - len(res))
            for x, g in zip(tg, res):  # (in input order: leaves' hooks run in the order they always did)
                tx = type(x)
                if tx is Node or tx is tuple:
                    if g is not None:  # (`_accumulate` written out)
                        prev = grads.get(x)
                        grads[x] = g if prev is None else prev + g
                    n = x if tx is Node else x[0]
                    left = pending[n] - 1
                    pending[n] = left
                    if left == 0:
                        ready.append(n)
                elif g is not None and x is not None and not x.stop_gradient:  # a leaf
                    _deliver(x, g, capture, captured, grad_on)
        if not retain_graph:  # what the rule read is released as soon as it ran
            node.edges = node.saved = node.out_data = node.attrs = None


_UNREACHED = object()  # `_walk`: the node's rule did not run


def _multi_grads(node, gouts):
    """The input gradients of multi-output `node`, given its outputs' gradients `gouts` (None: not reached; a
    differentiable output's becomes zeros)."""
    op = node.op
    outs, od = [], node.out_data
    for i, r in enumerate(node.outs):  # (`Node.output` written out for a live output holding the array made)
        o, d = r(), od[i]
        outs.append(o if o is not None and type(d) is np.ndarray and o._data is d else node.output(i))
    outs = tuple(outs)
    ref = None
    for g in gouts:
        if g is not None:
            ref = g
            break
    nd = op.nondiff_out
    for i, g in enumerate(gouts):  # (loops, not generators: the eager hot path)
        if g is None and i not in nd:  # an output that carries a gradient but got none: zeros
            gouts = [g if g is not None else (None if i in nd else _zeros(o, ref))
                     for i, (g, o) in enumerate(zip(gouts, outs))]
            break
    saved = node.saved if not op.saved_inputs and type(node.versions) is tuple else node.rule_inputs()  # (all kept)
    return op.grad(tuple(gouts), outs, *saved, **node.attrs)


def _deliver(leaf, g, capture, captured, grad_on):
    """Gives leaf `leaf` its gradient `g` (after its hooks): into ``.grad``, or into `captured` for `oar.grad`.
    `grad_on`: gradient recording is on (create_graph), so ``.grad`` is a graph value, not a copy."""
    # metas, not arrays: under oar.lazy() `g` is pending and the whole step stays one graph (`Tensor._meta`)
    g_shape, g_dtype = g._meta()
    shape, dtype = leaf._meta()
    if g_dtype is not dtype and g_dtype != dtype and leaf.dtype.kind in "fc":
        from ..ops.math import cast
        g = cast(g, leaf.dtype)
    if leaf._hooks:
        g = _run_hooks(leaf, g)
    if capture is not None:
        if id(leaf) in capture:
            _accumulate(captured, id(leaf), g)
        return
    if g_shape != shape and tuple(g_shape) != tuple(shape):
        raise RuntimeError(f"gradient of shape {g.shape} for a tensor of shape {leaf.shape}")
    if leaf._grad is None:  # a copy: `g` may be shared with other tensors' gradients
        if grad_on:
            leaf._grad = g
        else:  # Paddle: a gradient is a leaf with stop_gradient=False (so in-place ops on it need no_grad())
            leaf._grad = g._grad_copy()
    elif grad_on:  # create_graph: the accumulation is part of the differentiable graph
        leaf._grad = leaf._grad + g
    else:  # plain accumulation: no op dispatch, the leaf owns its gradient buffer
        acc = leaf._grad
        if type(acc) is Tensor and mode().hook is None:  # (`Tensor._accumulate` written out)
            acc._data = acc._data + g._data
            acc._vc[0] += 1
        else:
            acc._accumulate(g)


def _zeros(t, ref):
    """The zero gradient of an output nobody differentiated, on the device of the gradients that did arrive
    (`ref`): a dropped output is rebuilt from a host stand-in that only knows its shape."""
    from ..ops.math import zeros_like
    z = zeros_like(t)
    if ref is not None and RUNTIME.types and is_device_array(ref._data) and not is_device_array(z._data):
        z._data = place_array(z._data, device_of(ref._data))
    return z


def _version_error(node, t, v):
    raise RuntimeError(f"a tensor needed by the gradient of '{node.op.name}' was changed in place after it was "
                       f"used (version {v} -> {t._version}); use an out-of-place op instead")


def _ones_like(t):
    """Paddle's implicit root gradient: ones of `t`'s shape and dtype, whatever the shape."""
    xp = array_module(t._data) if RUNTIME.types else np  # (`_data` of a pending lazy value would compute it)
    a = xp.empty(*t._meta())
    a.fill(1)  # (`ones` is a Python function around empty + copyto: ~0.5 us more)
    return Tensor._wrap(a)


def _root_grads(tensors, grad_tensors):
    out = []
    for t, g in zip(tensors, grad_tensors):
        if g is None:
            out.append(_ones_like(t))
            continue
        if not isinstance(g, Tensor):
            g = Tensor(array_module(t._data).asarray(g, dtype=t._data.dtype))
        if g.shape != t.shape:
            raise ValueError(f"grad_tensor of shape {g.shape} does not match the tensor's shape {t.shape}")
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Accumulates gradients of `tensors` into the ``.grad`` of every leaf that requires one.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> oar.autograd.backward([(x * x).sum()])
        >>> x.grad.numpy().tolist()
        [2.0, 4.0]
    """
    tensors = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
    grad_tensors = list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    for t in tensors:
        if t.stop_gradient:
            raise RuntimeError(_NO_GRAD_ROOT)
    if _WALK.symbolic is not None and _WALK.symbolic(tensors, grad_tensors, retain_graph):
        return  # oar.lazy(): the gradients became one op of the pending graph
    run_backward(tensors, _root_grads(tensors, grad_tensors), retain_graph=retain_graph)


_NO_GRAD_ROOT = ("backward() on a tensor with stop_gradient=True: no input of the computation requires a gradient "
                 "(set stop_gradient=False on the inputs or parameters)")


def backward_tensor(t, grad_tensor=None, retain_graph=False):
    """`Tensor.backward`: `backward` of one tensor, without the lists."""
    if t.stop_gradient:
        raise RuntimeError(_NO_GRAD_ROOT)
    tensors, grad_tensors = [t], [grad_tensor]
    if _WALK.symbolic is not None and _WALK.symbolic(tensors, grad_tensors, retain_graph):
        return  # oar.lazy(): the gradients became one op of the pending graph
    run_backward(tensors, [_ones_like(t)] if grad_tensor is None else _root_grads(tensors, grad_tensors),
                 retain_graph=retain_graph)


def set_symbolic_backward(fn):
    """Installs (None: removes) this thread's ``fn(tensors, grad_tensors, retain_graph) -> bool``, asked first by
    `backward`: True when it took the call (`oar.lazy()` records the gradients as one op of its pending graph,
    differentiated when the graph is compiled, instead of walking the tape)."""
    _WALK.symbolic = fn


def _static_grad(outputs, inputs, grad_outputs, allow_unused, no_grad_vars):
    """`grad` on static Variables: the gradient ops are appended to the program (they are part of it, so a
    gradient of them is a second-order gradient, as `create_graph=True` asks in eager mode)."""
    if no_grad_vars is not None and not isinstance(no_grad_vars, (list, tuple)):
        no_grad_vars = [no_grad_vars]
    seeds = None if all(g is None for g in grad_outputs) else list(grad_outputs)
    got = registry.STATIC.gradients(outputs, inputs, seeds, no_grad_vars)
    for t, g in zip(inputs, got):
        if g is None and not allow_unused:
            raise RuntimeError(f"oar.grad: input {t.name} is not used to compute the outputs; pass "
                               "allow_unused=True to get None for it")
    return list(got)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, no_grad_vars=None):
    """Gradients of `outputs` with respect to `inputs`, returned (not accumulated into ``.grad``).

    Args:
        grad_outputs: gradients of `outputs` (None: ones of each output's shape, as Paddle).
        retain_graph: keep the graph for another backward pass; defaults to `create_graph`.
        create_graph: record the gradient computation itself, for higher-order gradients.
        allow_unused: return None for an input the outputs do not depend on (otherwise an error).
        no_grad_vars: tensors treated as constants: no gradient flows through them.

    Example:
        >>> x = oar.to_tensor([3.0], stop_gradient=False)
        >>> (dx,) = oar.grad(x * x, x, create_graph=True)   # 6.0, itself differentiable
    """
    single = not isinstance(inputs, (list, tuple))
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = [grad_outputs]
    if mode().static:  # Variables (a static program, or a function being converted by to_static): gradient ops
        return _static_grad(outputs, inputs, grad_outputs, allow_unused, no_grad_vars)
    if retain_graph is None:
        retain_graph = create_graph
    for t in outputs:
        if t.stop_gradient:
            raise RuntimeError("oar.grad: an output does not depend on any input that requires a gradient")
    capture = {id(t): t for t in inputs}
    blocked = [] if no_grad_vars is None else [t for t in (
        no_grad_vars if isinstance(no_grad_vars, (list, tuple)) else [no_grad_vars]) if not t.stop_gradient]
    for t in blocked:  # the walk treats them as constants: no gradient flows into or through them
        t.stop_gradient = True
    try:
        got = run_backward(outputs, _root_grads(outputs, grad_outputs), retain_graph, create_graph, capture)
    finally:
        for t in blocked:
            t.stop_gradient = False
    result = []
    for t in inputs:
        g = got.get(id(t))
        if g is None and not allow_unused:
            raise RuntimeError(f"oar.grad: input {t.name} is not used to compute the outputs; pass "
                               "allow_unused=True to get None for it")
        if g is not None and not create_graph:
            g = g.detach()
        result.append(g)
    return result
