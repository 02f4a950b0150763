"""Size report: lines of code (not blank, not a comment, not a docstring) in total, per layer and for the largest
files of `oar/`. Exits 1 when a file has more than `LIMIT` lines of code (STYLE.md: split it by concept).

    python tools/size_report.py [--top N]
"""
import argparse
import sys
from collections import defaultdict

import layers

LIMIT = 600


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="how many of the largest files to list")
    args = parser.parse_args(argv)
    sizes = {path: layers.code_lines(path) for path in layers.source_files()}
    per_layer = defaultdict(int)
    for path, n in sizes.items():
        per_layer[layers.layer_of(layers.module_name(path))] += n
    tests = sum(layers.code_lines(p) for p in (layers.ROOT / "tests").rglob("*.py"))
    print(f"oar: {sum(sizes.values())} lines of code in {len(sizes)} files (tests: {tests})")
    for name, _ in layers.LAYERS:
        print(f"  {name:<11} {per_layer[name]:>6}")
    print(f"largest files (code lines, limit {LIMIT}; all lines):")
    for path, n in sorted(sizes.items(), key=lambda item: -item[1])[:args.top]:
        print(f"  {n:>6} {len(path.read_text().splitlines()):>6}  {path.relative_to(layers.ROOT)}")
    over = [(path, n) for path, n in sizes.items() if n > LIMIT]
    for path, n in over:
        print(f"{path.relative_to(layers.ROOT)}: {n} lines of code, over the limit of {LIMIT}: split it by concept",
              file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
