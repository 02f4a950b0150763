"""Control flow as ops with sub-blocks: `cond`, `while_loop`, and `case` / `switch_case` built on `cond`.

In eager mode the builders simply run Python control flow. In static mode each branch or loop body is traced
into its own sub-block; the op lists every outer variable the sub-blocks read as an input (so sub-blocks run as
plain functions of their inputs) and every outer variable they write as an output. The executor runs them
through each OpDef's ``lower``; gradients come from the rules in `cf_grad.py`.
"""
import contextlib

import numpy as np

from ..framework import dtype as D
from ..ops.registry import defop
from ..tensor.methods import TensorMethods
from . import budget, builder
from .variable import Variable
from .op_checks import count_problem, distinct_problem, fields_problem


# ---- nested structures ----------------------------------------------------------------------------------------

def flatten(obj):
    """(leaves, tree) of nested lists/tuples/dicts; anything else is a leaf. A tuple subclass (a namedtuple)
    keeps its class in the tree, so `unflatten` gives it back.

    Example:
        >>> import collections
        >>> from oar.static.control_flow import flatten, unflatten
        >>> P = collections.namedtuple("P", "k v")
        >>> leaves, tree = flatten({"a": P(1, [2])})
        >>> leaves, unflatten(tree, [10, 20])
        ([1, 2], {'a': P(k=10, v=[20])})
    """
    leaves = []

    def rec(o):
        if isinstance(o, (list, tuple)):
            kind = type(o) if isinstance(o, tuple) and type(o) is not tuple else type(o).__name__
            return (kind, [rec(v) for v in o])
        if isinstance(o, dict):
            return ("dict", [(k, rec(o[k])) for k in o])
        leaves.append(o)
        return "*"
    return leaves, rec(obj)


def unflatten(tree, leaves):
    it = iter(leaves)

    def rec(t):
        if t == "*":
            return next(it)
        kind, items = t
        if kind == "dict":
            return {k: rec(v) for k, v in items}
        vals = [rec(v) for v in items]
        if isinstance(kind, type):  # a tuple subclass: a namedtuple is built from its fields
            return kind._make(vals) if hasattr(kind, "_make") else kind(vals)
        return tuple(vals) if kind == "tuple" else vals
    return rec(tree)


def _same(a, b):
    if a is b:
        return True
    try:
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return np.array_equal(a, b)
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


# ---- sub-block helpers ----------------------------------------------------------------------------------------

@contextlib.contextmanager
def sub_block(program):
    """Traces into a new block whose parent is the current block."""
    b = builder.BUILDER.new_block(program)
    try:
        yield b
    finally:
        builder.BUILDER.set_block(program, b.parent_idx)


def in_block(block):
    """Ops go to `block` inside."""
    return builder.BUILDER.in_block(block)


def externals(block, outs=()):
    """(reads, writes): outer variable names the block's ops read (or return as `outs`) and write."""
    reads, writes = {}, {}
    for op in block.ops:
        for names in op.inputs.values():
            for n in names:
                if n not in block.vars:
                    reads[n] = None
        for names in op.outputs.values():
            for n in names:
                if n not in block.vars:
                    writes[n] = None
    for n in outs:
        if n not in block.vars:
            reads[n] = None
    return list(reads), list(writes)


def _const_in(block, value, dtype=None):
    from ..ops.common import const
    with in_block(block):
        if dtype is None:
            dtype = D.bool_ if isinstance(value, (bool, np.bool_)) else (
                D.int64 if isinstance(value, (int, np.integer)) else D.default_float())
        return const(value, dtype)


def _cast_in(block, v, dtype):
    from ..ops.math import cast
    with in_block(block):
        return cast(v, dtype)


def merge_shape(a, b):
    if len(a) != len(b):
        return None
    return [x if x == y else -1 for x, y in zip(a, b)]


def _loc():
    return builder.user_location()


# ---- cond -----------------------------------------------------------------------------------------------------

def _cond_impl(*args, **attrs):
    raise RuntimeError("the cond op runs only inside a Program (use oar.static.nn.cond)")


def _while_impl(*args, **attrs):
    raise RuntimeError("the while op runs only inside a Program (use oar.static.nn.while_loop)")


def _cond_lower(compiler, op):
    cap = op.input("input")
    a = op.attrs
    tfn, _ = compiler.compile_block(a["true_block"], cap, a["true_outs"])
    ffn, _ = compiler.compile_block(a["false_block"], cap, a["false_outs"])

    def run(pred, *vals):
        return tfn(*vals) if pred else ffn(*vals)
    return run


def _cond_grad(*args, **attrs):
    from .cf_grad import cond_grad
    return cond_grad(*args, **attrs)


COND = defop("cond", _cond_impl, inputs=("cond", "input"), outputs=("out*",), nondiff=(0,), lower=_cond_lower,
             grad=_cond_grad, infer=lambda m, **a: [])


def _cond_verify(inputs, outputs, a):
    n = len(outputs.get("out", []))
    return (fields_problem(a, ints=("true_block", "false_block"), names=("true_outs", "false_outs"))
            or count_problem(len(inputs.get("cond", [])), 1, "input 'cond'")
            or distinct_problem(inputs.get("input", []), "captured inputs")
            or count_problem(len(a["true_outs"]), n, "true_outs")
            or count_problem(len(a["false_outs"]), n, "false_outs"))


COND.set(verify=_cond_verify, block_attrs=("true_block", "false_block"), name_attrs=("true_outs", "false_outs"))


def _trace(program, fn):
    with sub_block(program) as b:
        out = fn() if fn is not None else None
    return b, out


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Runs `true_fn()` if `pred` else `false_fn()`; in static mode both become sub-blocks of one `cond` op.

    Both branches must return the same structure (nested lists/tuples/dicts); Variables are merged (dims that
    differ become -1), equal Python values pass through, and `None` branches return nothing.

    Example:
        >>> x, y = oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0, 4.0])
        >>> out = oar.static.nn.cond(x.sum() < y.sum(), lambda: x + y, lambda: x - y)
        >>> out.numpy().tolist()
        [4.0, 6.0]
    """
    if not isinstance(pred, Variable):
        if isinstance(pred, TensorMethods):
            if pred.size != 1:
                raise ValueError(f"cond: pred must have one element, got shape {pred.shape}")
        chosen = true_fn if bool(pred) else false_fn
        return chosen() if chosen is not None else None
    if pred.size not in (1, -1):
        raise ValueError(f"cond: pred must be a boolean tensor with one element, got '{pred.name}' of shape "
                         f"{pred.shape}")
    prog = builder.default_main_program()
    parent = prog.current_block()
    tb, tout = _trace(prog, true_fn)
    fb, fout = _trace(prog, false_fn)
    return build_cond(pred, parent, tb, tout, fb, fout, name)


def build_cond(pred, parent, tb, tout, fb, fout, name=None):
    """Merges two traced branch blocks and their results into one `cond` op appended to `parent` (used by
    `cond`, and by dy2static, which reconciles the branches' values before merging)."""
    prog = parent.program
    tl, ttree = flatten(tout)
    fl, ftree = flatten(fout)
    if ttree != ftree:
        raise ValueError(f"cond: true_fn and false_fn must return the same structure, got {_describe(tout)} from "
                         f"true_fn and {_describe(fout)} from false_fn")
    results, t_names, f_names, outs = [None] * len(tl), [], [], []
    for i, (a, b) in enumerate(zip(tl, fl)):
        va, vb = isinstance(a, Variable), isinstance(b, Variable)
        for side in (a, b):
            if not isinstance(side, (Variable, TensorMethods, bool, int, float, np.number, np.bool_)) and \
                    side is not None and not (not va and not vb and _same(a, b)):
                raise ValueError(f"cond: output {i} is {_describe(a)} in true_fn and {_describe(b)} in false_fn; "
                                 "a static `if` can merge tensors and numbers only, so return the same value on "
                                 "both paths or a tensor")
        if not va and not vb:
            if a is None and b is None or _same(a, b):
                results[i] = a
                continue
            if isinstance(a, TensorMethods) or isinstance(b, TensorMethods) or a is None or b is None:
                raise ValueError(f"cond: output {i} differs between the branches: {a!r} vs {b!r}")
            a, b = _const_in(tb, a), _const_in(fb, b)
        elif not (va and vb):
            if (a if not va else b) is None or isinstance(a if not va else b, TensorMethods):
                raise ValueError(f"cond: output {i} is a Variable in one branch and {(b if va else a)!r} in the "
                                 "other; both branches must return a Variable there")
            a = a if va else _const_in(tb, a, b.dtype)
            b = b if vb else _const_in(fb, b, a.dtype)
        if a.dtype is not b.dtype:
            t = D.promote(a.dtype, b.dtype)
            a = a if a.dtype is t else _cast_in(tb, a, t)
            b = b if b.dtype is t else _cast_in(fb, b, t)
        shape = merge_shape(a.shape, b.shape)
        if shape is None:
            raise ValueError(f"cond: output {i} has rank {len(a.shape)} in true_fn ({a.shape}) but rank "
                             f"{len(b.shape)} in false_fn ({b.shape})")
        v = parent.create_var(prog.unique_name("cond.out" if name is None else name), shape, a.dtype)
        v.stop_gradient = a.stop_gradient and b.stop_gradient
        t_names.append(a.name)
        f_names.append(b.name)
        outs.append(v)
        results[i] = v
    tr, tw = externals(tb, t_names)
    fr, fw = externals(fb, f_names)
    writes = list(dict.fromkeys(tw + fw))
    cap = list(dict.fromkeys(tr + fr + writes))
    out_names = [v.name for v in outs] + writes
    parent.append_op("cond", {"cond": [pred.name], "input": cap}, {"out": out_names},
                     {"true_block": tb.idx, "false_block": fb.idx, "true_outs": t_names + writes,
                      "false_outs": f_names + writes}, _loc())
    return unflatten(ttree, results)


def _describe(o):
    if isinstance(o, Variable):
        return "a Variable"
    if isinstance(o, (list, tuple)):
        return f"a {type(o).__name__} of {len(o)} ({', '.join(_describe(v) for v in o)})"
    if isinstance(o, dict):
        return f"a dict with keys {list(o)}"
    return repr(o)


def case(pred_fn_pairs, default=None, name=None):
    """Runs the fn of the first true pred; `default` (or the last pair's fn) when none holds.

    Example:
        >>> x = oar.to_tensor(1.5)
        >>> a, b, c = oar.to_tensor(10.0), oar.to_tensor(20.0), oar.to_tensor(30.0)
        >>> out = oar.static.nn.case([(x < 1, lambda: a), (x < 2, lambda: b)], default=lambda: c)
        >>> out.item()
        20.0
    """
    pairs = list(pred_fn_pairs)
    if not pairs:
        raise ValueError("case: pred_fn_pairs must not be empty")
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])):
            raise TypeError("case: each item of pred_fn_pairs must be a (pred, fn) pair")
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]

    def chain(i):
        if i == len(pairs):
            return default()
        return cond(pairs[i][0], pairs[i][1], lambda: chain(i + 1))
    return chain(0)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Runs ``branch_fns[branch_index]``; `default` (or the largest index's fn) for other indices.

    Example:
        >>> i = oar.to_tensor(1)
        >>> a, b, c = oar.to_tensor(10.0), oar.to_tensor(20.0), oar.to_tensor(30.0)
        >>> out = oar.static.nn.switch_case(i, {0: lambda: a, 1: lambda: b}, default=lambda: c)
        >>> out.item()
        20.0
    """
    if isinstance(branch_fns, dict):
        items = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)):
        items = [tuple(p) if isinstance(p, (list, tuple)) else (i, p) for i, p in enumerate(branch_fns)]
    else:
        raise TypeError(f"switch_case: branch_fns must be a dict, a list of (int, fn) pairs or a list of fns, "
                        f"got {type(branch_fns).__name__}")
    if not items:
        raise ValueError("switch_case: branch_fns must not be empty")
    seen = set()
    for p in items:
        if len(p) != 2 or not isinstance(p[0], int) or isinstance(p[0], bool) or not callable(p[1]):
            raise TypeError(f"switch_case: each branch must be an int key and a callable, got {p!r}")
        if p[0] in seen:
            raise ValueError(f"switch_case: the key {p[0]} appears more than once in branch_fns")
        seen.add(p[0])
    items.sort(key=lambda p: p[0])
    if default is None:
        default = items[-1][1]
    if not isinstance(branch_index, Variable):
        k = int(branch_index)
        for i, fn in items:
            if i == k:
                return fn()
        return default()

    def chain(j):
        if j == len(items):
            return default()
        i, fn = items[j]
        return cond(branch_index == i, fn, lambda: chain(j + 1))
    return chain(0)


# ---- while ----------------------------------------------------------------------------------------------------

def _while_lower(compiler, op):
    a = op.attrs
    nx = len(op.input("x"))
    cap = op.input("input")
    carried = a.get("carried", [])
    cidx = [cap.index(w) for w in carried]
    cfn, _ = compiler.compile_block(a["cond_block"], a["cond_in"] + cap, [a["cond_out"]])
    # carried_out: the body's names for the carried values when they differ from the outer ones (gradient clones)
    bfn, _ = compiler.compile_block(a["body_block"], a["body_in"] + cap, a["body_out"] + a.get("carried_out", carried))
    save = bool(a.get("save_history"))

    def run(*args):
        vals, capv = args[:nx], list(args[nx:])
        hist = [] if save else None
        limit, n = budget.loop_limit(), 0
        kept, cap = 0, budget.history_limit() if save else None
        while cfn(*vals, *capv)[0]:
            if limit is not None:
                n += 1
                if n > limit:
                    raise budget.loop_error(limit)
            if save:
                hist.append((vals, tuple(capv)))
                if cap is not None:  # the history kept for a gradient grows with every iteration: bounded too
                    kept += sum(getattr(v, "nbytes", 0) for v in vals) + sum(getattr(capv[i], "nbytes", 0)
                                                                             for i in cidx)
                    if kept > cap:
                        raise budget.history_error(len(hist), kept)
            res = bfn(*vals, *capv)
            vals = res[:nx]
            for j, i in enumerate(cidx):
                capv[i] = res[nx + j]
        outs = tuple(vals) + tuple(capv[i] for i in cidx)
        return outs + (hist,) if save else outs
    return run


def _while_grad(*args, **attrs):
    from .cf_grad import while_grad
    return while_grad(*args, **attrs)


WHILE = defop("while", _while_impl, inputs=("x", "input"), outputs=("out*", "history"), lower=_while_lower,
              grad=_while_grad, infer=lambda m, **a: [])


def _while_verify(inputs, outputs, a):
    bad = fields_problem(a, ("carried", "carried_out", "save_history", "is_test"), ints=("cond_block", "body_block"),
                         strs=("cond_out",), names=("cond_in", "body_in", "body_out", "carried", "carried_out"),
                         bools=("save_history", "is_test"))
    if bad:
        return bad
    nx, cap = len(inputs.get("x", [])), inputs.get("input", [])
    carried = a.get("carried", [])
    return (count_problem(len(a["cond_in"]), nx, "cond_in") or count_problem(len(a["body_in"]), nx, "body_in")
            or count_problem(len(a["body_out"]), nx, "body_out")
            or count_problem(len(a.get("carried_out", carried)), len(carried), "carried_out")
            or next((f"carried {n!r:.80} is not a captured input" for n in carried if n not in cap), None)
            or distinct_problem(a["cond_in"] + cap, "cond_in + input") or distinct_problem(a["body_in"] + cap,
                                                                                             "body_in + input")
            or count_problem(len(outputs.get("out", [])), nx + len(carried), "output 'out'")
            or count_problem(len(outputs.get("history", [])), int(bool(a.get("save_history"))), "output 'history'"))


WHILE.set(verify=_while_verify, block_attrs=("cond_block", "body_block"),
          name_attrs=("cond_in", "cond_out", "body_in", "body_out", "carried"))


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final loop vars (a list).

    In static mode `cond` and `body` are traced once into sub-blocks of a `while` op; a loop variable whose shape
    changes in the body gets -1 for the dims that change.

    Example:
        >>> i0, s0 = oar.to_tensor(0), oar.to_tensor(0)
        >>> i, s = oar.static.nn.while_loop(lambda i, s: i < 10, lambda i, s: [i + 1, s + i], [i0, s0])
        >>> i.item(), s.item()
        (10, 45)
    """
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    if not isinstance(loop_vars, (list, tuple)) or len(loop_vars) == 0:
        raise TypeError("while_loop: loop_vars must be a non-empty list or tuple")
    leaves, tree = flatten(list(loop_vars))
    if not any(isinstance(v, Variable) for v in leaves):
        vals = list(loop_vars)
        while bool(cond(*vals)):
            out = body(*vals)
            vals = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(vals) != len(loop_vars):
                raise ValueError(f"while_loop: body returned {len(vals)} values for {len(loop_vars)} loop vars")
        return vals
    prog = builder.default_main_program()
    parent = prog.current_block()
    init = [v if isinstance(v, Variable) else _const_in(parent, v) for v in leaves]
    shapes = [list(v.shape) for v in init]
    sgs = [v.stop_gradient for v in init]
    first_block = len(prog.blocks)
    for _ in range(4):
        del prog.blocks[first_block:]  # a retrace replaces the sub-blocks of the previous attempt
        cb, bb, cin, bin_, pred, bouts = _trace_loop(prog, cond, body, init, shapes, sgs, tree, name)
        new = [list(o.shape) if _unwritten_array(v) and o.attrs.get("written") else merge_shape(s, o.shape)
               for s, o, v in zip(shapes, bouts, init)]
        for i, (s, o) in enumerate(zip(new, bouts)):
            if s is None:
                raise ValueError(f"while_loop: loop var {i} changes rank in the body ({shapes[i]} -> {o.shape})")
        # a loop var that needs a gradient after one iteration needs it from the start
        new_sgs = [s and o.stop_gradient for s, o in zip(sgs, bouts)]
        if new == shapes and new_sgs == sgs:
            break
        shapes, sgs = new, new_sgs
    cr, cw = externals(cb, [pred.name])
    br, bw = externals(bb, [o.name for o in bouts])
    if cw:
        raise ValueError(f"while_loop: cond must not assign outer variables ({cw})")
    carried = bw
    cap = list(dict.fromkeys(cr + br + carried))
    outs = [parent.create_var(prog.unique_name("while.out" if name is None else name), s, v.dtype)
            for s, v in zip(shapes, init)]
    for o, b in zip(outs, bouts):
        o.stop_gradient = b.stop_gradient and all(sgs)
        o.attrs.update(b.attrs)
    parent.append_op("while", {"x": [v.name for v in init], "input": cap}, {"out": [o.name for o in outs] + carried},
                     {"cond_block": cb.idx, "body_block": bb.idx, "cond_in": [v.name for v in cin],
                      "cond_out": pred.name, "body_in": [v.name for v in bin_], "body_out": [o.name for o in bouts],
                      "carried": carried, "is_test": bool(is_test)}, _loc())
    return list(unflatten(tree, outs))


def _unwritten_array(v):
    return v.attrs.get("kind") == "tensor_array" and not v.attrs.get("written")


def _placeholders(block, prog, init, shapes, sgs, tag):
    out = []
    for v, s, sg in zip(init, shapes, sgs):
        p = block.create_var(prog.unique_name(f"while.{tag}"), s, v.dtype, stop_gradient=sg)
        p.attrs.update(v.attrs)
        out.append(p)
    return out


def _trace_loop(prog, cond, body, init, shapes, sgs, tree, name):
    with sub_block(prog) as cb:
        cin = _placeholders(cb, prog, init, shapes, sgs, "cond_in")
        pred = cond(*unflatten(tree, cin))
        if not isinstance(pred, Variable):
            pred = _const_in(cb, bool(pred))
    with sub_block(prog) as bb:
        bin_ = _placeholders(bb, prog, init, shapes, sgs, "x")
        out = body(*unflatten(tree, bin_))
        if not isinstance(out, (list, tuple)):
            out = [out]
        ol, otree = flatten(list(out))
        if otree != tree:
            raise ValueError(f"while_loop: body must return the same structure as loop_vars "
                             f"({len(init)} values), got {_describe(list(out))}")
        bouts = []
        for i, (o, v) in enumerate(zip(ol, init)):
            if not isinstance(o, Variable):
                o = _const_in(bb, o, v.dtype)
            if o.dtype is not v.dtype:
                raise TypeError(f"while_loop: loop var {i} has dtype {v.dtype.name} but the body returns "
                                f"{o.dtype.name}; cast it in the body")
            bouts.append(o)
    return cb, bb, cin, bin_, pred, bouts


from . import control_flow_onnx  # noqa: E402,F401  (the ONNX lowerings of cond and while)
