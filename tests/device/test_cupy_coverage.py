"""Every array-module function the kernels call on a device path (``xp.<name>``, ``xp.linalg.<name>``,
``xp.fft.<name>``, ``ufunc_kernel("<name>")``) exists in CuPy: checked against `oar/core/cupy_names.json`, the
names read from a CuPy wheel by `tools/cupy_names.py` (no GPU needed)."""
import ast
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2] / "oar"
NAMES = json.loads((ROOT / "core" / "cupy_names.json").read_text())["names"]
KERNELS = sorted((ROOT / "kernels").glob("*.py"))


def device_calls(tree):
    """(line, 'namespace.name') for each array-module name a kernel module uses."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "xp":
            if not n.attr.startswith("__"):  # (module attributes such as __name__)
                out.append((n.lineno, f"cupy.{n.attr}"))
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and \
                isinstance(n.value.value, ast.Name) and n.value.value.id == "xp":
            if n.value.attr in ("linalg", "fft"):
                out.append((n.lineno, f"cupy.{n.value.attr}.{n.attr}"))
            elif n.attr == "at":
                out.append((n.lineno, f"ufunc.at ({n.value.attr}.at: use backend.scatter_add)"))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ufunc_kernel" and \
                n.args and isinstance(n.args[0], ast.Constant):
            out.append((n.lineno, f"cupy.{n.args[0].value}"))
    return out


def known(qualified):
    ns, _, name = qualified.rpartition(".")
    return name in NAMES.get(ns, ())


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_kernel_device_calls_exist_in_cupy(path):
    missing = [f"line {line}: {q}" for line, q in device_calls(ast.parse(path.read_text())) if not known(q)]
    assert not missing, f"{path.name} calls names CuPy lacks (add a shim to oar/kernels/backend.py): {missing}"


def test_the_check_finds_missing_names():
    tree = ast.parse("def k(x):\n    xp = array_module(x)\n    return xp.erf(x) + xp.linalg.inv(x) + xp.sum(x)\n"
                     "y = ufunc_kernel('frompyfunc')\ndef s(a, i, v):\n    xp.add.at(a, i, v)\n")
    assert sorted(q for _, q in device_calls(tree) if not known(q)) == [
        "cupy.erf", "cupy.frompyfunc", "ufunc.at (add.at: use backend.scatter_add)"]


def test_the_list_came_from_a_cupy_wheel():
    doc = json.loads((ROOT / "core" / "cupy_names.json").read_text())
    assert doc["source"].startswith("cupy") and doc["version"]
    assert {"add", "matmul", "einsum", "take_along_axis"} <= set(NAMES["cupy"])
    assert "scatter_add" in NAMES["cupyx"] and "inv" in NAMES["cupy.linalg"]


def test_special_shims_name_cupyx_functions():
    """`backend.special("<name>")` calls cupyx.scipy.special.<name> on the GPU: each name must exist there."""
    for path in KERNELS:
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "special" and n.args:
                assert n.args[0].value in NAMES["cupyx.scipy.special"], f"{path.name}: {n.args[0].value}"
