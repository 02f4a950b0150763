"""Small graph helpers shared by the passes: argument order, sub-blocks, readers and side effects."""
from ..ops.registry import REGISTRY
from ..graph.liveness import last_reads, names_in_sub_blocks
from ..graph.scope import global_scope
from ..ir.printer import sub_blocks  # noqa: F401  (one definition of "which attrs are sub-blocks")


def opdef(op):
    return REGISTRY.get(op.type)


def arg_names(op):
    """Input variable names in the order the kernel takes them."""
    d = opdef(op)
    if d is None:
        return op.input_names()
    if d.variadic:
        return list(op.inputs.get(d.inputs[0], []))
    return [op.inputs[s][0] for s in d.inputs if op.inputs.get(s)]


def out_names(op):
    """Output variable names in the order the kernel returns them."""
    d = opdef(op)
    if d is None:
        return op.output_names()
    if d.outputs[0].endswith("*"):
        return list(op.outputs.get(d.outputs[0][:-1], []))
    return [op.outputs[s][0] for s in d.outputs if op.outputs.get(s)]


def names_read_inside(program, op):
    """Every variable name read or written by ops in the sub-blocks of `op` (they may use outer variables)."""
    return names_in_sub_blocks(op)


def bound_value(program, name, scope):
    """The fixed value (ndarray) `scope` holds for a persistable global variable of `program`, else None."""
    v = program.global_block().vars.get(name)
    return scope.array(name) if v is not None and v.persistable else None


def values_scope(scope):
    """The scope a pass reads constants from and writes new ones to: `scope`, or `global_scope()` when None
    (where `Executor.run` looks by default)."""
    return scope if scope is not None else global_scope()


def consumers(program):
    """name -> number of ops (in any block) that read it."""
    count = {}
    for b in program.blocks:
        for op in b.ops:
            for n in op.input_names():
                count[n] = count.get(n, 0) + 1
    return count


def last_readers(block):
    """name -> the last op of `block` that reads it."""
    return {n: block.ops[k] for n, k in last_reads(block.ops).items()}
