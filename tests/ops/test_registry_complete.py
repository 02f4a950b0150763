"""Every registered op is complete, in one place (its `defop` and the fields beside it): an infer rule (or a
declared reason why probing the kernel is the rule), a gradient rule (or ``differentiable=False``), an ONNX lowering
(or an ``onnx_reason``), and a row in the op table (or a reason, listed once below).

Run with ``-s`` to see the counts (ops, with grad / declared non-differentiable, ...)."""
import importlib
import os
import pkgutil
import subprocess
import sys

import pytest

import oar
from oar.ops.registry import AMP_CATEGORIES, PROBE_REASONS, REGISTRY

from op_table import CASES


# ops without an op-table row, each with where it is tested instead (the one list of such ops)
_UPDATES = "optimizer update: tests/optimizer checks each optimizer against a NumPy reference"
_ARRAYS = "tensor-array op of converted list code: tests/jit and tests/tensor run the converted loops"
_COLLECTIVE = "collective communication: tests/distributed runs it across processes"
_RANDOM = "random: tests/ops/test_random.py checks its distribution and seeding"
_PROGRAM = "program-level op (control flow, converted programs, checks): tests/static and tests/jit"
_FUSED = "made by an inference pass: tests/passes compare the fused program's outputs with the unfused one's"
_STATIC = ("shape op of static programs with unknown dims: tests/static/test_unknown_dims_shape_ops.py and "
           "tests/ops/test_unknown_dims.py")
_DETECTION = "detection op: tests/vision/test_proposal_ops.py and test_detection_ops.py"
NOT_IN_TABLE = {
    "memcpy": "copies between host and GPU: tests/device/test_fake_device.py (places, gradient through a transfer)",
    **dict.fromkeys(["max_pool2d_gather", "adaptive_max_pool2d_gather", "roi_pool_gather"],
                    "gather half of a max-pool gradient: tests/autograd/test_grad_of_grad_ops.py checks second order"),
    **dict.fromkeys(["adadelta_update", "adagrad_update", "adam_update", "adamax_update", "lamb_update",
                     "momentum_update", "rmsprop_update", "sgd_update", "multi_adam_update", "multi_momentum_update",
                     "multi_sgd_update"], _UPDATES),
    **dict.fromkeys(["array_add", "array_clear", "array_delete", "array_length", "array_pick", "array_popped",
                     "array_read", "array_read_grad", "array_slice", "array_split", "array_to_tensor",
                     "array_to_tensor_like", "array_undelete", "array_unslice", "array_unstack", "array_write",
                     "array_zeros", "create_array"], _ARRAYS),
    **dict.fromkeys(["c_allgather", "c_allreduce", "c_allreduce_sum_differentiable", "c_alltoall", "c_barrier",
                     "c_broadcast", "c_reduce", "c_scatter",
                     "recv_v2", "send_v2"], _COLLECTIVE),
    **dict.fromkeys(["bernoulli", "distribution_draw", "dropout", "gaussian_random", "multinomial", "poisson",
                     "randint", "randperm", "truncated_gaussian_random", "uniform_random"], _RANDOM),
    **dict.fromkeys(["assert", "assert_defined", "cond", "print", "py_layer", "py_layer_grad", "run_program",
                     "run_program_grad", "while", "while_grad"], _PROGRAM),
    **dict.fromkeys(["py_func", "py_func_grad", "pylayer"],
                    "runs a user's Python function / gradient: tests/static/test_static_nn_more.py checks them"),
    **dict.fromkeys(["fused_conv2d", "fused_elementwise", "fused_elemwise_add_act", "fused_elemwise_add_act_grad",
                     "fused_linear"], _FUSED),
    **dict.fromkeys(["arange_dynamic", "full_dynamic", "reshape_dynamic", "reshape_as", "split_like", "tile_grad"],
                    _STATIC),
    **dict.fromkeys(["distribute_fpn_proposals", "generate_proposals", "matrix_nms", "prior_box"], _DETECTION),
    **dict.fromkeys(["interp_dynamic", "interp_dynamic_grad"],
                    "interpolate to a size held by a program tensor: tests/onnx/test_zoo_lowerings.py, tests/zoo"),
    "assign_value": "constant of a static program (eager code never makes one): tests/static",
    "count_valid": "cross_entropy's ignore_index count: tests/nn/test_nn_loss.py, test_nn_cross_entropy.py",
    "warpctc": "CTC loss: tests/nn/test_nn_loss.py",
}


def _import_every_family():
    for m in pkgutil.walk_packages(oar.__path__, "oar."):
        importlib.import_module(m.name)


_import_every_family()
OPS = sorted(REGISTRY.values(), key=lambda d: d.name)


def _ops_run_by_the_table():
    """Names of the ops whose kernels run in the table's rows (forward and gradient), and the rows' op names."""
    ran, saved = set(), {}
    for op in REGISTRY.values():
        saved[op] = op.impl

        def wrapped(*arrays, _op=op, _impl=op.impl, **attrs):
            ran.add(_op.name)
            return _impl(*arrays, **attrs)
        op.impl = wrapped
    try:
        for case in CASES:
            ts = case.tensors(requires_grad=True)
            out = case.fn(*ts)
            outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if not o.stop_gradient]
            if outs and case.diff:
                oar.grad([o.sum() for o in outs], [ts[i] for i in case.diff], allow_unused=True)
    finally:
        for op, impl in saved.items():
            op.impl = impl
    return ran | {c.name.split("[")[0] for c in CASES}


@pytest.mark.parametrize("op", OPS, ids=lambda d: d.name)
def test_infer_rule_or_declared_probe(op):
    assert op.infer is not None or op.infer_reason in PROBE_REASONS, \
        f"op {op.name!r}: give it an infer rule, or declare infer_reason= one of {sorted(PROBE_REASONS)}"
    assert op.infer is None or op.infer_reason is None, f"op {op.name!r}: an infer rule and a probe reason"


@pytest.mark.parametrize("op", OPS, ids=lambda d: d.name)
def test_grad_rule_or_declared_not_differentiable(op):
    assert op.grad is not None or op.differentiable is False, \
        f"op {op.name!r}: give it a grad rule, or declare differentiable=False"
    assert op.grad is None or op.differentiable is not False, f"op {op.name!r}: differentiable=False with a grad rule"


@pytest.mark.parametrize("op", OPS, ids=lambda d: d.name)
def test_onnx_lowering_or_reason(op):
    assert (op.onnx is None) != (op.onnx_reason is None), \
        f"op {op.name!r}: write its ONNX lowering beside it (onnx=), or declare onnx_reason="


@pytest.mark.parametrize("op", OPS, ids=lambda d: d.name)
def test_typed_fields(op):
    assert op.amp in AMP_CATEGORIES
    assert isinstance(op.side_effect, bool)
    assert all(isinstance(a, str) for a in op.block_attrs + op.name_attrs)
    assert not op.name_attrs or op.block_attrs, f"op {op.name!r}: name_attrs without sub-blocks"
    assert not hasattr(op, "extra")


def test_every_op_has_a_table_row_or_a_listed_reason():
    covered = _ops_run_by_the_table()
    missing = sorted(n for n in REGISTRY if n not in covered and n not in NOT_IN_TABLE)
    assert not missing, f"ops with neither an op-table row (tests/ops/op_table*.py) nor a NOT_IN_TABLE entry: {missing}"
    stale = sorted(n for n in NOT_IN_TABLE if n in covered or n not in REGISTRY)
    assert not stale, f"NOT_IN_TABLE lists ops that have a row now (or no longer exist): {stale}"


def test_lowerings_register_with_their_ops_without_importing_onnx():
    """The families register their lowerings as they define their ops; none of that imports `onnx` or `oar.onnx`
    (`oar.lite` and plain training stay light)."""
    code = ("import sys, oar.ops.math, oar.ops.manipulation, oar.ops.nn.conv, oar.ops.quant, oar.graph.control_flow, "
            "oar.passes.fuse_conv\n"
            "from oar.ops.registry import REGISTRY\n"
            "assert all(REGISTRY[n].onnx for n in ('add', 'reshape', 'conv2d', 'quantize_linear', 'cond', "
            "'fused_conv2d'))\n"
            "bad = sorted(m for m in sys.modules if m == 'onnx' or m.startswith(('onnx.', 'oar.onnx')))\n"
            "assert not bad, bad")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(oar.__file__)))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-800:]


def test_counts(capsys):
    """The registry's completeness in numbers (printed with -s)."""
    n = len(OPS)
    rows = [("ops", n),
            ("with grad", sum(op.grad is not None for op in OPS)),
            ("declared non-differentiable", sum(op.differentiable is False for op in OPS)),
            ("with ONNX lowering", sum(op.onnx is not None for op in OPS)),
            ("with onnx_reason", sum(op.onnx_reason is not None for op in OPS)),
            ("with infer", sum(op.infer is not None for op in OPS)),
            ("declared probe", sum(op.infer_reason is not None for op in OPS))]
    with capsys.disabled():
        print("\n" + ", ".join(f"{k}: {v}" for k, v in rows))
    assert rows[1][1] + rows[2][1] == n
    assert rows[3][1] + rows[4][1] == n
    assert rows[5][1] + rows[6][1] == n
