"""Writes tests/api_coverage/paddle_names.json: the `__all__` of Paddle's sub-namespaces in Paddle 2.6 (read from a
paddlepaddle 2.6 wheel's sources, without importing it) and the names Paddle 3 added (from the installed
paddlepaddle, 3.3.1 when generated), for the API coverage report (`tests/api_coverage/report.py`). Paddle 2.6's
top-level lists stay written out in tests/api_coverage/paddle26_names.py.

Run with a Python that has paddlepaddle 3 installed (never needed by oar or its tests):
    pip download paddlepaddle==2.6.2 --no-deps -d /tmp/pd26
    /work/paddle_venv/bin/python tools/paddle_refs/api_names.py /tmp/pd26/paddlepaddle-2.6.2-*.whl
"""
import ast
import importlib
import json
import pathlib
import sys
import zipfile

NAMESPACES = ["paddle.nn", "paddle.nn.functional", "paddle.nn.initializer", "paddle.nn.utils", "paddle.optimizer",
              "paddle.optimizer.lr", "paddle.io", "paddle.static", "paddle.static.nn", "paddle.vision.models",
              "paddle.vision.transforms", "paddle.vision.datasets", "paddle.metric", "paddle.jit", "paddle.amp",
              "paddle.autograd", "paddle.distributed", "paddle.inference", "paddle.utils", "paddle.callbacks",
              "paddle.text", "paddle.regularizer", "paddle.device", "paddle.incubate", "paddle.incubate.nn",
              "paddle.onnx", "paddle.quantization", "paddle.geometric", "paddle.audio", "paddle.utils.download"]

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "api_coverage" / "paddle_names.json"


def wheel_all(wheel, module):
    """`module.__all__` from the wheel's source (``__all__ = [...]`` and ``__all__ += [...]``)."""
    path = module.replace(".", "/")
    for candidate in (path + "/__init__.py", path + ".py"):
        try:
            tree = ast.parse(wheel.read(candidate).decode())
        except KeyError:
            continue
        names = []
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                names = list(ast.literal_eval(node.value))
            elif isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) == "__all__":
                names += list(ast.literal_eval(node.value))
        return names
    raise FileNotFoundError(f"{module} is not in the wheel")


def main(wheel_path):
    import paddle
    wheel = zipfile.ZipFile(wheel_path)
    out = {}
    for ns in NAMESPACES:
        old = sorted(set(wheel_all(wheel, ns)))
        now = set(importlib.import_module(ns).__all__)
        out[ns] = {"paddle26": old, "paddle3_only": sorted(now - set(old)), "removed_in_3": sorted(set(old) - now)}
    meta = {"paddle26_wheel": pathlib.Path(wheel_path).name, "paddle3_version": paddle.__version__}
    OUT.write_text(json.dumps({**meta, "namespaces": out}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
