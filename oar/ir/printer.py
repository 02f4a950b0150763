"""The text form of a Program (grammar in docs/ir.md): readable, stable, diffable.

Example:
    { // block 0
      var x : float32[-1, 3]  (feed)
      persist param w : float32[3, 2]
      matmul.tmp_0 = matmul(x=x, y=w) {transpose_x=false, transpose_y=false}   # model.py:12
    }
"""
import json
import os

from .schema import INSTALLED

INDENT = "  "


def format_type(v):
    if v.attrs.get("kind") == "tensor_array":
        return f"array<{v.dtype.name}>"
    return f"{v.dtype.name}[{', '.join(str(d) for d in v.shape)}]"


def format_var(v):
    """``[persist] (var|param) NAME : TYPE [(feed)]``"""
    head = ("persist " if v.persistable else "") + ("param" if v.is_parameter else "var")
    tail = "  (feed)" if v.is_data else ""
    if v.is_parameter and not v.trainable:
        tail += "  (frozen)"
    return f"{head} {v.name} : {format_type(v)}{tail}"


def format_value(a):
    if a is None:
        return "null"
    if a is True:
        return "true"
    if a is False:
        return "false"
    if isinstance(a, float):
        return repr(a) if a == a and a not in (float("inf"), float("-inf")) else \
            ("nan" if a != a else ("inf" if a > 0 else "-inf"))
    if isinstance(a, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in a.items()) + "}"
    if isinstance(a, str):
        return json.dumps(a)
    return str(a)


def _names(names, is_list):
    return "[" + ", ".join(names) + "]" if is_list or len(names) != 1 else names[0]


def _list_slots(op):
    """Slots that are lists by definition (variadic inputs / `name*` outputs), so one name still prints as [a]."""
    d = INSTALLED.get(op.type)
    ins, outs = d.list_slots() if d is not None else (set(), set())
    ins.update(op.attrs.get("_list_inputs", ()))
    outs.update(op.attrs.get("_list_outputs", ()))
    return ins, outs


def format_op(op, with_loc=True):
    """One line: ``OUTS = TYPE(slot=name, ...) {attr=value, ...}   # file.py:LINE``."""
    lin, lout = _list_slots(op)
    args = ", ".join(f"{k}={_names(v, k in lin)}" for k, v in op.inputs.items())
    outs = [(k, v) for k, v in op.outputs.items()]
    if not outs:
        lhs = ""
    elif len(outs) == 1:
        lhs = _names(outs[0][1], outs[0][0] in lout) + " = "
    else:
        lhs = "(" + ", ".join(f"{k}={_names(v, k in lout)}" for k, v in outs) + ") = "
    attrs = {k: v for k, v in op.attrs.items() if not k.startswith("_")}
    text = f"{lhs}{op.type}({args})"
    if attrs:
        text += " {" + ", ".join(f"{k}={format_value(v)}" for k, v in attrs.items()) + "}"
    if with_loc and op.loc:
        text += f"   # {os.path.basename(str(op.loc[0]))}:{op.loc[1]}"
    return text


def block_attrs(op, schema=INSTALLED):
    """The names of `op`'s attributes that hold sub-block indices (its op type's ``block_attrs`` in `schema`, by
    default the installed one; none for a type the schema does not know)."""
    s = schema.get(op.type)
    return [k for k in s.block_attrs if k in op.attrs] if s is not None else []


def sub_blocks(op, schema=INSTALLED):
    """Indices of the blocks an op owns, in attribute order."""
    out = []
    for k in block_attrs(op, schema):
        v = op.attrs[k]
        if isinstance(v, int) and not isinstance(v, bool):
            out.append(v)
        elif isinstance(v, list):
            out.extend(int(i) for i in v)
    return out


def format_block(block, depth=0, seen=None):
    pad = INDENT * depth
    head = f"{pad}{{ // block {block.idx}" + (f", parent {block.parent_idx}" if block.parent_idx >= 0 else "")
    lines = [head]
    for v in block.vars.values():
        lines.append(pad + INDENT + format_var(v))
    seen = set() if seen is None else seen
    seen.add(block.idx)
    for op in block.ops:
        lines.append(pad + INDENT + format_op(op))
        for i in sub_blocks(op):
            if 0 <= i < len(block.program.blocks) and i not in seen:
                lines.append(format_block(block.program.blocks[i], depth + 2, seen))
    lines.append(pad + "}")
    return "\n".join(lines)


def format_program(program):
    """The whole program: block 0 with every sub-block printed under the op that owns it."""
    seen = set()
    text = format_block(program.global_block(), 0, seen)
    rest = [b for b in program.blocks[1:] if b.idx not in seen]
    for b in rest:  # blocks no op refers to (left over from a rebuilt loop body): printed last
        text += "\n" + format_block(b, 0, seen)
    return text
