"""Small builders of ONNX lowerings, shared by the op families that write their lowering beside each `defop`.

A lowering is ``lower(ctx, op)`` (`oar.onnx.context.Context`): it reads the op's inputs with ``ctx.inp(op, slot)``,
emits ONNX nodes with ``ctx.node(type, inputs, outputs, **attrs)`` and names each output with ``ctx.out(op)``.
It only calls `ctx`, so defining one never imports the `onnx` package (or `oar.onnx`).

Example (the rows of a family file)::

    lowerings({"exp": same("Exp"), "add": binary("Add"), "expm1": chain(("Exp",), with_scalar("Sub", 1.0))})
"""


def first_input(ctx, op):
    """ONNX name of the op's first input (slot order)."""
    return ctx.inp(op, next(iter(op.inputs)))


def scalar(ctx, op, value, slot=None):
    """A scalar constant of the dtype of the op's input `slot` (its first input when None)."""
    return ctx.const(value, ctx.in_meta(op, slot or next(iter(op.inputs)))[1])


def same(onnx_type, **attrs):
    """One input to the output through one ONNX node of `onnx_type`."""
    return lambda ctx, op: ctx.unary(op, onnx_type, **attrs)


def binary(onnx_type):
    """Inputs x, y to the output through one ONNX node of `onnx_type`."""
    return lambda ctx, op: ctx.node(onnx_type, [ctx.inp(op, "x"), ctx.inp(op, "y")], [ctx.out(op)])


def chain(*steps):
    """A unary op as a chain of ONNX nodes on x; each step is (type, attrs) or a callable(ctx, name, op) -> name."""
    def lower(ctx, op):
        cur = ctx.inp(op, "x")
        for i, s in enumerate(steps):
            last = i == len(steps) - 1
            if callable(s):
                cur = s(ctx, cur, op)
                if last:
                    ctx.node("Identity", [cur], [ctx.out(op)])
            else:
                cur = ctx.node(s[0], [cur], [ctx.out(op)] if last else None, **(s[1] if len(s) > 1 else {}))
    return lower


def with_scalar(onnx_type, value, first=False):
    """A `chain` step: x OP c (or c OP x) for a scalar c of x's dtype."""
    def step(ctx, cur, op):
        c = scalar(ctx, op, value)
        return ctx.node(onnx_type, [c, cur] if first else [cur, c])
    return step


def passthrough(ctx, op):
    """Run-time checks and prints (print, assert, assert_defined): ONNX has neither; the value passes through."""
    ctx.node("Identity", [first_input(ctx, op)], [ctx.out(op, next(iter(op.outputs)))])


def constant(ctx, op):
    """Ops without inputs (full, assign_value, arange, ...): evaluated now and stored as an initializer."""
    from .registry import REGISTRY
    value = REGISTRY[op.type].impl(**op.attrs)
    ctx.node("Identity", [ctx.const(value)], [ctx.out(op)])


def only_first_output(ctx, op):
    """Marks the op's extra outputs (pooling masks, dropout masks, saved statistics) as not produced by ONNX."""
    first = next(iter(op.outputs))
    for slot, names in op.outputs.items():
        for n in names[1:] if slot == first else names:
            ctx.unsupported_outputs[n] = op


_ACTIVATIONS = {"relu": ["Relu"], "tanh": ["Tanh"],
                # the sigmoid kernel's 1 / (1 + exp(-x)) (ONNX Runtime's Sigmoid: ~6e-8 absolute precision)
                "sigmoid": ["Neg", "Exp", ("Add", 1.0), "Reciprocal"]}


def activation(ctx, op, act):
    """The `steps` applying the fused activation `act` to the previous value (none for None), checked before
    anything is emitted (the fused ops of `oar.passes`)."""
    if act is not None and act not in _ACTIVATIONS:
        raise ctx.block_op_error(op, f"activation {act!r} has no ONNX lowering")
    return [(s, [None], {}) if isinstance(s, str) else (s[0], [None, scalar(ctx, op, s[1])], {})
            for s in _ACTIVATIONS.get(act, [])]


def steps(ctx, op, nodes):
    """Emits `nodes` (type, inputs with None for the previous output, attrs); the last writes the op's output, so
    the group stays adjacent (ONNX Runtime fuses ``DequantizeLinear -> Conv -> QuantizeLinear`` only then)."""
    cur = None
    for k, (t, ins, attrs) in enumerate(nodes):
        ins = [cur if i is None else i for i in ins]
        cur = ctx.node(t, ins, [ctx.out(op)] if k == len(nodes) - 1 else None, **attrs)
