"""Writes into persistable variables made direct: ``t = op(...)`` followed later by ``assign(t) -> P`` (P a
persistable variable: a parameter, an optimizer accumulator, a kept gradient) becomes ``P = op(...)``.

A traced training step (`oar.jit.trace`) replays its writes into outside tensors as `assign` ops at the end of
the program (`recorder.Recorder._replay_writes`); after this pass its optimizer update ops write their own
parameter and accumulator variables, the shape the captured step (`oar.jit.train_step`) has, so
`fuse_optimizer_updates` can fuse them into in-place multi-tensor updates. It is the first pass of the training
pipeline (`oar.jit.train_step.train_passes()`), shared by captured and traced steps.

Needs: nothing. Guarantees: every variable, persistable or kept, gets the same value as before. A pair is folded
only when `t` (not persistable, not fed, not kept) is written by exactly that op and read by exactly that
assign, `t` and `P` have the same dtype and shape, no op between the two reads or writes `P` (sub-blocks
included), and the producing op owns no sub-block: then every reader of `P` sees the same value, and `t` had no
other reader.

Example:
    >>> p = fold_assign_writes(program, keep=['loss'])   # adam_update -> tmp; assign(tmp) -> w  =>  adam_update -> w
"""
from ..graph.liveness import names_in_sub_blocks
from ..ir.printer import sub_blocks
from .contract import verified
from .graph import consumers


def _touches(op, name):
    return name in op.input_names() or name in op.output_names() or \
        (sub_blocks(op) and name in names_in_sub_blocks(op))


@verified
def fold_assign_writes(program, keep=()):
    """Returns a copy of `program` whose trailing ``assign(t) -> persistable`` copies are folded into the ops
    that compute `t`."""
    p = program.clone()
    gb = p.global_block()
    keep = set(keep)
    readers = consumers(p)
    writer = {}
    for k, op in enumerate(gb.ops):
        for n in op.output_names():
            writer[n] = None if n in writer else k   # None: written more than once
    for b in p.blocks[1:]:
        for op in b.ops:
            for n in op.output_names():
                writer[n] = None
    drop = set()
    for j, op in enumerate(gb.ops):
        if op.type != "assign" or len(op.input_names()) != 1 or len(op.output_names()) != 1:
            continue
        t, dst = op.input_names()[0], op.output_names()[0]
        tv, pv = gb.vars.get(t), gb.vars.get(dst)
        k = writer.get(t)
        if tv is None or pv is None or k is None or k >= j or not pv.persistable or tv.persistable or tv.is_data \
                or t in keep or readers.get(t, 0) != 1 or tv.dtype != pv.dtype or list(tv.shape) != list(pv.shape):
            continue
        producer = gb.ops[k]
        if sub_blocks(producer) or dst in producer.output_names() or \
                any(_touches(gb.ops[i], dst) for i in range(k + 1, j) if i not in drop):
            continue
        for names in producer.outputs.values():
            names[:] = [dst if n == t else n for n in names]
        del gb.vars[t]
        drop.add(j)
    gb.ops = [op for i, op in enumerate(gb.ops) if i not in drop]
    p._bump()
    p.provenance.append(f"fold_assign_writes: {len(drop)} assign(s) into persistable variables folded")
    return p
