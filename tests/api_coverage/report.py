"""Prints which of Paddle's public names exist in oar *and are real*, per namespace.

The lists: Paddle 2.6's top level, Tensor methods, distribution, vision.ops, linalg, fft, signal and sparse written
out in `paddle26_names.py`; the other namespaces' Paddle 2.6 `__all__` from `paddle_names.json` (written by
`tools/paddle_refs/api_names.py` from a paddlepaddle 2.6.2 wheel), which also lists the names Paddle 3 added: those
are shown apart ("p3") and not counted.

A name counts only when it is real, not merely present (``hasattr``): a callable must run somewhere in the test
suite, either as a docstring example that `tests/test_docstring_examples.py` executes or as a call ``name(``,
attribute ``.name`` or quoted ``"name"`` (a table row a test looks up with getattr) in a test file, and its body
must not be a bare ``raise``. Non-callables (dtypes, modules, constants) count when present. Names excluded with a
reason (`EXCLUDED`, `EXCLUDED_3`, and the names Paddle 3 removed) are left out of the count. ``--hasattr`` counts
every present name instead.

Usage: PYTHONPATH=. python tests/api_coverage/report.py [--missing] [--unverified] [--hasattr]"""
import ast
import functools
import importlib
import inspect
import json
import os
import pathlib
import re
import sys
import textwrap

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import paddle26_names as N  # noqa: E402

NAMES = json.loads((HERE / "paddle_names.json").read_text())


def namespaces():
    """{paddle namespace: (oar path, Paddle 2.6 names)}: the hand-written lists, then the generated ones."""
    out = dict(N.NAMESPACES)
    for ns, lists in NAMES["namespaces"].items():
        out.setdefault(ns, ("oar" + ns[len("paddle"):], lists["paddle26"]))
    return out


def paddle3_only(ns):
    return NAMES["namespaces"].get(ns, {}).get("paddle3_only", [])


def _resolve(path):
    mod = path[:-len(".Tensor")] if path.endswith(".Tensor") else path
    try:
        obj = importlib.import_module(mod)
    except ImportError:
        return None
    return obj.Tensor if path.endswith(".Tensor") else obj


@functools.lru_cache(maxsize=1)
def _test_text():
    """The source of every test file except this folder's (which names every Paddle name)."""
    return "\n".join(p.read_text(errors="replace") for p in HERE.parent.rglob("*.py") if HERE not in p.parents)


@functools.lru_cache(maxsize=1)
def _doctested_modules():
    import test_docstring_examples as T
    return set(T._defining_modules())


def _is_stub(fn):
    """True when the function's body (after its docstring) is one ``raise`` statement."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    f = tree.body[0] if tree.body else None
    if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def is_real(name, value):
    """Whether a present name is exercised: see the module docstring."""
    if not callable(value) or inspect.ismodule(value):
        return True
    target = value.__init__ if inspect.isclass(value) else value
    if _is_stub(target):
        return False
    doc = inspect.getdoc(value) or ""
    if ">>>" in doc and getattr(value, "__module__", None) in _doctested_modules():
        return True
    n = re.escape(name)
    return re.search(rf"(\b{n}\s*\(|\.{n}\b|[\"']{n}[\"'])", _test_text()) is not None


def excluded(ns, name):
    """The reason `name` of `ns` is not counted, or None."""
    if ns in N.NAMESPACES:
        return N.EXCLUDED.get(name)
    if name in NAMES["namespaces"][ns].get("removed_in_3", ()):
        return "removed in Paddle 3 (not in paddlepaddle 3.3.1's __all__)"
    return N.EXCLUDED_3.get(ns, {}).get(name)


def coverage(require_real=True):
    """{namespace: (real, unverified, missing, owned_elsewhere, excluded)} as sorted name lists (`unverified`:
    present but not shown to run; with ``require_real=False`` every present name counts as real)."""
    rows = {}
    for ns, (path, names) in namespaces().items():
        obj = _resolve(path)
        real, unverified, missing, other, skipped = [], [], [], [], []
        for n in sorted(set(names)):
            if excluded(ns, n):
                skipped.append(n)
            elif obj is not None and hasattr(obj, n):
                (real if not require_real or is_real(n, getattr(obj, n)) else unverified).append(n)
            elif n in N.OWNED_ELSEWHERE and ns in N.NAMESPACES:
                other.append(n)
            else:
                missing.append(n)
        rows[ns] = (real, unverified, missing, other, skipped)
    return rows


def main(argv):
    rows = coverage(require_real="--hasattr" not in argv)
    total_real = total_counted = 0
    for ns, (real, unverified, missing, other, skipped) in rows.items():
        counted = len(real) + len(unverified) + len(missing)
        total_real, total_counted = total_real + len(real), total_counted + counted
        obj = _resolve(namespaces()[ns][0])
        new = paddle3_only(ns)
        p3 = f", p3 {sum(obj is not None and hasattr(obj, n) for n in new)}/{len(new)}" if new else ""
        print(f"{ns:28s} {len(real):4d}/{counted:<4d} {100 * len(real) / max(counted, 1):5.1f}%   "
              f"(unverified {len(unverified)}, {len(skipped)} excluded{p3})")
        if "--missing" in argv and missing:
            print("    missing:", " ".join(missing))
        if "--unverified" in argv and unverified:
            print("    unverified:", " ".join(unverified))
    print(f"{'all':28s} {total_real:4d}/{total_counted:<4d} {100 * total_real / max(total_counted, 1):5.1f}%")


if __name__ == "__main__":
    os.environ.setdefault("OAR_API_REPORT", "1")
    main(sys.argv)
