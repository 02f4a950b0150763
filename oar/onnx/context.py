"""The state a lowering writes into: ONNX nodes, initializers and the oar-name -> ONNX-name map of a graph.

A lowering is ``lower(ctx, op)``, written beside the op's `defop` (its `OpDef.onnx`; builders in
`oar.ops.onnx_rules`). It calls only this object, so defining it never imports `onnx`: it reads the op's inputs
with ``ctx.inp(op, slot)``, emits nodes with ``ctx.node(...)`` and names each oar output with
``ctx.out(op, slot)``. Names stay the oar variable names
where possible; a variable written twice (in-place ops, control flow) gets a fresh ONNX name, so the graph
stays in SSA form as ONNX requires.
"""
import numpy as np

from ..core import dtype as D


def onnx_dtype(dtype):
    """The ONNX TensorProto element type of an oar dtype (or dtype name)."""
    from onnx import helper
    return helper.np_dtype_to_tensor_dtype(np.dtype(D.np_dtype(D.convert_dtype(dtype))))


_AXES_ATTR = {"ReduceSum": "axes", "Split": "split", "Unsqueeze": "axes", "Squeeze": "axes"}


class Scope:
    """One ONNX graph under construction: its nodes and the names visible in it (parents included)."""

    def __init__(self, block, parent=None, nodes=None):
        self.block, self.parent = block, parent
        self.nodes = [] if nodes is None else nodes  # a shared list: a scope that only renames, not a sub-graph
        self.names = {}

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None


class Context:
    """Shared by every lowering of one export; ``scope`` is the graph being built (main graph or a sub-graph)."""

    def __init__(self, program, opset):
        self.program, self.opset = program, opset
        self.used = set()
        self.initializers = []
        self._consts = {}
        self.values = {}  # initializer name -> array, for lowerings that need a constant operand's value
        self.scope = Scope(program.global_block())
        self.unsupported_outputs = {}  # oar name -> op: outputs ONNX does not compute (masks, saved statistics)

    # ---- names -----------------------------------------------------------------------------------------------
    def fresh(self, hint="tmp"):
        """A name used nowhere else in the model."""
        name, k = hint, 0
        while name in self.used:
            k += 1
            name = f"{hint}__{k}"
        self.used.add(name)
        return name

    def bind(self, oar_name, onnx_name):
        self.scope.names[oar_name] = onnx_name

    def name(self, oar_name):
        """The ONNX name holding oar variable `oar_name` here; KeyError naming it when nothing defined it."""
        n = self.scope.lookup(oar_name)
        if n is None and oar_name in self.unsupported_outputs:
            op = self.unsupported_outputs[oar_name]
            raise NotImplementedError(f"oar.onnx.export: '{oar_name}' (an extra output of op '{op.type}', such as "
                                      f"a pooling mask) has no ONNX equivalent{user_line(op)}")
        if n is None:
            raise KeyError(f"variable '{oar_name}' is read before any op or input defines it")
        return n

    def inp(self, op, slot, i=0):
        """ONNX name of input `i` of slot `slot` of `op`."""
        return self.name(op.inputs[slot][i])

    def ins(self, op, slot):
        return [self.name(n) for n in op.inputs.get(slot, [])]

    def out(self, op, slot="out", i=0):
        """A fresh ONNX name bound to output `i` of slot `slot` of `op` (call once per output)."""
        oar_name = op.outputs[slot][i]
        n = self.fresh(oar_name)
        self.bind(oar_name, n)
        return n

    def outs(self, op, slot="out*"):
        slot = slot if slot in op.outputs else slot.rstrip("*")
        return [self.out(op, slot, i) for i in range(len(op.outputs[slot]))]

    def meta(self, oar_name):
        """(shape, DType) of an oar variable (shape dims -1 when unknown)."""
        v = self.scope.block.var(oar_name)
        return list(v.shape), v.dtype

    def in_meta(self, op, slot, i=0):
        return self.meta(op.inputs[slot][i])

    def out_meta(self, op, slot="out", i=0):
        return self.meta(op.outputs[slot][i])

    # ---- emitting ----------------------------------------------------------------------------------------------
    def node(self, op_type, inputs, outputs=None, n_out=1, **attrs):
        """Appends an ONNX node; returns its output name (or list of names when ``n_out > 1``).

        `outputs` names the outputs (fresh temporaries when None); attrs are ONNX attributes.
        """
        from onnx import helper
        if outputs is None:
            outputs = [self.fresh(f"{op_type.lower()}_t") for _ in range(n_out)]
        elif isinstance(outputs, str):
            outputs = [outputs]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        if self.opset < 13:
            op_type, inputs = self._before_13(op_type, list(inputs), attrs)
        self.scope.nodes.append(helper.make_node(op_type, list(inputs), list(outputs),
                                                 name=self.fresh(f"{op_type}_n"), **attrs))
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def _before_13(self, op_type, inputs, attrs):
        """Opsets 11-12 take these operands as attributes, and have no LessOrEqual/GreaterOrEqual before 12."""
        if op_type in _AXES_ATTR and len(inputs) > 1 and inputs[1]:
            if inputs[1] not in self.values:
                raise NotImplementedError(f"oar.onnx.export: {op_type} with run-time {_AXES_ATTR[op_type]} needs "
                                          "opset_version >= 13")
            attrs[_AXES_ATTR[op_type]] = [int(v) for v in self.values[inputs[1]].reshape(-1)]
            inputs = inputs[:1] + inputs[2:]
        if self.opset < 12 and op_type in ("LessOrEqual", "GreaterOrEqual"):
            flipped = self.node("Greater" if op_type == "LessOrEqual" else "Less", inputs)
            return "Not", [flipped]
        return op_type, inputs

    def const(self, value, dtype=None):
        """An initializer holding `value` (array-like; `dtype` an oar dtype name or numpy dtype)."""
        from onnx import numpy_helper
        a = np.asarray(value, dtype=D.np_dtype(D.convert_dtype(dtype)) if isinstance(dtype, (str, D.DType))
                       else dtype)
        key = (a.dtype.str, a.shape, a.tobytes()) if a.size <= 64 else None
        if key is not None and key in self._consts:
            return self._consts[key]
        name = self.fresh("const")
        self.values[name] = a
        self.initializers.append(numpy_helper.from_array(np.array(a, order="C"), name))
        if key is not None:
            self._consts[key] = name
        return name

    def ints(self, values):
        """An int64 1-D initializer (shapes, axes, pads given as ONNX inputs)."""
        return self.const(np.asarray(values, np.int64).reshape(-1))

    def cast(self, name, dtype, outputs=None):
        return self.node("Cast", [name], outputs, to=onnx_dtype(dtype))

    def dtype(self, dtype):
        """The ONNX element type (an int) of an oar dtype, for attributes such as Cast's ``to``."""
        return onnx_dtype(dtype)

    def tensor(self, value, dtype):
        """A one-element TensorProto holding `value` as `dtype`, for attributes such as ConstantOfShape's ``value``."""
        from onnx import helper
        return helper.make_tensor("value", onnx_dtype(dtype), [1], [value])

    def unary(self, op, onnx_type, **attrs):
        """The common case: one input 'x' (or the op's first slot) to output 'out' through one ONNX node."""
        slot = next(iter(op.inputs))
        return self.node(onnx_type, [self.inp(op, slot)], [self.out(op)], **attrs)

    # ---- walking blocks ----------------------------------------------------------------------------------------
    def lower_ops(self, ops):
        """Lowers `ops` in order into the current scope through each op's `OpDef.onnx`."""
        from ..ops.registry import REGISTRY
        for op in ops:
            fn = REGISTRY[op.type].onnx if op.type in REGISTRY else None
            if fn is None:
                raise NotImplementedError(f"oar.onnx.export: op '{op.type}' has no ONNX lowering{user_line(op)}")
            fn(self, op)

    def enter(self, block, share_nodes=False):
        """Opens a child scope reading `block`'s variables (a sub-graph unless `share_nodes`)."""
        self.scope = Scope(block, self.scope, self.scope.nodes if share_nodes else None)
        return self.scope

    def leave(self):
        self.scope = self.scope.parent

    def subgraph(self, name, scope, inputs, outputs):
        """A GraphProto of `scope`'s nodes; `inputs`/`outputs` are (onnx name, oar dtype[, shape]) (no shape:
        left to inference)."""
        from onnx import helper
        def vi(name, dtype, shape=None):
            return helper.make_tensor_value_info(name, onnx_dtype(dtype), shape)
        return helper.make_graph(scope.nodes, self.fresh(name), [vi(*i) for i in inputs], [vi(*o) for o in outputs])

    def block_op_error(self, op, what):
        return NotImplementedError(f"oar.onnx.export: {what} (op '{op.type}'{user_line(op)})")


def user_line(op):
    """', created at file:line: source' for an op with a recorded user location, else ''."""
    loc = getattr(op, "loc", None)
    if not loc:
        return ""
    f, line, *src = list(loc) + [None]
    text = f" ({src[0].strip()})" if src and src[0] else ""
    return f", created at {f}:{line}{text}"
