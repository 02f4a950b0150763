"""Lazy mode (`oar.lazy()`, ``oar.set_flags({'FLAGS_lazy': True})``): eager ops are recorded into a pending
graph instead of running; observing a value compiles the graph with the executor (after the fusion and dead-code
passes) and runs it. Identical pending graphs hit a plan cache keyed while recording (`lazy_graph`), so a loop
of fixed-shape steps compiles in its first steps only.

A pending result is a `LazyTensor`: its shape, dtype and gradient bookkeeping are known at once; its ``_data``
(the array) is a property that runs the pending graph first, so every read of the value (``numpy()``,
``item()``, ``print``, ``bool()``, a kernel of an op that runs eagerly, the optimizer's update) sees exactly what
eager mode computes. Leaving the context, `max_ops` recorded ops, and an in-place write (`x.add_(y)`,
``set_value``) also run it. Autograd works through lazy values: the tape records `Node`s on them without
reading arrays; ``loss.backward()`` on the graph's own history is one record, differentiated when the graph is
compiled (`_symbolic_backward`), else the eager walk's gradient ops are recorded lazily. The optimizer's updates
are recorded ops too, so a training step is one graph, whose plan updates the parameters in place as a captured
step's does (`LazyGraph.write_back`). Design and limits: docs/tracing.md ("Lazy mode").

Example:
    >>> x = oar.to_tensor([1.0, -2.0])
    >>> with oar.lazy():
    ...     y = oar.nn.functional.relu(x) * 3.0
    ...     pending = y.is_pending()
    ...     print(y.numpy().tolist())       # observing the value runs the graph
    [3.0, 0.0]
    >>> pending, y.is_pending()
    (True, False)
"""
import contextlib
import threading
import weakref

from ..core.state import mode, no_grad, own_mode
from ..eager.engine import set_symbolic_backward
from ..ops import registry
from .lazy_graph import LAZY_PASSES, MAX_OPS, STATS, LazyGraph, Stats  # noqa: F401  (the public names)
from .lazy_tensor import LazyTensor  # noqa: F401
from .recorder import active, pop_active, push_active

_DIFFERENTIABLE = registry._DIFFERENTIABLE
_Node, _new, _weakref, _get_ident = registry.Node, object.__new__, weakref.ref, threading.get_ident


# ---- the thread's lazy state ------------------------------------------------------------------------------------
class _State(threading.local):
    def __init__(self):
        self.graphs = []   # stack of (LazyGraph, previous Mode.hook)


_STATE = _State()
_EAGER_ALWAYS = frozenset(("run_program", "run_program_grad"))


def _on_op(op, inputs, attrs):
    """The thread's `Mode.hook` in lazy mode."""
    m = mode()
    if m.owner != _get_ident():  # modes copied into another thread: eager there
        own_mode()
        return registry.apply(op, inputs, attrs)
    g = _STATE.graphs[-1][0]
    info = _INFO.get(op)
    if info is None:
        info = _op_info(op)
    if info is not False:
        if op.check is not None:
            op.check(*inputs, **attrs)
        taped = False
        if m.grad_enabled and op.grad is not None:
            for t in inputs:
                if not t.stop_gradient:
                    taped = True
                    break
        res = g.record(op, inputs, attrs, taped)
        if res is not None:
            if taped:
                _tape(g, op, inputs, res, attrs, info)
            if g.n_ops >= g.max_ops:
                g.flush()
            return tuple(res) if op.multi_out else res[0]
    g.flush()  # random, side-effecting, control-flow and value-shaped ops run eagerly, in order
    hook, m.hook = m.hook, None
    try:
        return registry.apply(op, inputs, attrs)
    finally:
        m.hook = hook


_SHAPES = object()  # the saved modes of an op whose rule reads every input's shape only
_INFO = {}  # op -> False (it runs eagerly) or what `_tape` needs of it: (saved modes, kept outputs, nondiff_out);
# the saved modes of a non-variadic op that reads some inputs whole and others by meta or not at all are
# (positions read by meta, positions not read)


def _op_info(op):
    if op.random or op.side_effect or op.lower is not None or op.name in _EAGER_ALWAYS:
        info = False
    else:
        keep = op.saves_out  # (a bool for a multi-output op: said of every output, however many it makes)
        modes = op.saved_inputs
        if modes == registry._SHAPES or (type(modes) is tuple and not op.variadic and all(m == 2 for m in modes)):
            modes = _SHAPES
        elif type(modes) is tuple and not op.variadic:  # the positions of the inputs whose meta / nothing is read
            modes = tuple(tuple([i for i, m in enumerate(modes) if m == k]) for k in (2, 0))
        info = (modes, keep, frozenset(op.nondiff_out or ()))
    _INFO[op] = info
    return info


def _tape(g, op, inputs, outs, attrs, info):
    """The tape `Node` of a recorded op, as `registry.Node` builds it but reading no array: what the gradient rule
    reads of an input's shape comes from its meta, and an output it reads is a stand-in computed with the output
    (`LazyGraph.alias`, written out here), so recording the node never runs the pending graph."""
    modes, keep, nd = info
    node = _new(_Node)
    node.op, node.attrs = op, attrs
    edges = []
    for t in inputs:
        n = t._node
        edges.append(t if n is None else None if t.stop_gradient else n if not n.op.multi_out else n.edge_to(t))
    node.edges = tuple(edges)
    if modes is _SHAPES:  # every input's meta read (one input written out: a comprehension is a call)
        if len(inputs) == 1:
            t = inputs[0]
            node.saved, node.versions = ((*t._meta(), t.stop_gradient),), (None,)
        else:
            node.saved = tuple([(*t._meta(), t.stop_gradient) for t in inputs])
            node.versions = (None,) * len(inputs)
    elif modes is None:  # every input read
        node.saved = inputs
        node.versions = tuple([t._vc[0] for t in inputs])
    elif modes is False:
        node.saved = node.versions = (None,) * len(inputs)
    elif not op.variadic:  # (positions read by meta, positions not read); the rest read
        saved = list(inputs)
        versions = [t._vc[0] for t in inputs]
        for i in modes[0]:
            t = saved[i]
            saved[i] = (*t._meta(), t.stop_gradient)
            versions[i] = None
        for i in modes[1]:
            saved[i] = versions[i] = None
        node.saved, node.versions = tuple(saved), tuple(versions)
    else:
        modes = modes[:1] + modes[1:] * (len(inputs) - 1)
        node.saved = tuple([t if m == 1 else None if m == 0 else (*t._meta(), t.stop_gradient)
                            for t, m in zip(inputs, modes)])
        node.versions = tuple([t._vc[0] if m == 1 else None for t, m in zip(inputs, modes)])
    if not op.multi_out:
        t = outs[0]
        p = t._pending
        node.outs = _weakref(t)
        node.out_data = _stand_in(g, p) if keep is True else None
        if 0 not in nd and p[3].np in _DIFFERENTIABLE:
            t.stop_gradient = False
            t._node = node
    else:
        refs, data, i, every = [], [], 0, type(keep) is bool
        for t in outs:  # (one pass: the weak reference, what the rule reads, the tape)
            p = t._pending
            refs.append(_weakref(t))
            data.append(_stand_in(g, p) if (keep if every else keep[i]) else (p[2], p[3].np))
            if i not in nd and p[3].np in _DIFFERENTIABLE:
                t.stop_gradient = False
                t._node = node
            i += 1
        node.outs, node.out_data = tuple(refs), tuple(data)
    g.tape[id(node)] = node


def _stand_in(g, p):
    """`LazyGraph.alias` (share) of the output pending as `p` here, written out: the tape's stand-in for an output
    the gradient rule reads, computed into the output's own array."""
    a = _new(LazyTensor)
    a.stop_gradient = True
    a._grad = a._node = a._name = a._hooks = a._check = a._zeroed = a._view_of = None
    a._vc = [0, False]
    a.persistable = False
    a._pending = p
    g.outs.append((_weakref(a), p[1], True))
    return a


def _symbolic_backward(tensors, grad_tensors, retain_graph):
    """``loss.backward()`` on a pending loss whose whole history is on this graph's tape: one `backward` record
    (differentiated by `oar.static.gradients` when the graph is compiled) instead of the eager walk, whose Python
    costs more than the gradient kernels of a small model. The eager walk runs instead (False) for anything
    else: a loss made outside this graph, an explicit gradient, hooks (`register_hook`, `retain_grads`,
    DataParallel's), an output set to stop_gradient after it was made, or a program that cannot be built."""
    if len(tensors) != 1 or grad_tensors[0] is not None or not _STATE.graphs or mode().hook is not _on_op:
        return False
    loss, g = tensors[0], _STATE.graphs[-1][0]
    p = getattr(loss, "_pending", None)
    if p is None or p[0] is not g or loss._hooks or loss._node is None or p[3].kind != "f":
        return False  # (a complex loss: the static seed is a real number)
    tape, leaves, visited, stack = g.tape, {}, {}, [loss._node]  # (visited: an ordered set of nodes)
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        if tape.get(id(node)) is not node or node.edges is None:
            return False
        if node.op.multi_out:
            for r in node.outs:
                t = r()
                if t is not None and t._hooks:
                    return False
        elif (t := node.outs()) is not None and t._hooks:
            return False
        visited[node] = None
        for e in node.edges:
            te = type(e)
            if te is _Node:  # output 0 of a producer
                t = (e.outs if not e.op.multi_out else e.outs[0])()
                if t is not None and t.stop_gradient:  # blocked since it was recorded: the eager walk knows
                    return False
                if e not in visited:
                    stack.append(e)
            elif te is tuple:  # output i > 0
                n = e[0]
                t = n.outs[e[1]]()
                if t is not None and t.stop_gradient:
                    return False
                if n not in visited:
                    stack.append(n)
            elif e is not None and not e.stop_gradient:
                if e._hooks:
                    return False
                leaves[id(e)] = e
    leaves = list(leaves.values())
    grads = g.record_backward(loss, leaves)
    if grads is None:
        return False
    if g.checks_left > 0:
        _check_gradients(loss, leaves, grads)
    if not retain_graph:  # what the rules would read is released, as after the eager walk
        for node in visited:
            node.edges = node.saved = node.out_data = node.attrs = None
    with no_grad():  # delivered as the eager walk does: the accumulation is not on the tape
        for leaf, gr in zip(leaves, grads):
            if gr is None:
                continue
            if leaf._grad is None:
                gr.stop_gradient = False
                leaf._grad = gr
            else:
                leaf._grad._accumulate(gr)
    return True


def _check_gradients(loss, leaves, grads):
    """Check mode: the eager walk beside the backward record (its gradient ops recorded, each one computed
    eagerly too); each leaf's eager gradient is what the compiled one must equal when the graph runs."""
    from ..eager.engine import _root_grads, run_backward
    got = run_backward([loss], _root_grads([loss], [None]), retain_graph=True, capture={id(t): t for t in leaves})
    for leaf, gr in zip(leaves, grads):
        e = got.get(id(leaf))
        if (e is None) != (gr is None):
            raise AssertionError(f"lazy check: backward gives '{leaf.name}' {'no' if gr is None else 'a'} gradient "
                                 f"but the eager walk {'does' if gr is None else 'does not'}")
        if gr is not None:
            want = getattr(e, "_check", None)
            gr._check = want if want is not None else e._data


def _enter(max_ops, check):
    m = own_mode()
    if m.static:
        raise RuntimeError("oar.lazy() is an eager-mode switch; it cannot be used while a static Program is built")
    if active() is not None:
        raise RuntimeError("oar.lazy() inside oar.jit.trace: a trace records eager ops as they run; leave one of "
                           "them")
    g = LazyGraph(max_ops, check)
    graphs = _STATE.graphs
    graphs.append((g, m.hook))
    m.hook = _on_op
    if len(graphs) == 1:
        set_symbolic_backward(_symbolic_backward)
    push_active(g)
    return g


def _exit():
    g, prev = _STATE.graphs.pop()
    try:
        g.flush()
    finally:
        own_mode().hook = prev
        if not _STATE.graphs:
            set_symbolic_backward(None)
        pop_active(g)


class lazy(contextlib.ContextDecorator):
    """Within the block, this thread's eager ops are recorded and run as compiled graphs when a value is needed.

    Args:
        max_ops: the pending graph runs when it holds this many ops.
        check: for the first graphs, also compute every op eagerly and raise AssertionError naming the op's
            line when the compiled value differs (as ``to_static(check=True)``).

    Example:
        >>> w = oar.to_tensor([[2.0]], stop_gradient=False)
        >>> with oar.lazy():
        ...     loss = (oar.ones([3, 1]) @ w).sum()
        ...     loss.backward()                   # gradient ops are recorded lazily too
        >>> loss.item(), w.grad.numpy().tolist()
        (6.0, [[3.0]])
    """

    __slots__ = ("max_ops", "check")

    def __init__(self, max_ops=MAX_OPS, check=False):
        self.max_ops, self.check = max_ops, check

    def __enter__(self):
        _enter(self.max_ops, self.check)

    def __exit__(self, *exc):
        _exit()
        return False


def set_lazy_flag(on):
    """``FLAGS_lazy``: switches lazy mode on (or off) for the calling thread, until switched back."""
    on = bool(on)
    active = bool(_STATE.graphs) and _STATE.graphs[-1][0].max_ops == MAX_OPS and getattr(
        _STATE.graphs[-1][0], "from_flag", False)
    if on and not active:
        _enter(MAX_OPS, False).from_flag = True
    elif not on and active:
        _exit()
