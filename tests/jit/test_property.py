"""Property-based: hypothesis generates small random functions with nested if/elif/else, tensor-bounded
`while` and `for`, Python `for range(3)` loops, `break`/`continue`/`return` and `and`/`or`/`not` over tensors,
then checks that the function was really converted (no eager fallback; its tensor control flow became
`cond`/`while` ops) and that the converted function returns what the eager one returns."""
import importlib.util
import itertools
import os
import tempfile

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

import oar as paddle

_ids = itertools.count()

conds = st.sampled_from(["paddle.sum(x) > {c}", "x[0] < {c}", "paddle.mean(x) >= {c}", "s > {c}",
                         "paddle.sum(x) > {c} and s < {c}", "x[1] > {c} or paddle.mean(x) < -{c}",
                         "not s > {c}"])
consts = st.sampled_from(["0.5", "1.0", "-1.0", "2.0", "3.0"])
simple = st.sampled_from(["x = x + {c}", "x = x * 0.5", "s = s + paddle.sum(x)", "x = x - s * 0.1",
                          "s = s * 0.9"])


def _indent(lines):
    return ["    " + line for line in lines]


@st.composite
def blocks(draw, depth=0, in_loop=False):
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["simple", "if", "while", "for_tensor", "for_python"] if depth < 2 else ["simple"]
        kinds += ["break", "continue"] if in_loop else []
        kinds += ["return"] if depth > 0 else []
        kind = draw(st.sampled_from(kinds))
        cond = draw(conds).format(c=draw(consts))
        if kind == "simple":
            lines.append(draw(simple).format(c=draw(consts)))
        elif kind in ("break", "continue"):
            lines += [f"if {cond}:", f"    {kind}"]
        elif kind == "return":
            lines += [f"if {cond}:", "    return x * 2 - s"]
        elif kind == "if":
            lines.append(f"if {cond}:")
            lines += _indent(draw(blocks(depth + 1, in_loop)))
            if draw(st.booleans()):
                lines.append(f"elif {draw(conds).format(c=draw(consts))}:")
                lines += _indent(draw(blocks(depth + 1, in_loop)))
            if draw(st.booleans()):
                lines.append("else:")
                lines += _indent(draw(blocks(depth + 1, in_loop)))
        else:
            k = f"k{depth}_{len(lines)}"
            if kind == "while":   # the counter is advanced first, so `continue` cannot loop forever
                lines += [f"{k} = paddle.zeros([], 'int64')", f"while {k} < n:", f"    {k} = {k} + 1"]
            else:
                lines.append(f"for {k} in range({'n' if kind == 'for_tensor' else '3'}):")
            lines += _indent(draw(blocks(depth + 1, True)))
            if draw(st.booleans()):
                lines.append("else:")
                lines += _indent([draw(simple).format(c=draw(consts))])
    return lines


def _make(lines):
    src = "import oar as paddle\n\n\ndef f(x, n):\n    s = paddle.zeros([])\n" + \
        "".join(f"    {line}\n" for line in lines) + "    return x + s\n"
    path = os.path.join(tempfile.mkdtemp(), f"gen_{next(_ids)}.py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f, src


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(blocks(), st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=3, max_size=3),
       st.integers(0, 3))
def test_random_functions_convert_faithfully(lines, xs, n):
    f, src = _make(lines)
    x = paddle.to_tensor(np.array(xs, "float32"))
    nt = paddle.to_tensor(np.array(n, "int64"))
    want = f(x, nt).numpy()
    sf = paddle.jit.to_static(f)
    got = sf(x, nt).numpy()
    assert sf._eager_reason is None, f"{sf._eager_reason}\n{src}"
    ops = {op.type for b in sf.concrete_program.main_program.blocks for op in b.ops}
    if any(line.lstrip().startswith(("while ", "for k")) and "range(3)" not in line for line in lines):
        assert "while" in ops, src     # a tensor-bounded loop is a while op, not unrolled
    if any(line.lstrip().startswith(("if ", "elif ")) for line in lines):
        assert "cond" in ops, src
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=src)
