"""Multi-tensor optimizer updates: the per-parameter update ops of one optimizer (same op, attributes, learning
rate and dtype) become one ``multi_<op>`` op (`oar.optimizer.multi_tensor`) that updates all those parameters with
whole-buffer NumPy calls, found in the op registry so this pass imports nothing above the ops
(BuildStrategy.fuse_all_optimizer_ops; always on for captured training steps).

Needs: the update ops are in the global block, each writes its outputs over its own parameter and accumulator
inputs (the multi-tensor kernels update in place), and no other op between the first and the last of a group
reads or writes a parameter or accumulator of the group. Guarantees: every parameter and accumulator variable gets the
same value as before (the multi-tensor kernels repeat the per-parameter float operations).

Example:
    >>> p = fuse_optimizer_updates(program)   # adam_update x N -> multi_adam_update {n=N}
"""
from ..ops.registry import REGISTRY
from .graph import arg_names, out_names
from .contract import verified


def _multi(op_type):
    """The multi-tensor op for an update op type (registered with the optimizers), or None."""
    return REGISTRY.get(f"multi_{op_type}")


def _group_key(block, op):
    ins = arg_names(op)
    dtype = block.vars[ins[0]].dtype.name if ins[0] in block.vars else None
    return (op.type, ins[-1], dtype, tuple(sorted((k, repr(v)) for k, v in op.attrs.items())))


def _in_place(op):
    ins, outs = arg_names(op), out_names(op)
    return outs == [ins[0]] + ins[2:2 + len(outs) - 1]


@verified
def fuse_optimizer_updates(program, keep=()):
    """Returns a copy of `program` with each group of same-kind update ops fused into one multi-tensor op."""
    p = program.clone()
    gb = p.global_block()
    groups = {}
    for k, op in enumerate(gb.ops):
        if _multi(op.type) is not None and _in_place(op):
            groups.setdefault(_group_key(gb, op), []).append(k)
    replace, drop = {}, set()
    for key, idx in groups.items():
        if len(idx) < 2:
            continue
        members = set(idx)
        touched = {n for k in idx for n in out_names(gb.ops[k])}
        between = [gb.ops[k] for k in range(idx[0], idx[-1] + 1) if k not in members]
        if any(touched & (set(op.input_names()) | set(op.output_names())) for op in between):
            continue
        ops = [gb.ops[k] for k in idx]
        n = len(ops)
        ins = [arg_names(op) for op in ops]
        outs = [out_names(op) for op in ops]
        flat_in = [ins[j][i] for i in range(len(ins[0]) - 1) for j in range(n)] + [ins[0][-1]]
        flat_out = [outs[j][i] for i in range(len(outs[0])) for j in range(n)]
        fused = type(ops[0])(gb, _multi(key[0]).name, {"x": flat_in}, {"out": flat_out},
                             {**ops[0].attrs, "n": n}, ops[-1].loc, ops[-1].role)
        replace[idx[-1]] = fused
        drop.update(idx[:-1])
    gb.ops = [replace.get(k, op) for k, op in enumerate(gb.ops) if k not in drop]
    p._bump()
    p.provenance.append(f"fuse_optimizer_updates: {len(replace)} multi-tensor update op(s) for "
                        f"{len(drop) + len(replace)} parameters")
    return p
