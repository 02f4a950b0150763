"""`flops(model, input_shape)` (PaddleSlim's ``paddleslim.flops`` / ``dygraph_flops``): the multiply-accumulates of
the model's convolutions and matrix products for one input of `input_shape`, counted on its traced program.

Only ``conv2d`` (``N * C_out * H_out * W_out * C_in / groups * k_h * k_w``) and ``matmul`` (``M * K * N``) are
counted: the ops channel pruning shrinks and that dominate a CNN's time; elementwise ops, normalisation and pooling
are not (PaddleSlim's count adds them, so its totals are a little higher).

Example:
    >>> from oar.slim import flops
    >>> flops(oar.nn.Conv2D(3, 8, 3, padding=1), [1, 3, 4, 4])   # 8 * 4 * 4 outputs of 3 * 3 * 3 products
    3456
"""


def _prod(xs):
    out = 1
    for x in xs:
        out *= int(x)
    return out


def program_flops(program):
    """The conv2d and matmul multiply-accumulates of a program whose shapes are all known."""
    gb = program.global_block()
    total = 0
    for op in gb.ops:
        if op.type == "conv2d":
            w = gb.vars[op.inputs["filter"][0]].shape
            total += _prod(gb.vars[op.output_names()[0]].shape) * _prod(w[1:])
        elif op.type == "matmul":
            x = gb.vars[op.inputs["x"][0]].shape
            k = x[-2] if op.attrs.get("transpose_x") else x[-1]
            total += _prod(gb.vars[op.output_names()[0]].shape) * int(k)
    return total


def flops(model, input_shape):
    """Multiply-accumulates of `model` for one input of shape `input_shape` (see the module doc).

    Args:
        model: an `oar.nn.Layer` taking one float32 input.
        input_shape: the full input shape, batch included (e.g. ``[1, 1, 28, 28]``).

    Example:
        >>> oar.slim.flops(oar.nn.Linear(4, 3), [2, 4])
        24
    """
    from .channels import trace_program
    if any(int(d) < 1 for d in input_shape):
        raise ValueError(f"flops: input_shape must be fully known (batch included), got {list(input_shape)}")
    program, _, _ = trace_program(model, input_shape)
    return program_flops(program)
