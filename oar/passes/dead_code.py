"""Dead-code elimination: drop ops whose outputs nobody needs, then the variables nobody uses.

Needs: ``keep``, the names the caller fetches. Guarantees: every kept name is computed exactly as before;
ops with side effects (print/assert, writes to persistable variables, control flow containing them) stay;
feed variables stay; parameters no op reads are dropped from the program (their values stay in the scope).
Sub-blocks are kept whole when their owning op is live.

Example:
    >>> p = dead_code_elimination(program, keep=['fc.tmp_1'])
"""
from ..graph.liveness import needed_ops, op_reads
from .contract import verified


@verified
def dead_code_elimination(program, keep=()):
    """Returns a copy of `program` without the ops and variables that `keep` does not depend on."""
    keep = list(keep)
    if not keep:
        raise ValueError("dead_code_elimination needs the names to keep (the fetched outputs)")
    p = program.clone()
    gb = p.global_block()
    kept = needed_ops(gb.ops, keep)
    removed_ops = len(gb.ops) - len(kept)
    gb.ops = kept
    used = set(keep)
    for op in gb.ops:
        used.update(op_reads(op))
        used.update(op.output_names())
    dropped = [n for n, v in gb.vars.items() if n not in used and not v.is_data]
    for n in dropped:
        del gb.vars[n]
    p._bump()
    p.provenance.append(f"dead_code_elimination: removed {removed_ops} ops, {len(dropped)} variables")
    return p
