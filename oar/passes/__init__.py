"""Program -> Program rewrites, one per module, each proven (tests/passes/) not to change results.

`apply_passes(program, names, keep)` runs a pipeline; `INFERENCE_PASSES` is what the predictor runs.
Every pass takes ``(program, keep=())`` (``keep``: names the caller will fetch), returns a new Program and
appends a provenance line to it. The passes that read parameter values (`READS_VALUES`) also take ``scope``:
the `oar.static.Scope` holding them (`global_scope()` when None), into which they write the values they make.

Example:
    >>> p = oar.passes.apply_passes(program, oar.passes.INFERENCE_PASSES, keep=['out'], scope=scope)
    >>> p.provenance
"""
import inspect

from .constant_folding import constant_folding
from .dead_code import dead_code_elimination
from .fold_batch_norm import fold_batch_norm
from .fuse_linear import fuse_linear
from .fuse_elewise_add_act import fuse_elewise_add_act
from .fuse_optimizer_updates import fuse_optimizer_updates
from .fold_assign_writes import fold_assign_writes
from .fuse_elementwise import fuse_elementwise
from .fuse_matmul_sums import fuse_matmul_sums
from .fuse_conv import fuse_conv_bias_act
from .memory_optimize import memory_optimize
from .contract import verified

PASSES = {
    "constant_folding": constant_folding,
    "fold_batch_norm": fold_batch_norm,
    "fuse_linear": fuse_linear,
    "fuse_elewise_add_act": fuse_elewise_add_act,
    "dead_code_elimination": dead_code_elimination,
    "fuse_optimizer_updates": fuse_optimizer_updates,
    "fold_assign_writes": fold_assign_writes,
    "fuse_elementwise": fuse_elementwise,
    "fuse_matmul_sums": fuse_matmul_sums,
    "fuse_conv_bias_act": fuse_conv_bias_act,
    "memory_optimize": memory_optimize,
}

INFERENCE_PASSES = ("constant_folding", "fold_batch_norm", "fuse_conv_bias_act", "fuse_linear", "fuse_elewise_add_act",
                    "dead_code_elimination")
# passes that read parameter values from a scope (and bake them into the program they return)
READS_VALUES = ("constant_folding", "fold_batch_norm", "fuse_conv_bias_act", "fuse_linear")
# added by the predictor after INFERENCE_PASSES when `Config.enable_memory_optim()` is on
MEMORY_PASSES = ("memory_optimize",)
# left out when the predictor runs the program in ONNX Runtime (`Config.enable_onnxruntime()`)
NATIVE_ONLY_PASSES = ("constant_folding", "memory_optimize")


def register_pass(name, fn):
    """Adds a pass ``fn(program, keep=()) -> Program`` under `name` (its result verified in tests, as every pass);
    one that also takes ``scope=`` gets the caller's scope from `apply_passes`."""
    if name in PASSES:
        raise ValueError(f"pass {name!r} is registered twice")
    PASSES[name] = verified(fn)


def apply_passes(program, names=INFERENCE_PASSES, keep=(), scope=None):
    """Runs the named passes in order and returns the final Program (the input is not changed). Passes that read
    parameter values read them from `scope` and write the values they make into it (`global_scope()` when
    None)."""
    for n in names:
        try:
            fn = PASSES[n]
        except KeyError:
            raise ValueError(f"unknown pass {n!r}; known passes: {sorted(PASSES)}") from None
        program = fn(program, keep=keep, scope=scope) if _takes_scope(fn) else fn(program, keep=keep)
    return program


def _takes_scope(fn):
    try:
        return "scope" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def passes_for_build_strategy(build_strategy, training=False):
    """The pass names that an `oar.static.BuildStrategy`'s switches select, in order. Passes that bake
    parameter values into the program or have no gradient (constant folding, batch-norm folding, linear
    fusion) are chosen only for eval programs (`training=False`); the rest keep gradients correct.

    Switches: fuse_elewise_add_act_ops -> fuse_elewise_add_act; fuse_bn_act_ops -> fold_batch_norm (eval);
    fuse_gemm_epilogue -> fuse_linear (eval); fuse_all_optimizer_ops -> fuse_optimizer_updates
    (training); constant_folding (eval, default on); enable_dce (default on).
    """
    on = lambda name, default=False: bool(getattr(build_strategy, name, default))  # noqa: E731
    names = []
    if not training:
        if on("constant_folding", True):
            names.append("constant_folding")
        if on("fuse_bn_act_ops"):
            names.append("fold_batch_norm")
        if on("fuse_gemm_epilogue"):
            names.append("fuse_linear")
    if on("fuse_elewise_add_act_ops"):
        names.append("fuse_elewise_add_act")
    if training and on("fuse_all_optimizer_ops"):
        names.append("fuse_optimizer_updates")
    if on("enable_dce", True):
        names.append("dead_code_elimination")
    return names
