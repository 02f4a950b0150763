"""The layer order of the `oar` package and a reader of its imports.

`LAYERS` lists oar's top folders (and top-level modules) from the bottom up, so a module's layer is its top folder;
a module may import its own layer and the layers below it, never one above. `tests/test_layering.py` enforces that
on every import statement, module-level or inside a function (`import oar.x`, `from .. import x`,
`importlib.import_module("oar.x")`, and a string naming an oar module outside a docstring: a table of names imported
by name), that the layers import each other without a cycle, and that the folders do too (no two folders of one
layer import each other).
`docs/architecture.md` shows the same order.

Run `python tools/layers.py` to print the layers, their code lines and the edges between them.
"""
import ast
import pathlib
import sys
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "oar"

# Bottom to top. A unit is a folder (package) or a module directly under `oar/`; every module belongs to the unit
# of its top folder, so the tree shows the layers. The root `oar/__init__.py` (the facade that re-exports the public
# API) is the unit `oar`, with the other public namespaces that gather names from several layers.
LAYERS = [
    ("core", ["oar.core", "oar.device", "oar.version"]),
    ("ir", ["oar.ir"]),
    ("kernels", ["oar.kernels"]),
    ("ops", ["oar.ops"]),
    ("eager", ["oar.eager"]),
    ("graph", ["oar.graph"]),
    ("passes", ["oar.passes"]),
    ("nn", ["oar.nn", "oar.regularizer"]),
    ("numerics", ["oar.linalg", "oar.fft", "oar.signal", "oar.sparse", "oar.distribution"]),
    ("jit", ["oar.jit"]),
    ("optimizer", ["oar.optimizer", "oar.amp"]),
    ("io", ["oar.io", "oar.distributed"]),
    ("apps", ["oar.metric", "oar.vision", "oar.text", "oar.audio", "oar.hapi", "oar.callbacks", "oar.dataset",
              "oar.utils", "oar.slim"]),
    ("deploy", ["oar.onnx", "oar.inference", "oar.serving", "oar.lite", "oar.cli", "oar.quantization"]),
    ("namespaces", ["oar", "oar.tensor", "oar.static", "oar.framework", "oar.autograd", "oar.fluid", "oar.base",
                    "oar.incubate", "oar.geometric"]),
]

LAYER_INDEX = {name: i for i, (name, _) in enumerate(LAYERS)}
_UNIT_LAYER = {unit: name for name, units in LAYERS for unit in units}


def unit_of(module):
    """The unit of `module`: `oar` for the root facade, else the folder or module directly under `oar/`
    (None outside the package or when that unit is not listed in `LAYERS`)."""
    parts = module.split(".")
    if parts[0] != "oar":
        return None
    unit = "oar" if len(parts) == 1 else f"oar.{parts[1]}"
    return unit if unit in _UNIT_LAYER else None


def layer_of(module):
    unit = unit_of(module)
    return None if unit is None else _UNIT_LAYER[unit]


def module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _is_module(dotted):
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _resolve_relative(module, is_package, level, name):
    package = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        package = package[:len(package) - (level - 1)]
    return ".".join(package + ([name] if name else []))


class Import:
    """One import of an oar module: where it is written and which module it loads."""

    def __init__(self, path, line, target):
        self.path, self.line, self.target = path, line, target

    def __repr__(self):
        return f"{self.path.relative_to(ROOT)}:{self.line} imports {self.target}"


def imports_of(path, text=None):
    """Every oar module `path` imports, wherever the statement is (module level or in a function); `text` stands
    for the file's contents when given."""
    module = module_name(path)
    is_package = path.name == "__init__.py"
    found, seen = [], set()

    def add(node, target):
        if (target == "oar" or target.startswith("oar.")) and (node.lineno, target) not in seen:
            seen.add((node.lineno, target))
            found.append(Import(path, node.lineno, target))

    tree = ast.parse(path.read_text() if text is None else text, str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree) if _has_docstring(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = _resolve_relative(module, is_package, node.level, node.module)
            for alias in node.names:  # `from pkg import sub` loads the submodule; `from pkg import name` loads pkg
                sub = f"{base}.{alias.name}"
                add(node, sub if alias.name != "*" and _is_module(sub) else base)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and node.value.startswith("oar.") and not node.value.endswith(".") and _is_module(node.value):
            add(node, node.value)  # a module named in a table of names that some code imports by name
        elif isinstance(node, ast.Call) and _is_import_call(node) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                name = first.value
                if name.startswith("."):
                    level = len(name) - len(name.lstrip("."))
                    name = _resolve_relative(module, is_package, level, name.lstrip(".") or None)
                add(node, name)
    return found


def _has_docstring(node):
    return isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body \
        and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
        and isinstance(node.body[0].value.value, str)


def _is_import_call(node):
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def code_lines(path):
    """Lines of code: not blank, not only a comment, not part of a docstring."""
    text = path.read_text()
    tree = ast.parse(text)
    doc_lines = set()
    for node in ast.walk(tree):
        if _has_docstring(node):
            doc_lines.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    count = 0
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and i not in doc_lines:
            count += 1
    return count


def all_imports():
    return [imp for path in source_files() for imp in imports_of(path)]


def upward_imports(imports=None):
    """Imports whose target sits in a higher layer than the importing module: (Import, from_layer, to_layer)."""
    out = []
    for imp in imports if imports is not None else all_imports():
        src, dst = layer_of(module_name(imp.path)), layer_of(imp.target)
        if src and dst and LAYER_INDEX[dst] > LAYER_INDEX[src]:
            out.append((imp, src, dst))
    return out


def unit_graph(imports=None):
    """Edges between units (unit -> set of units it imports), leaving out a unit's imports of itself."""
    graph = defaultdict(set)
    for imp in imports if imports is not None else all_imports():
        a, b = unit_of(module_name(imp.path)), unit_of(imp.target)
        if a and b and a != b:
            graph[a].add(b)
    return graph


def find_cycle(graph):
    """One cycle of `graph` as a list of nodes, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def report(out=sys.stdout):
    lines = defaultdict(int)
    for path in source_files():
        lines[layer_of(module_name(path))] += code_lines(path)
    imports = all_imports()
    edges = defaultdict(int)
    for imp in imports:
        a, b = layer_of(module_name(imp.path)), layer_of(imp.target)
        if a and b and a != b:
            edges[a, b] += 1
    print("layer       code lines  imports (layer: statements)", file=out)
    for name, _ in LAYERS:
        targets = ", ".join(f"{b}: {n}" for (a, b), n in sorted(edges.items(), key=lambda e: LAYER_INDEX[e[0][1]])
                            if a == name)
        print(f"{name:<11} {lines[name]:>10}  {targets}", file=out)
    unassigned = sorted({module_name(p) for p in source_files() if layer_of(module_name(p)) is None})
    if unassigned:
        print("not in any layer:", ", ".join(unassigned), file=out)
    units = unit_graph(imports)
    print("folders (bottom up) and the folders each imports:", file=out)
    for name, members in LAYERS:
        for unit in members:
            print(f"  {name:<11} {unit:<17} -> {', '.join(sorted(units.get(unit, ()))) or '-'}", file=out)
    cycle = find_cycle(units)
    if cycle:
        print(f"folder cycle: {' -> '.join(cycle)}", file=out)
    up = upward_imports(imports)
    print(f"upward imports: {len(up)}", file=out)
    for imp, a, b in up:
        print(f"  {imp} ({a} -> {b})", file=out)
    return len(up) + bool(cycle)


if __name__ == "__main__":
    sys.exit(1 if report() else 0)
