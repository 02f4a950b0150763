"""Dead-code elimination: drop ops whose outputs nobody needs, then the variables nobody uses.

Needs: ``keep``, the names the caller fetches. Guarantees: every kept name is computed exactly as before;
ops with side effects (print/assert, writes to persistable variables, control flow containing them) stay;
feed variables stay; parameters no op reads are dropped from the program and from ``program.bound``.
Sub-blocks are kept whole when their owning op is live.

Example:
    >>> p = dead_code_elimination(program, keep=['fc.tmp_1'])
"""
from .graph import names_read_inside
from .contract import verified


@verified
def dead_code_elimination(program, keep=()):
    """Returns a copy of `program` without the ops and variables that `keep` does not depend on."""
    keep = list(keep)
    if not keep:
        raise ValueError("dead_code_elimination needs the names to keep (the fetched outputs)")
    p = program.clone()
    gb = p.global_block()
    live = set(keep)
    kept = []
    for op in reversed(gb.ops):
        if any(n in live for n in op.output_names()) or op.has_side_effects():
            kept.append(op)
            live.update(op.input_names())
            live.update(names_read_inside(p, op))
    removed_ops = len(gb.ops) - len(kept)
    gb.ops = kept[::-1]
    used = set(live)
    for op in gb.ops:
        used.update(op.output_names())
    dropped = [n for n, v in gb.vars.items() if n not in used and not v.is_data]
    for n in dropped:
        del gb.vars[n]
        p.bound.pop(n, None)
    p._bump()
    p.provenance.append(f"dead_code_elimination: removed {removed_ops} ops, {len(dropped)} variables")
    return p
