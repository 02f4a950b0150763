"""Constant folding: run ops whose inputs are all constants once, now, and store their results as constants.

Needs: an inference program: the persistable variables `scope` holds values for (and no op writes) are fixed.
Guarantees: folded outputs become persistable variables whose values are written into `scope`, so every
result is unchanged; random ops, ops with side effects or sub-blocks, and results larger than
``max_elements`` are left alone. Run dead-code elimination afterwards to drop inputs nobody reads any more.

Example:
    >>> p = constant_folding(program, scope=scope)   # e.g. transpose(weight) becomes a weight of its own
"""
import math

import numpy as np

from ..graph.budget import out_elements
from .graph import arg_names, opdef, out_names, sub_blocks, values_scope
from .contract import verified


@verified
def constant_folding(program, keep=(), max_elements=1 << 22, scope=None):
    """Returns a copy of `program` with every all-constant op replaced by its precomputed result (values read
    from and written to `scope`, `global_scope()` when None)."""
    scope = values_scope(scope)
    p = program.clone()
    gb = p.global_block()
    written = {n for b in p.blocks for op in b.ops for n in op.output_names()}
    values = {n: scope.array(n) for n, v in gb.vars.items() if v.persistable and n not in written and n in scope}
    kept, folded = [], 0
    for op in gb.ops:
        d = opdef(op)
        args = arg_names(op)
        outs = out_names(op)
        if (d is None or d.random or d.lower is not None or sub_blocks(op) or not outs or op.has_side_effects()
                or any(n not in values for n in args) or len(outs) != len(op.output_names())
                or (not args and _total(op) > max_elements)):
            kept.append(op)
            continue
        try:
            if d.out_elements is not None and out_elements(d, [values[n] for n in args], op.attrs) > max_elements:
                kept.append(op)  # too large to keep as a constant: computed when the program runs
                continue
            with np.errstate(all="ignore"):
                res = d.impl(*[values[n] for n in args], **op.attrs)
        except Exception:  # leave it to fail (or not) at run time, where the error names the user's line
            kept.append(op)
            continue
        res = res if isinstance(res, (tuple, list)) else (res,)
        if len(res) != len(outs) or sum(np.size(r) for r in res) > max_elements:
            kept.append(op)
            continue
        for n, r in zip(outs, res):
            r = np.asarray(r)
            v = gb.vars[n]
            v.persistable, v.stop_gradient, v.shape = True, True, list(r.shape)
            values[n] = r
            scope.vars[n] = r
        folded += 1
    gb.ops = kept
    p._bump()
    p.provenance.append(f"constant_folding: folded {folded} ops")
    return p


def _total(op):
    shape = op.attrs.get("shape")
    if isinstance(shape, list) and all(isinstance(s, int) for s in shape):
        return math.prod(shape)
    return 0
