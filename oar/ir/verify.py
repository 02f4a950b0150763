"""The IR verifier: is a Program well formed? Run after every pass in tests (``OAR_VERIFY_PASSES=1``) and on every
program loaded from a file.

Checks, in order:
  * blocks: ``blocks[i].idx == i``, the global block has parent -1, every other block an earlier parent;
  * sub-blocks: every sub-block attribute names a block in range, nested inside the op's block, and every block
    but the global one is owned by exactly one op;
  * ops: a known type (in `schema`), known slots, outputs declared in the op's block or an ancestor, and every
    read defined before use: written by an earlier op of the block (or of an ancestor, before the op owning the
    block), a feed / data / persistable variable, or a value the owning op passes into its sub-block (a
    sub-block variable named in its attributes);
  * attributes: names the kernel accepts, values of the declared types (`OpSchema.attr_types`, then the names
    shared by all ops, `serialize.ATTR_TYPES`), the op's own structural check (`OpSchema.check`).

A problem raises `VerifyError` naming the block, the op index, the op type and the user's source line.

Example:
    >>> from oar import ir
    >>> p = ir.Program()
    >>> b = p.global_block()
    >>> _ = b.create_var('y', [2], 'float32')
    >>> _ = b.append_op('relu', {'x': ['x']}, {'out': ['y']})
    >>> ir.verify(p, {'relu': ir.OpSchema(inputs=('x',), outputs=('out',))})
    Traceback (most recent call last):
    ...
    oar.ir.verify.VerifyError: block 0 op 0 (relu): input 'x' is not declared in block 0 or its parents
"""
import os

from .printer import sub_blocks
from .serialize import ATTR_TYPES, _loose_value


class VerifyError(ValueError):
    """A malformed Program: the message names the block, op index, op type and the user's source line.

    Example:
        >>> p = oar.ir.Program()
        >>> p.blocks.append(oar.ir.Block(p, 1, 0))
        >>> try:
        ...     oar.ir.verify(p, {})
        ... except oar.ir.VerifyError as e:
        ...     print(e)
        block 1: no op owns it (a sub-block must belong to exactly one op)
    """


def _where(block, i, op):
    w = f"block {block.idx} op {i} ({op.type})"
    if op.loc:
        w += f" at {os.path.basename(str(op.loc[0]))}:{op.loc[1]}"
    return w


def verify(program, schema, feeds=()):
    """Checks that `program` is well formed against `schema` (op type -> `OpSchema`); returns it.

    Args:
        program: an `ir.Program`.
        schema: a mapping op type -> `OpSchema` (``schema.get(type)`` None for an unknown type).
        feeds: names of variables the caller fills besides the data / persistable ones.

    Raises:
        VerifyError: naming the block, op index, op type and source line of the first problem.

    Example:
        >>> p = oar.ir.Program()
        >>> b = p.global_block()
        >>> x, y = b.create_var('x', [2], is_data=True), b.create_var('y', [2])
        >>> _ = b.append_op('relu', {'x': ['x']}, {'out': ['y']})
        >>> oar.ir.verify(p, {'relu': oar.ir.OpSchema(inputs=('x',), outputs=('out',))}) is p
        True
    """
    owners = _check_blocks(program, schema)
    defined = {v.name for b in program.blocks for v in b.vars.values() if v.is_data or v.persistable}
    defined.update(feeds)
    _check_block(program, program.blocks[0], defined, _Schema(schema), owners)
    return program


class _Schema:
    """`schema` with each type's accepted attribute names computed once per verification."""

    def __init__(self, schema):
        self.schema, self.names = schema, {}

    def get(self, op_type):
        return self.schema.get(op_type)

    def attr_names(self, op_type, d):
        if op_type not in self.names:
            self.names[op_type] = d.attr_names()
        return self.names[op_type]


def _check_blocks(program, schema):
    """Block structure; returns {sub-block index: (block, op index, op)} of the op owning each sub-block."""
    blocks = program.blocks
    if not blocks:
        raise VerifyError("the program has no blocks")
    owners = {}
    for i, b in enumerate(blocks):
        if b.idx != i:
            raise VerifyError(f"block {i}: its idx is {b.idx}")
        if i == 0 and b.parent_idx != -1:
            raise VerifyError(f"block 0: the global block's parent_idx must be -1, got {b.parent_idx}")
        if i > 0 and not 0 <= b.parent_idx < i:
            raise VerifyError(f"block {i}: parent_idx {b.parent_idx} is not an earlier block")
        for j, op in enumerate(b.ops):
            for k in sub_blocks(op, schema):
                w = _where(b, j, op)
                if not i < k < len(blocks):
                    raise VerifyError(f"{w}: sub-block {k} is not a later block of the program "
                                      f"({len(blocks)} blocks)")
                p = blocks[k].parent_idx
                while p > i:
                    p = blocks[p].parent_idx
                if p != i:
                    raise VerifyError(f"{w}: sub-block {k} is not nested inside block {i}")
                if k in owners:
                    ob, oj, oop = owners[k]
                    raise VerifyError(f"{w}: sub-block {k} is already owned by {_where(ob, oj, oop)}")
                owners[k] = (b, j, op)
    for i in range(1, len(blocks)):
        if i not in owners:
            raise VerifyError(f"block {i}: no op owns it (a sub-block must belong to exactly one op)")
    return owners


def _passed_in(op, block):
    """The variables of sub-block `block` that `op` names in its attributes: values it passes in."""
    names = set()
    for a in op.attrs.values():
        for n in ([a] if isinstance(a, str) else a if isinstance(a, (list, tuple)) else ()):
            if isinstance(n, str) and n in block.vars:
                names.add(n)
    return names


def _check_block(program, block, defined, schema, owners):
    for i, op in enumerate(block.ops):
        w = _where(block, i, op)
        d = schema.get(op.type)
        if d is None:
            raise VerifyError(f"{w}: unknown op type (not in the schema)")
        _check_slots(op, d, block, w, defined)
        _check_attrs(op, d, schema.attr_names(op.type, d), w)
        for k in sub_blocks(op, schema):
            sub = program.blocks[k]
            _check_block(program, sub, defined | _passed_in(op, sub), schema, owners)
        defined.update(op.output_names())


def _check_slots(op, d, block, w, defined):
    for field, slots, names in (("input", d.inputs, op.inputs), ("output", d.outputs, op.outputs)):
        known = {s.rstrip("*") for s in slots}
        for slot, ns in names.items():
            if slot not in known:
                raise VerifyError(f"{w}: {field} slot {slot!r} is not one of {sorted(known)}")
            listed = d.lowered or (slot + "*") in slots or (field == "input" and d.variadic)
            if not listed and len(ns) != 1:
                raise VerifyError(f"{w}: {field} slot {slot!r} must name exactly one variable, got {list(ns)}")
            for n in ns:
                if block._find_var_recursive(n) is None:
                    raise VerifyError(f"{w}: {field} {n!r} is not declared in block {block.idx} or its parents")
                if field == "input" and n not in defined:
                    raise VerifyError(f"{w}: input {n!r} is read before any op writes it (and it is not a feed, "
                                      "data or persistable variable)")


def _check_attrs(op, d, accepted, w):
    for k, a in op.attrs.items():
        if accepted is not None and k not in accepted and not k.startswith("_"):
            raise VerifyError(f"{w}: attribute {k!r} is not one of the op's {sorted(accepted)}")
        rule = d.attr_types.get(k) or ATTR_TYPES.get(k)
        if rule is not None:
            value = _loose_value(a, w)  # tuples and NumPy scalars as their JSON form
            if not rule[0](value):
                raise VerifyError(f"{w}: attribute {k!r} must be {rule[1]}, got {a!r:.60}")
    if d.check is not None:
        problem = d.check(op.inputs, op.outputs, {k: _loose_value(a, w) for k, a in op.attrs.items()})
        if problem is not None:
            raise VerifyError(f"{w}: {problem}")
