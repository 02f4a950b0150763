"""Liveness over a Block: which ops are needed, which values are read before they are written, where each value
is read for the last time. One analysis for the executor (pruning, plan parameters, ``del`` after a last use),
the dead-code pass and the dy2static runner (what the backward program reads from the forward).

An op owning sub-blocks (``cond``, ``while``) reads what its sub-blocks read or write from outer scopes: every
name used inside them counts as read by the op (`op_reads`), so the producers of those values stay live. Ops
with side effects (print, assert, writes to persistable variables, control flow containing them) are always
needed.

Example:
    >>> from oar.graph.liveness import needed_ops, read_before_written
    >>> oar.enable_static()
    >>> main = oar.static.Program()
    >>> with oar.static.program_guard(main):
    ...     x = oar.static.data('x', [2])
    ...     y = x * 2.0
    ...     z = x + 1.0          # nobody fetches z
    >>> oar.disable_static()
    >>> ops = main.global_block().ops
    >>> [op.type for op in needed_ops(ops, [y.name])]
    ['full', 'multiply']
    >>> read_before_written(ops)
    ['x']
"""
from ..ir.printer import sub_blocks


def names_in_sub_blocks(op):
    """Every name read or written by the ops of `op`'s sub-blocks, nested ones included (they may use outer
    variables, and a write there may or may not happen, so the outer value stays live)."""
    program = op.block.program
    names, seen, todo = set(), set(), list(sub_blocks(op))
    while todo:
        idx = todo.pop()
        if idx in seen or idx >= program.num_blocks:
            continue
        seen.add(idx)
        for o in program.block(idx).ops:
            names.update(o.input_names())
            names.update(o.output_names())
            todo.extend(sub_blocks(o))
    return names


def op_reads(op):
    """The names `op` reads: its inputs, then what its sub-blocks use (`names_in_sub_blocks`)."""
    reads = op.input_names()
    if sub_blocks(op):
        seen = set(reads)
        reads = reads + sorted(n for n in names_in_sub_blocks(op) if n not in seen)
    return reads


def needed_ops(ops, out_names, fed=(), side_effects=None):
    """The ops of `ops` (in order) needed to compute `out_names` given the `fed` names, plus every op with side
    effects. An op is needed when it writes a name that a later needed op (or the caller) reads before anything
    else writes it; a fed name needs no producer. `side_effects(op)` defaults to ``op.has_side_effects()``."""
    side_effects = side_effects or (lambda op: op.has_side_effects())
    fed = set(fed)
    needed = set(out_names) - fed
    kept = []
    for op in reversed(ops):
        outs = op.output_names()
        if side_effects(op) or any(n in needed for n in outs):
            kept.append(op)
            needed.difference_update(outs)
            needed.update(n for n in op_reads(op) if n not in fed)
    kept.reverse()
    return kept


def read_before_written(ops, defined=()):
    """Names the ops read (their inputs) before any of them writes them, in first-read order: what running
    `ops` needs from outside, besides `defined`."""
    written, free = set(defined), []
    for op in ops:
        for n in op.input_names():
            if n not in written and n not in free:
                free.append(n)
        written.update(op.output_names())
    return free


def last_reads(ops):
    """name -> the index in `ops` of the last op that reads it."""
    last = {}
    for k, op in enumerate(ops):
        for n in op.input_names():
            last[n] = k
    return last


def dies_at(ops, k, last, keep=()):
    """The names op `k` reads or writes that no later op reads (given ``last = last_reads(ops)``) and that are
    not in `keep`: values the executor can release right after op `k`."""
    op = ops[k]
    return [n for n in dict.fromkeys(op.input_names() + op.output_names()) if last.get(n, -1) <= k and n not in keep]
