"""`program_to_dot` and `oar inspect --dot`: every op and variable becomes a node, edges follow the data, sub-blocks
are clusters, names with quotes are escaped; the text is checked with Graphviz itself when `dot` is installed."""
import re
import shutil
import subprocess

import oar
from oar.cli import main
from oar.graph.dot import program_to_dot

NODE = re.compile(r'^\s*("(?:[^"\\]|\\.)*") \[label=')
EDGE = re.compile(r'^\s*("(?:[^"\\]|\\.)*") -> ("(?:[^"\\]|\\.)*")')


def parse(text):
    """(nodes, edges, cluster count) of the dot text, checking braces balance outside quoted strings."""
    depth, nodes, edges = 0, set(), []
    unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    for ch in unquoted:
        depth += ch == "{"
        depth -= ch == "}"
        assert depth >= 0
    assert depth == 0
    for line in text.splitlines():
        m = NODE.match(line)
        if m and " -> " not in line.split("[")[0]:
            nodes.add(m.group(1))
        m = EDGE.match(line)
        if m:
            edges.append((m.group(1), m.group(2)))
    return nodes, edges, text.count("subgraph ")


def build():
    oar.enable_static()
    try:
        main_prog = oar.static.Program()
        with oar.static.program_guard(main_prog, oar.static.Program()):
            x = oar.static.data('x"quoted', [None, 3])
            w = oar.static.create_parameter([3, 2], "float32")
            h = oar.matmul(x, w)
            out = oar.static.nn.cond(h.sum() > 0, lambda: oar.nn.functional.relu(h), lambda: h * 2.0)
        return main_prog, x.name, out.name
    finally:
        oar.disable_static()


def test_program_to_dot():
    prog, feed, fetch = build()
    text = program_to_dot(prog, [feed], [fetch])
    assert text.startswith("digraph program {")
    nodes, edges, clusters = parse(text)
    ops = [n for n in nodes if n.startswith('"op')]
    assert len(ops) == sum(len(b.ops) for b in prog.blocks)
    assert clusters == 2  # the cond's true and false blocks
    for a, b in edges:
        assert a in nodes or a.startswith('"op') or a.startswith('"block'), a
        assert b in nodes or b.startswith('"block'), b
    assert '\\"quoted' in text and "palegreen" in text and "orange" in text and "lightgrey" in text
    assert any("matmul" in line and "shape=box" in line for line in text.splitlines())
    if shutil.which("dot"):
        r = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr


def test_inspect_dot(tmp_path, capsys):
    prefix = str(tmp_path / "net")
    oar.jit.save(oar.nn.Sequential(oar.nn.Linear(4, 3), oar.nn.ReLU()), prefix,
                 input_spec=[oar.static.InputSpec([None, 4], "float32", "x")])
    out = tmp_path / "net.dot"
    assert main(["inspect", prefix, "--dot", str(out)]) == 0
    text = out.read_text()
    nodes, edges, _ = parse(text)
    assert '"v0/x"' in nodes and any(a == '"v0/x"' for a, _ in edges)
    assert main(["inspect", prefix + ".pdmodel", "--dot"]) == 0
    assert capsys.readouterr().out == text
    assert main(["inspect", prefix, "--dot", "-", "--method", "nope"]) == 1
    assert "no saved method 'nope'" in capsys.readouterr().err
    assert main(["inspect", str(tmp_path / "missing"), "--dot"]) == 1
