"""`paddle.static.auc`: AUC whose statistics are persistable variables the program updates at every run.

Paddle 2.x has static forms only for `accuracy` (`oar.metric.accuracy`, built from ops) and `auc` (this file); its
`metric.Precision` and `Recall` exist only as the stateful Python classes of `oar.metric`.
"""
import numpy as np

from ..core.state import STATE
from ..ops.creation import full
from ..ops.metric import AUC
from ..eager.tensor import Tensor
from ..core import capture
from .builder import BUILDER, as_var, persistable_var, user_location


def _state(name, size_shape):
    """A zero int64 statistic kept between runs: a persistable variable initialised by the startup program, or,
    while `to_static` converts a function (no startup program runs there), an eager Tensor bound to the program,
    so every call of the converted function adds to it."""
    main = BUILDER.main
    name = main.unique_name(name)
    zeros = np.zeros(size_shape, np.int64)
    if capture.active() is not None:
        return as_var(main.global_block(), Tensor(zeros, name=name))
    return persistable_var(main, BUILDER.startup, name, zeros)


def _append_auc(predict, label, stat_pos, stat_neg, ins_tag_weight, curve, num_thresholds, slide_steps):
    """Appends one `auc` op whose updated statistics are written back into `stat_pos` / `stat_neg` in place."""
    block = BUILDER.main.current_block()
    out = block.create_var(BUILDER.main.unique_name("auc.tmp"), [], "float64", stop_gradient=True)
    ins = [as_var(block, t) for t in (predict, label, stat_pos, stat_neg, ins_tag_weight)]
    block.append_op(AUC.name, {slot: [v.name] for slot, v in zip(AUC.inputs, ins)},
                    {"auc": [out.name], "stat_pos_out": [stat_pos.name], "stat_neg_out": [stat_neg.name]},
                    {"curve": curve, "num_thresholds": num_thresholds, "slide_steps": slide_steps}, user_location())
    return out


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1, ins_tag_weight=None):
    """Area under the ROC curve over every batch run so far, and over the last `slide_steps` batches.

    Each score (the last column of `input`: the class-1 probability) falls in one of ``num_thresholds + 1`` bins;
    the AUC is the trapezoid area of the ROC curve through the bins' cumulative counts (Paddle's approximation,
    the same numbers as `paddle.metric.Auc`). The counts are persistable int64 variables zeroed by the startup
    program and updated by every run of the program; zero them in the scope to start again.

    Args:
        input (Tensor): probabilities in [0, 1], float [N, 2] (or [N, 1] / [N]).
        label (Tensor): int [N] or [N, 1]; label > 0 is positive, 0 negative.
        curve (str): 'ROC' or 'PR' (Paddle computes the ROC area for both).
        num_thresholds (int): bins minus one. Default 4095.
        topk (int): accepted for compatibility; unused, as in Paddle.
        slide_steps (int): how many recent batches `batch_auc` covers (0: all batches).
        ins_tag_weight (Tensor, optional): a batch whose first value is 0 is fake data and is not counted.

    Returns:
        tuple: ``(auc_out, batch_auc_out, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])``: the AUC over
        all runs and over the window (float64 scalars) and the four statistic variables.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     prob = oar.static.data('prob', [None, 2], 'float32')
        ...     label = oar.static.data('label', [None], 'int64')
        ...     auc_out, batch_auc, states = oar.static.auc(prob, label)
        >>> oar.disable_static()
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> p1 = np.array([[0.9, 0.1], [0.2, 0.8]], 'float32')
        >>> [float(v) for v in exe.run(main, feed={'prob': p1, 'label': np.array([0, 1])},
        ...                            fetch_list=[auc_out, batch_auc])]
        [1.0, 1.0]
        >>> p2 = np.array([[0.7, 0.3], [0.4, 0.6]], 'float32')
        >>> [float(v) for v in exe.run(main, feed={'prob': p2, 'label': np.array([1, 0])},
        ...                            fetch_list=[auc_out, batch_auc])]
        [0.75, 0.0]
    """
    if not STATE.static:
        raise RuntimeError("paddle.static.auc builds ops of a static Program (call paddle.enable_static(), or use "
                           "it inside a function converted by paddle.jit.to_static); in dynamic mode use "
                           "paddle.metric.Auc")
    if curve not in ("ROC", "PR"):
        raise ValueError(f"auc: curve must be 'ROC' or 'PR', got {curve!r}")
    num_thresholds, slide_steps = int(num_thresholds), int(slide_steps)
    if num_thresholds < 1 or slide_steps < 0:
        raise ValueError(f"auc: num_thresholds must be >= 1 and slide_steps >= 0, got {num_thresholds} and "
                         f"{slide_steps}")
    if input.dtype.name not in ("float32", "float64"):
        raise TypeError(f"auc: input must be float32 or float64 probabilities, got {input.dtype.name}")
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"auc: label must be int32 or int64, got {label.dtype.name}")
    if ins_tag_weight is None:
        ins_tag_weight = full([1, 1], 1.0, "float32")
    n = num_thresholds + 1
    window = [(1 + slide_steps) * n + 1]
    batch_pos, batch_neg = _state("auc_batch_stat_pos", window), _state("auc_batch_stat_neg", window)
    stat_pos, stat_neg = _state("auc_stat_pos", [1, n]), _state("auc_stat_neg", [1, n])
    batch_auc_out = _append_auc(input, label, batch_pos, batch_neg, ins_tag_weight, curve, num_thresholds,
                                slide_steps)
    auc_out = _append_auc(input, label, stat_pos, stat_neg, ins_tag_weight, curve, num_thresholds, 0)
    return auc_out, batch_auc_out, [batch_pos, batch_neg, stat_pos, stat_neg]


def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """Running sums for CTR metrics, kept in persistable float32 variables the program adds to at every run:
    ``(local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num)`` = the sums of
    ``(input - label)^2``, ``|input - label|``, ``input``, ``sigmoid(input) * w``, ``label`` and ``w`` per
    instance, where ``w = ins_tag_weight[0]`` (1 by default; 0 marks a batch of fake data). MAE is then
    ``abserr / ins_num``, RMSE ``sqrt(sqrerr / ins_num)``, the predicted CTR ``prob / ins_num``. As Paddle's,
    `local_q` and `local_ins_num` have shape ``[1, 1]``, the others ``[1]``.

    Example:
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     p = oar.static.data('ctr_p', [None, 1])
        ...     y = oar.static.data('ctr_y', [None, 1])
        ...     sums = oar.static.ctr_metric_bundle(p, y)
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> feed = {'ctr_p': np.array([[0.2], [0.7]], 'float32'), 'ctr_y': np.array([[0.0], [1.0]], 'float32')}
        >>> out = exe.run(main, feed=feed, fetch_list=list(sums))
        >>> oar.disable_static()
        >>> [round(float(np.ravel(o)[0]), 4) for o in out]
        [0.13, 0.5, 0.9, 1.218, 1.0, 2.0]
    """
    from .builder import append_assign, create_global_var
    from ..ops.math import abs as abs_, ones_like, sigmoid
    from ..ops.manipulation import reshape
    from ..ops.reduction import sum as rsum
    if not STATE.static:
        raise RuntimeError("ctr_metric_bundle builds a static program: call oar.enable_static() first")
    if list(input.shape) != list(label.shape):
        raise ValueError(f"ctr_metric_bundle: input {input.shape} and label {label.shape} must have one shape")
    w = full([1, 1], 1.0, "float32") if ins_tag_weight is None else reshape(ins_tag_weight[0:1], [1, 1])
    main = BUILDER.main
    names = ("local_sqrerr", "local_abserr", "local_prob", "local_q", "local_pos_num", "local_ins_num")
    shapes = ([1], [1], [1], [1, 1], [1], [1, 1])
    sums = [create_global_var(s, 0.0, "float32", persistable=True, name=main.unique_name(f"ctr_metric_bundle.{n}"))
            for n, s in zip(names, shapes)]
    diff = input - label
    batch = [reshape(rsum(diff * diff), [1]), reshape(rsum(abs_(diff)), [1]), reshape(rsum(input), [1]),
             rsum(sigmoid(input)) * w, reshape(rsum(label), [1]), rsum(ones_like(label)) * w]
    for total, b in zip(sums, batch):
        append_assign(total + b, total)
    return tuple(sums)
