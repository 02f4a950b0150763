"""The Program IR: a `Program` holds `Block`s; a Block holds `Var`s and `Operator`s. Plain data.

Printing (`docs/ir.md` grammar), the JSON round trip and the verifier live in `printer.py`, `serialize.py`
and `verify.py`. What an op type means (slots, attributes, side effects) comes from a schema (`schema.py`).
"""
from .schema import INSTALLED
from .var import Var


class Operator:
    """One op in a Block: ``type``, named ``inputs``/``outputs`` (slot -> [var names]), ``attrs``, and ``loc``,
    the user's ``(file, line, source text)`` that created it. Sub-blocks are attrs holding block indices.
    ``role`` is None for forward ops, ``"backward"`` / ``"optimize"`` for ops appended by `gradients` /
    `minimize` (what `Program.clone(for_test=True)` prunes). Change attributes with `_set_attr`, which bumps
    the program's version so cached executor plans are rebuilt.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [2, 3], 'float32')
        ...     y = oar.scale(x, scale=2.0)
        >>> oar.disable_static()
        >>> op = main.global_block().ops[-1]
        >>> op.type, op.attrs['scale']
        ('scale', 2.0)
    """

    __slots__ = ("block", "type", "inputs", "outputs", "attrs", "loc", "role")

    def __init__(self, block, type, inputs, outputs, attrs, loc=None, role=None):
        self.block, self.type, self.inputs, self.outputs = block, type, inputs, outputs
        self.attrs, self.loc = attrs, loc
        self.role = role

    def attr(self, name):
        """The attribute `name` (KeyError naming the op when absent)."""
        try:
            return self.attrs[name]
        except KeyError:
            raise KeyError(f"op {self.type!r} has no attribute {name!r} (it has {sorted(self.attrs)})") from None

    def has_attr(self, name):
        return name in self.attrs

    def _set_attr(self, name, value):
        """Sets an attribute and bumps the program's version (cached executor plans are rebuilt)."""
        self.attrs[name] = value
        self.block.program._bump()

    def input_names(self):
        return [n for names in self.inputs.values() for n in names]

    def output_names(self):
        return [n for names in self.outputs.values() for n in names]

    def input(self, slot):
        return self.inputs.get(slot, [])

    def output(self, slot):
        return self.outputs.get(slot, [])

    def has_side_effects(self):
        """True when removing this op could change more than its outputs: ops marked
        ``side_effect`` in the installed schema (print, assert, in-place array writes), writes to persistable variables,
        and control-flow ops whose sub-blocks hold such ops. The executor's pruning and the passes both ask this."""
        from .printer import sub_blocks
        d = INSTALLED.get(self.type)
        if d is not None and d.side_effect:
            return True
        for n in self.output_names():
            v = self.block._find_var_recursive(n)
            if v is not None and v.persistable:
                return True
        blocks = self.block.program.blocks
        return any(o.has_side_effects() for i in sub_blocks(self) if i < len(blocks) for o in blocks[i].ops)

    def __repr__(self):
        from .printer import format_op
        return format_op(self)


class Block:
    """An ordered list of Operators over a table of Variables; ``parent_idx`` links sub-blocks (-1 for the top).

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [2, 3], 'float32')
        ...     y = oar.nn.functional.relu(x)
        >>> oar.disable_static()
        >>> block = main.global_block()
        >>> block.idx, [op.type for op in block.ops]
        (0, ['relu'])
    """

    def __init__(self, program, idx, parent_idx=-1):
        self.program, self.idx, self.parent_idx = program, idx, parent_idx
        self.vars = {}
        self.ops = []

    def var(self, name):
        """The Variable `name` from this block or an ancestor; KeyError naming it when absent."""
        v = self._find_var_recursive(name)
        if v is None:
            raise KeyError(f"variable '{name}' is not defined in block {self.idx} or its parents")
        return v

    def has_var(self, name):
        return self._find_var_recursive(name) is not None

    def _find_var_recursive(self, name):
        """The Variable `name` from this block or an ancestor, or None."""
        b = self
        while b is not None:
            v = b.vars.get(name)
            if v is not None:
                return v
            b = b.parent
        return None

    @property
    def parent(self):
        return self.program.blocks[self.parent_idx] if self.parent_idx >= 0 else None

    def create_var(self, name=None, shape=(), dtype="float32", **kw):
        name = name or self.program.unique_name("tmp")
        v = self.program.var_class(self, name, shape, dtype, **kw)
        self.vars[name] = v
        self.program._bump()
        return v

    def append_op(self, type, inputs, outputs, attrs=None, loc=None):
        """Appends an `Operator` (its role is the program's `new_op_role()`) and returns it."""
        op = Operator(self, type, inputs, outputs, attrs or {}, loc, self.program.new_op_role())
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index, type, inputs, outputs, attrs=None, loc=None):
        op = Operator(self, type, inputs, outputs, attrs or {}, loc, self.program.new_op_role())
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def all_parameters(self):
        return [v for v in self.vars.values() if v.is_parameter]

    def __repr__(self):
        from .printer import format_block
        return format_block(self)


class Program:
    """A whole static computation: ``blocks[0]`` is the global block; control-flow ops own sub-blocks.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 3])
        ...     y = x * 2
        >>> oar.disable_static()
        >>> [op.type for op in main.global_block().ops]
        ['full', 'multiply']
    """

    var_class = Var   # what `Block.create_var` makes; `oar.static.Program` makes tracing Variables

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self.version = 0
        self._names = {}         # prefix -> next number (`unique_name`); saved with the program
        self.random_seed = 0
        self.provenance = []     # lines left by passes

    def _bump(self):
        self.version += 1

    def new_op_role(self):
        """The role of an op appended now (see `Operator.role`): None here; a static Program asks its builder."""
        return None

    def unique_name(self, prefix):
        n = self._names.get(prefix, 0)
        self._names[prefix] = n + 1
        return f"{prefix}_{n}"

    def global_block(self):
        """Block 0, where feeds, parameters and top-level ops live (``main.global_block().ops``)."""
        return self.blocks[0]

    def block(self, i):
        """Block `i` (sub-blocks are owned by control-flow ops: ``main.block(1).parent_idx == 0``)."""
        return self.blocks[i]

    @property
    def num_blocks(self):
        """How many blocks the program has (1 without control flow)."""
        return len(self.blocks)

    def create_block(self, parent_idx=0):
        """Appends a new, empty Block whose parent is block `parent_idx`; returns it."""
        b = Block(self, len(self.blocks), parent_idx)
        self.blocks.append(b)
        self._bump()
        return b

    def list_vars(self):
        """Every Variable of every block, in block order (``[v.name for v in main.list_vars()]``)."""
        for b in self.blocks:
            yield from b.vars.values()

    def all_parameters(self):
        """The parameter Variables (``[p.name for p in main.all_parameters()]``)."""
        return [v for b in self.blocks for v in b.vars.values() if v.is_parameter]

    def clone(self, for_test=False):
        """A deep copy. ``for_test=True`` gives the forward program for evaluation, as Paddle: backward and
        optimizer ops (and the sub-blocks only they own) are pruned, and dropout / batch_norm ops switch to
        inference behaviour (``training=False``, ``is_test=True``).

        Example:
            >>> oar.enable_static()
            >>> main, startup = oar.static.Program(), oar.static.Program()
            >>> with oar.static.program_guard(main, startup):
            ...     x = oar.static.data('x', [None, 4])
            ...     y = oar.nn.functional.dropout(x, p=0.5)
            >>> oar.disable_static()
            >>> test_program = main.clone(for_test=True)   # before or after optimizer.minimize(loss)
            >>> [op.attrs.get('training') for op in test_program.global_block().ops if op.type == 'dropout']
            [False]
        """
        from .serialize import program_from_dict, program_to_dict
        p = program_from_dict(program_to_dict(self, check=False), program_class=type(self))  # roles travel too
        if for_test:
            _prune_for_test(p)
            for b in p.blocks:
                for op in b.ops:
                    if "training" in op.attrs:
                        op._set_attr("training", False)
                    if "is_test" in op.attrs:
                        op._set_attr("is_test", True)
        return p

    def __str__(self):
        from .printer import format_program
        return format_program(self)

    __repr__ = __str__

    def to_string(self, throw_on_error=False, with_details=False):
        return str(self)


def _prune_for_test(p):
    """Removes backward/optimize ops, then the blocks no remaining op owns (renumbering the rest) and the
    variables only removed ops used."""
    from .printer import block_attrs, sub_blocks
    removed, used = set(), set()
    for b in p.blocks:
        keep = [op for op in b.ops if op.role is None]
        for op in b.ops:
            names = set(op.input_names()) | set(op.output_names())
            (used if op.role is None else removed).update(names)
        b.ops = keep
    if not removed:
        return
    for b in p.blocks:  # a forward while kept only for evaluation need not record its iterations for a gradient
        for op in b.ops:
            hist = op.outputs.get("history") if op.type == "while" else None
            if hist and not any(hist[0] in o.input_names() for bb in p.blocks for o in bb.ops):
                del op.outputs["history"]
                op.attrs["save_history"] = False
                b.vars.pop(hist[0], None)
    reach, todo = [], [0]
    while todo:
        i = todo.pop()
        if i not in reach:
            reach.append(i)
            todo.extend(j for op in p.blocks[i].ops for j in sub_blocks(op))
    new_idx = {old: new for new, old in enumerate(sorted(reach))}
    p.blocks = [p.blocks[i] for i in sorted(reach)]
    for b in p.blocks:
        b.idx, b.parent_idx = new_idx[b.idx], new_idx.get(b.parent_idx, -1)
        for op in b.ops:
            for k in block_attrs(op):
                v = op.attrs[k]
                if isinstance(v, int) and not isinstance(v, bool):
                    op.attrs[k] = new_idx[v]
                elif isinstance(v, list):
                    op.attrs[k] = [new_idx[int(i)] for i in v]
        for n in [n for n, v in b.vars.items() if n in removed and n not in used and not v.persistable
                  and not v.is_data]:
            del b.vars[n]
    p._bump()
