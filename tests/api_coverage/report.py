"""Prints which of Paddle 2.6's public names (tests/api_coverage/paddle26_names.py) exist in oar, per namespace.

Usage: PYTHONPATH=. python tests/api_coverage/report.py [--missing]"""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paddle26_names as N  # noqa: E402


def _resolve(path):
    mod, _, attr = path.partition(".Tensor")
    try:
        obj = importlib.import_module(mod)
    except ImportError:
        return None
    return obj.Tensor if attr == "" and path.endswith(".Tensor") else obj


def coverage():
    """{namespace: (present, missing, owned_elsewhere, excluded)} as sorted name lists."""
    rows = {}
    for ns, (path, names) in N.NAMESPACES.items():
        obj = _resolve(path)
        present, missing, other, excluded = [], [], [], []
        for n in sorted(set(names)):
            if n in N.EXCLUDED:
                excluded.append(n)
            elif obj is not None and hasattr(obj, n):
                present.append(n)
            elif n in N.OWNED_ELSEWHERE:
                other.append(n)
            else:
                missing.append(n)
        rows[ns] = (present, missing, other, excluded)
    return rows


def main(argv):
    for ns, (present, missing, other, excluded) in coverage().items():
        counted = len(present) + len(missing)
        print(f"{ns:22s} {len(present):4d}/{counted:<4d} {100 * len(present) / max(counted, 1):5.1f}%   "
              f"(+{len(other)} linalg names built elsewhere, {len(excluded)} excluded)")
        if "--missing" in argv and missing:
            print("    missing:", " ".join(missing))


if __name__ == "__main__":
    main(sys.argv)
