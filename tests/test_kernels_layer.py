"""Kernels are a layer: `oar/kernels/` imports nothing of oar above `oar.core`, and the op families listed in
KERNEL_ONLY do no NumPy compute of their own (their kernels live in `oar/kernels/<family>.py`)."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "oar"

# Op modules whose NumPy compute has moved to oar/kernels: they may name dtypes and read metadata only.
KERNEL_ONLY = [
    "ops/math.py",
    "ops/reduction.py",
    "ops/logic.py",
    "ops/manipulation.py",
    "ops/special.py",
    "ops/search.py",
    "ops/linalg.py",
    "ops/linalg_decomp.py",
    "ops/linalg_norm.py",
    "ops/linalg_solve.py",
    "ops/linalg_util.py",
    "ops/matrix.py",
    "ops/stat.py",
    "ops/indexing.py",
    "ops/creation.py",
    "ops/complex.py",
    "ops/random.py",
    "ops/fft.py",
    "ops/signal.py",
    "ops/subscript.py",
    "ops/dynamic_shape.py",
    "ops/metric.py",
    "ops/quant.py",
    "ops/common.py",
    "ops/rearrange.py",
    "ops/nn/common.py",
    "ops/nn/conv.py",
    "ops/nn/pooling.py",
    "ops/nn/activation.py",
    "ops/nn/norm.py",
    "nn/functional/loss.py",
    "nn/functional/attention.py",
    "optimizer/update_ops.py",
    "optimizer/multi_tensor.py",
    "passes/fuse_conv.py",
    "passes/fuse_elementwise.py",
    "passes/fuse_elewise_add_act.py",
    "passes/fuse_linear.py",
    "passes/fuse_matmul_sums.py",
    "sparse/ops.py",
    "sparse/tensor.py",
    "sparse/nn/conv.py",
    "sparse/nn/functional.py",
    "vision/detection/boxes.py",
    "vision/detection/proposals.py",
    "vision/detection/roi.py",
    "vision/detection/yolo.py",
    "vision/detection/deform.py",
    "tensor/array.py",
    "nn/initializer.py",
    "nn/layer/conv.py",
    "optimizer/adam.py",
    "optimizer/adaptive.py",
    "optimizer/optimizer.py",
    "nn/layer/transformer.py",
    "vision/transforms/color.py",
    "vision/transforms/functional.py",
    "vision/transforms/geometric.py",
]

# `np.<name>` an op module may use: dtypes and their limits, constants, and `asarray` for attributes and shapes.
ALLOWED_NP = {
    "dtype", "ndarray", "generic", "number", "integer", "floating", "complexfloating", "bool_",
    "float16", "float32", "float64", "complex64", "complex128",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "finfo", "iinfo", "issubdtype", "result_type", "inf", "nan", "pi", "e", "asarray",
}


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, 0) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


def _np_uses(tree):
    """(line, attribute) of every `np.<attribute>` where `np` is the module's alias of numpy."""
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
               for a in n.names if a.name == "numpy"}
    return [(n.lineno, n.attr) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases]


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "kernels").glob("*.py")))
def test_kernels_import_only_framework_and_kernels(path):
    tree = ast.parse((ROOT / path).read_text())
    for module, level in _imports(tree):
        if level == 1:  # a sibling kernel module
            continue
        if level == 2:
            assert module.startswith("core"), f"{path} imports ..{module}: kernels sit below the ops"
        elif level > 2 or module.split(".")[0] == "oar":
            assert module.startswith("oar.core"), f"{path} imports {module}: kernels sit below the ops"


@pytest.mark.parametrize("path", KERNEL_ONLY)
def test_op_family_calls_kernels_not_numpy(path):
    tree = ast.parse((ROOT / path).read_text())
    bad = [f"line {line}: np.{attr}" for line, attr in _np_uses(tree) if attr not in ALLOWED_NP]
    assert not bad, f"{path} computes with NumPy; move it to oar/kernels: {bad}"
    assert not any(m.split(".")[0] == "numpy" and m != "numpy" for m, _ in _imports(tree)), path


def test_the_check_catches_numpy_compute():
    tree = ast.parse("import numpy as np\nA = defop('exp', np.exp)\nB = np.matmul(a, b)\nC = np.float32\n")
    assert [a for _, a in _np_uses(tree) if a not in ALLOWED_NP] == ["exp", "matmul"]
