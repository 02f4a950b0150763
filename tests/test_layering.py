"""The package imports follow the layer order of `tools/layers.py` (shown in docs/architecture.md): every import
statement under oar/, at module level or inside a function, `from . import x`, `importlib.import_module("oar.x")`
and tables of module names alike, names a module of its own layer or a lower one; and the layers import each other
without a cycle."""
import ast
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
import layers  # noqa: E402

# Imports of a higher layer kept on purpose: (importing file, imported module) -> why. Keep it empty.
KNOWN_UPWARD = {}


def _rel(path):
    return str(path.relative_to(layers.ROOT))


def test_every_module_has_a_layer():
    missing = [_rel(p) for p in layers.source_files() if layers.layer_of(layers.module_name(p)) is None]
    assert not missing, f"modules in no layer of tools/layers.py LAYERS (add them where they belong): {missing}"


def test_no_import_of_a_higher_layer():
    found = [f"{_rel(imp.path)}:{imp.line} imports {imp.target}: layer '{src}' reaches up to '{dst}'"
             for imp, src, dst in layers.upward_imports() if (_rel(imp.path), imp.target) not in KNOWN_UPWARD]
    assert not found, "imports against the layer order (docs/architecture.md):\n" + "\n".join(found)


def test_known_upward_imports_still_exist():
    present = {(_rel(imp.path), imp.target) for imp, _, _ in layers.upward_imports()}
    assert set(KNOWN_UPWARD) <= present, f"fixed, remove from KNOWN_UPWARD: {set(KNOWN_UPWARD) - present}"


def test_layer_graph_has_no_cycle():
    graph = {}
    for imp in layers.all_imports():
        a, b = layers.layer_of(layers.module_name(imp.path)), layers.layer_of(imp.target)
        if a and b and a != b and (_rel(imp.path), imp.target) not in KNOWN_UPWARD:
            graph.setdefault(a, set()).add(b)
    assert layers.find_cycle(graph) is None, f"the layers import each other in a cycle: {layers.find_cycle(graph)}"


def test_layers_list_top_folders_only():
    """A module's layer is its top folder: `LAYERS` names `oar` itself or a folder/module directly under `oar/`."""
    for name, units in layers.LAYERS:
        for unit in units:
            parts = unit.split(".")
            assert parts[0] == "oar" and len(parts) <= 2, f"layer '{name}' lists {unit}, which is not a top folder"
            assert unit == "oar" or layers._is_module(unit), f"layer '{name}' lists {unit}, which does not exist"


def test_folders_import_each_other_without_a_cycle():
    cycle = layers.find_cycle(layers.unit_graph())
    assert cycle is None, f"folders import each other in a cycle: {' -> '.join(cycle)}"


def test_folder_cycle_is_found():
    assert layers.find_cycle({"oar.io": {"oar.distributed"}, "oar.distributed": {"oar.io"}}) is not None


@pytest.mark.parametrize("source, target", [
    ("import oar.jit.api\n", "oar.jit.api"),
    ("def f():\n    from ..jit import api\n", "oar.jit.api"),
    ("def f():\n    from .. import jit\n", "oar.jit"),
    ("from ..jit.api import to_static\n", "oar.jit.api"),
    ("import importlib\nm = importlib.import_module('oar.jit')\n", "oar.jit"),
    ("import importlib\nm = importlib.import_module('..jit', __name__)\n", "oar.jit"),
    ("from .registry import apply\n", "oar.ops.registry"),
    ("PACKAGES = ('oar.nn',)\n", "oar.nn"),
    ('"""Mentions oar.nn in a docstring."""\n', None),
])
def test_reader_sees_every_import_form(source, target):
    imports = layers.imports_of(layers.PACKAGE / "ops" / "common.py", source)
    assert [imp.target for imp in imports] == ([target] if target else [])


def test_reader_reports_an_upward_import_with_file_and_line(tmp_path):
    path = layers.PACKAGE / "ops" / "registry.py"
    imports = [layers.Import(path, 7, "oar.jit.api")]
    (imp, src, dst), = layers.upward_imports(imports)
    assert (imp.line, src, dst) == (7, "ops", "jit")
    assert "oar/ops/registry.py:7" in repr(imp)


def test_code_lines_leave_out_docstrings_comments_and_blanks(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""Doc\n\nmore."""\n# a comment\n\ndef f():\n    """Doc."""\n    return 1  # why\n')
    assert layers.code_lines(path) == 2
    assert ast.parse(path.read_text())  # the sample is valid Python


def test_size_report_fails_on_a_file_over_the_limit(tmp_path, monkeypatch, capsys):
    import size_report
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * (size_report.LIMIT + 1))
    monkeypatch.setattr(layers, "source_files", lambda: [big])
    monkeypatch.setattr(layers, "ROOT", tmp_path)
    assert size_report.main([]) == 1
    assert "big.py: 601 lines of code" in capsys.readouterr().err
    big.write_text("x = 1\n" * size_report.LIMIT)
    assert size_report.main([]) == 0
