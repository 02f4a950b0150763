"""Constant folding: run ops whose inputs are all constants once, now, and store their results as constants.

Needs: an inference program: persistable variables bound in ``program.bound`` (and never written by an op)
hold fixed values. Guarantees: folded outputs become persistable variables bound to their values, so every
result is unchanged; random ops, ops with side effects or sub-blocks, and results larger than
``max_elements`` are left alone. Run dead-code elimination afterwards to drop inputs nobody reads any more.

Example:
    >>> p = constant_folding(program)   # e.g. transpose(weight) becomes a weight of its own
"""
import math

import numpy as np

from ..tensor.tensor import Tensor
from ..static.budget import out_elements
from .graph import arg_names, opdef, out_names, sub_blocks
from .contract import verified


@verified
def constant_folding(program, keep=(), max_elements=1 << 22):
    """Returns a copy of `program` with every all-constant op replaced by its precomputed result."""
    p = program.clone()
    gb = p.global_block()
    written = {n for b in p.blocks for op in b.ops for n in op.output_names()}
    values = {n: t._data for n, t in p.bound.items() if n in gb.vars and gb.vars[n].persistable and n not in written}
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
            p.bound[n] = Tensor(r, stop_gradient=True, name=n)
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
