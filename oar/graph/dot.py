"""A Program as a Graphviz ``dot`` graph: variables are ellipses, ops are boxes, sub-blocks are clusters.

Feeds are green, fetches orange and persistable variables (weights) grey; an edge carries the op's slot name.
`oar inspect PATH --dot FILE` writes it for a saved model; render with ``dot -Tsvg FILE -o model.svg``.

Example:
    >>> oar.enable_static()
    >>> main = oar.static.Program()
    >>> with oar.static.program_guard(main):
    ...     x = oar.static.data('x', [None, 3])
    ...     y = oar.nn.functional.relu(x)
    >>> oar.disable_static()
    >>> from oar.graph.dot import program_to_dot
    >>> text = program_to_dot(main, feeds=['x'], fetches=[y.name])
    >>> text.splitlines()[0]
    'digraph program {'
"""
from ..ir.printer import block_attrs, format_type, format_value, sub_blocks

__all__ = ["program_to_dot"]
_MAX_ATTRS, _MAX_VALUE = 4, 32


def _q(s):
    """A dot quoted string."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _declaring_block(block, name):
    """Index of the block (this one or an ancestor) that declares `name`, or this block's when none does."""
    b = block
    while b is not None:
        if name in b.vars:
            return b.idx
        b = b.program.blocks[b.parent_idx] if b.parent_idx >= 0 else None
    return block.idx


def _op_label(op):
    owned = block_attrs(op)
    attrs = [(k, v) for k, v in op.attrs.items() if not k.startswith("_") and k not in owned]
    lines = [op.type]
    for k, v in attrs[:_MAX_ATTRS]:
        text = format_value(v)
        lines.append(f"{k}={text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 3] + '...'}")
    if len(attrs) > _MAX_ATTRS:
        lines.append(f"(+{len(attrs) - _MAX_ATTRS} attrs)")
    return "\n".join(lines)


class _Writer:
    def __init__(self, program, feeds, fetches):
        self.program, self.feeds, self.fetches = program, set(feeds), set(fetches)
        self.lines, self.var_nodes, self.seen = [], set(), set()
        self.decls = {}  # block index -> the declarations of its variables, placed at the top of its cluster
        self.pads = {}

    def var(self, block, name, pad):
        bi = _declaring_block(block, name)
        node = f"v{bi}/{name}"
        if node not in self.var_nodes:
            self.var_nodes.add(node)
            v = self.program.blocks[bi].vars.get(name)
            label = name + (f"\n{format_type(v)}" if v is not None else "")
            style = ""
            if name in self.feeds:
                style = ", style=filled, fillcolor=palegreen"
            elif name in self.fetches:
                style = ", style=filled, fillcolor=orange"
            elif v is not None and v.persistable:
                style = ", style=filled, fillcolor=lightgrey"
            if bi not in self.decls:  # declared in a block not drawn yet: draw it where it is used
                bi = block.idx
            self.decls[bi].append(f"{self.pads[bi]}{_q(node)} [label={_q(label)}, shape=ellipse{style}];")
        return node

    def block(self, block, pad):
        self.seen.add(block.idx)
        self.decls[block.idx], self.pads[block.idx] = [], pad
        self.lines.append(self.decls[block.idx])
        for k, op in enumerate(block.ops):
            node = f"op{block.idx}/{k}"
            self.lines.append(f"{pad}{_q(node)} [label={_q(_op_label(op))}, shape=box, style=rounded];")
            for slot, names in op.inputs.items():
                for n in names:
                    self.lines.append(f"{pad}{_q(self.var(block, n, pad))} -> {_q(node)} [label={_q(slot)}];")
            for slot, names in op.outputs.items():
                for n in names:
                    self.lines.append(f"{pad}{_q(node)} -> {_q(self.var(block, n, pad))} [label={_q(slot)}];")
            for bi in sub_blocks(op):
                if 0 <= bi < len(self.program.blocks) and bi not in self.seen:
                    self.cluster(self.program.blocks[bi], op, node, pad)

    def cluster(self, block, owner, owner_node, pad):
        self.lines.append(f"{pad}subgraph {_q(f'cluster_block{block.idx}')} {{")
        self.lines.append(f"{pad}  label={_q(f'block {block.idx} ({owner.type})')}; style=dashed;")
        anchor = f"block{block.idx}"
        self.lines.append(f"{pad}  {_q(anchor)} [shape=point, label=\"\"];")
        self.block(block, pad + "  ")
        self.lines.append(f"{pad}}}")
        self.lines.append(f"{pad}{_q(owner_node)} -> {_q(anchor)} [style=dashed, arrowhead=none];")


def program_to_dot(program, feeds=(), fetches=()):
    """The dot text of `program`; `feeds` / `fetches` (variable names) are highlighted.

    Args:
        program: an `oar.static.Program`.
        feeds: input variable names (drawn green).
        fetches: output variable names (drawn orange).

    Example:
        >>> from oar.graph.dot import program_to_dot
        >>> program_to_dot(oar.static.Program()).splitlines()[-1]
        '}'
    """
    w = _Writer(program, feeds, fetches)
    w.lines += ["digraph program {", "  rankdir=TB;", "  node [fontname=\"Helvetica\", fontsize=10];",
                "  edge [fontname=\"Helvetica\", fontsize=8];"]
    w.block(program.global_block(), "  ")
    for b in program.blocks[1:]:
        if b.idx not in w.seen:  # a block no op refers to: drawn on its own
            w.lines.append(f"  subgraph {_q(f'cluster_block{b.idx}')} {{ label={_q(f'block {b.idx}')};")
            w.block(b, "    ")
            w.lines.append("  }")
    w.lines.append("}")
    return "\n".join(x for item in w.lines for x in ([item] if isinstance(item, str) else item)) + "\n"
