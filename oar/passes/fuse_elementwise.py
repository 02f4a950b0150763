"""Elementwise chain fusion: a tree of elementwise ops (add, subtract, multiply, divide, maximum, minimum, neg,
exp, log, sqrt, square, abs, tanh, sigmoid, relu) whose intermediate values each have one reader becomes one
``fused_elementwise`` op. Its kernel runs the chain as NumPy ufunc calls with ``out=`` buffers: an intermediate
is written over a dead operand's buffer (in place), and the scratch buffers are allocated once per compiled plan
and reused by every later run (no per-step allocation of same-shape temporaries). The final value gets a fresh
array each run, unless the pass proved that it never leaves the run (``reuse_out``): then its buffer is reused too.

Needs: top-level ops, float operands and results with fully known shapes, intermediates neither kept (fetched),
persistable, nor read by a sub-block, and no op between a member and the chain's last op overwrites its inputs.
An op joins a chain only when its other operands exist when the chain starts (else the chain's earlier operands
would stay alive until the late one is made: an accumulation over time steps stays a run of separate adds).
Guarantees: every kept value is bitwise unchanged (the same ufuncs in the same order; dtypes taken from a first
run without ``out=``). The fused op has no gradient rule: run the pass on programs whose backward is built (a
captured training step) or that are not differentiated.

Example:
    >>> p = fuse_elementwise(program, keep=['out'])   # tanh(a * b + c) -> fused_elementwise {steps=...}
"""
from ..kernels import fused
from ..ops.registry import defop
from .graph import arg_names, names_read_inside, out_names, sub_blocks
from .contract import verified

# op type -> steps on (arg0, arg1, ...); a step is (ufunc name, operands): "$k" = argument k, "@" = previous step
_X, _Y, _P = "$0", "$1", "@"
RECIPES = {
    "add": [("add", (_X, _Y))], "subtract": [("subtract", (_X, _Y))], "multiply": [("multiply", (_X, _Y))],
    "divide": [("true_divide", (_X, _Y))], "maximum": [("maximum", (_X, _Y))], "minimum": [("minimum", (_X, _Y))],
    "neg": [("negative", (_X,))], "exp": [("exp", (_X,))], "log": [("log", (_X,))], "sqrt": [("sqrt", (_X,))],
    "square": [("square", (_X,))], "abs": [("absolute", (_X,))], "tanh": [("tanh", (_X,))],
    "relu": [("maximum", (_X, 0))],
    # oar's float sigmoid kernel: 1 / (1 + exp(-x))
    "sigmoid": [("negative", (_X,)), ("exp", (_P,)), ("add", (_P, 1)), ("true_divide", (1, _P))],
}
_ALLOCATING = set(RECIPES) | {"matmul", "fused_elementwise", "sum", "mean"}  # readers that never alias an input


def _lower(compiler, op):
    """The executor's kernel: generated ufunc calls with scratch buffers of its own, reused across runs of the
    plan (`oar.kernels.fused.elementwise_chain_runner`)."""
    return fused.elementwise_chain_runner(op.attrs["steps"], op.attrs["n_slots"], op.attrs.get("reuse_out", False))


def _infer(metas, steps, n_slots, reuse_out=False):
    raise NotImplementedError("fused_elementwise is created by the fuse_elementwise pass with its output declared")


FUSED_ELEMENTWISE = defop("fused_elementwise", fused.elementwise_chain, inputs=("x",), variadic=True,
                          infer=_infer, lower=_lower, differentiable=False, onnx_reason="not lowered yet")


def _fusable(block, op):
    if op.type not in RECIPES or op.attrs or len(out_names(op)) != 1:
        return False
    for n in arg_names(op) + out_names(op):
        v = block.vars.get(n)
        if v is None or v.dtype.kind != "f" or any(d < 0 for d in v.shape):
            return False
    return True


@verified
def fuse_elementwise(program, keep=()):
    """Returns a copy of `program` with each elementwise tree of two or more ops fused into one op."""
    p = program.clone()
    gb = p.global_block()
    keep = set(keep)
    readers = {}
    for b in p.blocks:
        for op in b.ops:
            for n in set(op.input_names()):
                readers.setdefault(n, []).append(op)
    inner = {n for op in gb.ops if sub_blocks(op) for n in names_read_inside(p, op)}
    producer, group_of, fusable = {}, {}, {}
    for k, op in enumerate(gb.ops):
        fusable[k] = _fusable(gb, op)
        for n in op.output_names():
            producer[n] = k
    groups = {}  # root index -> member indices (topological)
    for k, op in enumerate(gb.ops):
        if not fusable[k]:
            continue
        members = [k]
        args = arg_names(op)
        for n in args:
            j = producer.get(n)
            if (j is not None and j < k and fusable[j] and j in group_of and len(readers.get(n, ())) == 1
                    and n not in keep and n not in inner and not gb.vars[n].persistable
                    and not _made_later(gb, args, n, groups[group_of[j]][0], producer)):
                members = groups.pop(group_of[j]) + members
                members.sort()
        for m in members:
            group_of[m] = k
        groups[k] = members
    replace, drop, fused = {}, set(), 0
    for root, members in groups.items():
        if len(members) < 2 or not _inputs_stable(gb, members):
            continue
        replace[root] = _fused_op(gb, members, keep, readers)
        drop.update(m for m in members if m != root)
        fused += len(members)
    gone = [n for k in drop for n in out_names(gb.ops[k])]  # the fused chains' intermediates
    gb.ops = [replace.get(k, op) for k, op in enumerate(gb.ops) if k not in drop]
    for n in gone:
        gb.vars.pop(n, None)
    p._bump()
    p.provenance.append(f"fuse_elementwise: {fused} ops in {len(replace)} fused chains")
    return p


def _made_later(block, args, n, first, producer):
    """Whether an operand of the op (other than `n`, the chain's value) is computed from other values after
    `first`, the chain's first op: fused, the chain would wait for it at the end, keeping every earlier operand
    alive until then (a gradient summed over an RNN's time steps: 20 terms held instead of added as each is made).
    A constant made there (an op reading nothing, `full`) does not count."""
    for m in args:
        j = producer.get(m, -1)
        if m != n and j > first and block.ops[j].input_names():
            return True
    return False


def _inputs_stable(block, members):
    """No op between a member and the chain's last op (where the fused op goes) overwrites what the member reads."""
    member_set, root = set(members), members[-1]
    for k in members[:-1]:
        reads = set(arg_names(block.ops[k]))
        if any(reads & set(block.ops[j].output_names()) for j in range(k + 1, root) if j not in member_set):
            return False
    return True


def _fused_op(block, members, keep, readers):
    ops = [block.ops[k] for k in members]
    produced = {out_names(op)[0]: i for i, op in enumerate(ops)}
    inputs, steps, step_of = [], [], {}
    slots, n_slots = {}, 0   # step index -> buffer slot
    shape_of = {}
    for i, op in enumerate(ops):
        args = arg_names(op)
        out = out_names(op)[0]
        v = block.vars[out]
        for name, operands in RECIPES[op.type]:
            resolved = []
            for o in operands:
                if isinstance(o, str) and o.startswith("$"):
                    n = args[int(o[1:])]
                    if n in produced and produced[n] < i:
                        resolved.append(["t", step_of[n]])
                    else:
                        if n not in inputs:
                            inputs.append(n)
                        resolved.append(["a", inputs.index(n)])
                elif o == "@":
                    resolved.append(["t", len(steps) - 1])
                else:
                    resolved.append(["c", o])
            # write over a dead operand of the same shape and dtype (intermediates die at their one reader)
            slot = None
            for r in resolved:
                if r[0] == "t" and shape_of.get(r[1]) == (tuple(v.shape), v.dtype.name) and r[1] in slots:
                    slot = slots.pop(r[1])
                    break
            if slot is None:
                slot, n_slots = n_slots, n_slots + 1
            steps.append([name, resolved, slot])
            shape_of[len(steps) - 1] = (tuple(v.shape), v.dtype.name)
            slots[len(steps) - 1] = slot
        step_of[out] = len(steps) - 1
    root_out = out_names(ops[-1])[0]
    reuse_out = root_out not in keep and not block.vars[root_out].persistable and \
        all(r.type in _ALLOCATING for r in readers.get(root_out, ()))
    return type(ops[-1])(block, "fused_elementwise", {"x": inputs}, {"out": [root_out]},
                         {"steps": steps, "n_slots": n_slots, "reuse_out": reuse_out}, ops[-1].loc, ops[-1].role)
