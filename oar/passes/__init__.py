"""Program -> Program rewrites, one per module, each proven (tests/passes/) not to change results.

`apply_passes(program, names, keep)` runs a pipeline; `INFERENCE_PASSES` is what the predictor runs.
Every pass takes ``(program, keep=())`` (``keep``: names the caller will fetch), returns a new Program and
appends a provenance line to it.

Example:
    >>> p = oar.passes.apply_passes(program, oar.passes.INFERENCE_PASSES, keep=['out'])
    >>> p.provenance
"""
from .constant_folding import constant_folding
from .dead_code import dead_code_elimination
from .fold_batch_norm import fold_batch_norm
from .fuse_linear import fuse_linear

PASSES = {
    "constant_folding": constant_folding,
    "fold_batch_norm": fold_batch_norm,
    "fuse_linear": fuse_linear,
    "dead_code_elimination": dead_code_elimination,
}

INFERENCE_PASSES = ("constant_folding", "fold_batch_norm", "fuse_linear", "dead_code_elimination")


def register_pass(name, fn):
    """Adds a pass ``fn(program, keep=()) -> Program`` under `name`."""
    if name in PASSES:
        raise ValueError(f"pass {name!r} is registered twice")
    PASSES[name] = fn


def apply_passes(program, names=INFERENCE_PASSES, keep=()):
    """Runs the named passes in order and returns the final Program (the input is not changed)."""
    for n in names:
        try:
            fn = PASSES[n]
        except KeyError:
            raise ValueError(f"unknown pass {n!r}; known passes: {sorted(PASSES)}") from None
        program = fn(program, keep=keep)
    return program


def passes_for_build_strategy(build_strategy):
    """The pass names that an `oar.static.BuildStrategy`'s switches select (unknown switches are ignored)."""
    names = []
    if getattr(build_strategy, "fuse_bn_act_ops", False) or getattr(build_strategy, "fuse_bn_add_act_ops", False):
        names.append("fold_batch_norm")
    if getattr(build_strategy, "constant_folding", True):
        names.append("constant_folding")
    if getattr(build_strategy, "enable_dce", True):
        names.append("dead_code_elimination")
    return names
