"""Writes `oar/core/cupy_names.json`: the public names CuPy implements, per namespace, read from a CuPy wheel's
Python sources without importing CuPy (no GPU, no CUDA needed).

    python -m pip download cupy-cuda12x --no-deps -d /tmp/cupy
    python tools/cupy_names.py /tmp/cupy/cupy_cuda12x-*.whl

A name counts when the namespace's `__init__.py` binds it at module level (import, assignment, def or class) and
it does not start with an underscore. `tests/kernels/test_cupy_coverage.py` checks the kernels' device paths
against this list, and the fake device (`oar/core/fake_device.py`) exposes only these names.
"""
import ast
import json
import pathlib
import re
import sys
import zipfile

NAMESPACES = {  # namespace -> its __init__.py inside the wheel
    "cupy": "cupy/__init__.py",
    "cupy.linalg": "cupy/linalg/__init__.py",
    "cupy.fft": "cupy/fft/__init__.py",
    "cupyx": "cupyx/__init__.py",
    "cupyx.scipy.special": "cupyx/scipy/special/__init__.py",
    "cupy.lib.stride_tricks": "cupy/lib/stride_tricks.py",
}
OUT = pathlib.Path(__file__).resolve().parent.parent / "oar" / "core" / "cupy_names.json"


def bound_names(source):
    """Public names a module binds at its top level (also inside top-level `if`/`try` blocks)."""
    names = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "module", None) != "__future__":
                for a in node.names:
                    if a.name != "*":
                        names.add((a.asname or a.name).split(".")[0])
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            names.add(n.id)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for h in getattr(node, "handlers", []):
                    visit(h.body)
    visit(ast.parse(source).body)
    return sorted(n for n in names if not n.startswith("_"))


def main(wheel):
    version = re.search(r"-(\d+\.\d+\.\d+)-", pathlib.Path(wheel).name)
    with zipfile.ZipFile(wheel) as z:
        table = {ns: bound_names(z.read(path).decode()) for ns, path in NAMESPACES.items()}
    doc = {"source": pathlib.Path(wheel).name, "version": version.group(1) if version else None, "names": table}
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: " + ", ".join(f"{ns} {len(v)}" for ns, v in table.items()))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/cupy_names.py CUPY_WHEEL")
    main(sys.argv[1])
