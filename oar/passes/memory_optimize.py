"""Memory plan for inference (Paddle's ``memory_optimize_pass``, `Config.enable_memory_optim()`): the fused
convolution and linear ops write their results into buffers allocated once per input shape and reused on every
run, instead of allocating afresh each time.

Needs: an inference program whose fused ops' outputs are not kept (fetched) values: a kept output is left to
allocate, since the caller owns what a run returns. Guarantees: values unchanged (the same kernels write into
other memory); within a run every op owns its buffer, so no value is overwritten while it is live; the
executor's liveness ``del`` still releases the non-planned intermediates. A view of a planned buffer that
reaches a fetch is copied by the predictor before it is handed out.

Example:
    >>> p = memory_optimize(fuse_conv_bias_act(program), keep=['out'])
    >>> [op.attrs.get('reuse_output') for op in p.global_block().ops]
"""
from .contract import verified

PLANNED = ("fused_conv2d", "fused_linear")


@verified
def memory_optimize(program, keep=()):
    """Returns a copy of `program` whose planned ops reuse their output buffers across runs."""
    p = program.clone()
    keep = set(keep)
    planned = 0
    for op in p.global_block().ops:
        if op.type in PLANNED and not set(op.output_names()) & keep:
            op._set_attr("reuse_output", True)
            planned += 1
    p._bump()
    p.provenance.append(f"memory_optimize: {planned} ops write into reused buffers")
    return p
