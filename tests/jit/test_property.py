"""Property-based: hypothesis generates small random functions with nested if/elif/else, tensor-bounded
`while` and `for`, Python `for range(3)` loops, `break`/`continue`/`return` and `and`/`or`/`not` over tensors,
writes to dict and list items, to an object's attribute and to tensor items (`y[0] = ...`), and early
returns of tuples, then checks that the function was really converted (no eager fallback; its tensor control
flow became `cond`/`while` ops) and that the converted function returns what the eager one returns, and leaves
the containers and the object as the eager one does. OAR_PROPERTY_EXAMPLES sets the number of functions
(500 by default)."""
import importlib.util
import itertools
import os
import tempfile

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

import oar as paddle

_ids = itertools.count()
# the generated modules must stay on disk while their functions run (to_static reads their source); one folder
# for all of them, removed when the test process exits (a folder per example was left in /tmp before)
_GENERATED = tempfile.TemporaryDirectory(prefix="oar-property-")

conds = st.sampled_from(["paddle.sum(x) > {c}", "x[0] < {c}", "paddle.mean(x) >= {c}", "s > {c}",
                         "paddle.sum(x) > {c} and s < {c}", "x[1] > {c} or paddle.mean(x) < -{c}",
                         "not s > {c}"])
consts = st.sampled_from(["0.5", "1.0", "-1.0", "2.0", "3.0"])
simple = st.sampled_from(["x = x + {c}", "x = x * 0.5", "s = s + paddle.sum(x)", "x = x - s * 0.1",
                          "s = s * 0.9", "d['k'] = d['k'] + x * {c}", "d['n'] = d['n'] * 0.5 + s",
                          "L[0] = L[0] - x * 0.25", "L[1]['v'] = L[1]['v'] + {c}", "o.v = o.v * 0.5 + s",
                          "y[0] = y[0] + s", "y[1] += x[2] * {c}", "x = x + d['k'] * 0.1 + o.v * 0.1"])


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
            lines += [f"if {cond}:", "    return x * 2 - s, d['k'] + L[0] + y"]
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


_PRELUDE = ("s = paddle.zeros([])", "d = {'k': x * 0, 'n': paddle.zeros([])}",
            "L = [x * 0, {'v': paddle.zeros([])}]", "y = x * 1")


class Obj:
    pass


def _make(lines):
    src = "import oar as paddle\n\n\ndef f(x, n, o):\n" + "".join(f"    {line}\n" for line in _PRELUDE) + \
        "".join(f"    {line}\n" for line in lines) + "    return x + s, d['k'] + L[0] + y\n"
    path = os.path.join(_GENERATED.name, f"gen_{next(_ids)}.py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f, src


def _obj():
    o = Obj()
    o.v = paddle.zeros([])
    return o


@settings(max_examples=int(os.environ.get("OAR_PROPERTY_EXAMPLES", 500)), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(blocks(), st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=3, max_size=3),
       st.integers(0, 3))
def test_random_functions_convert_faithfully(lines, xs, n):
    f, src = _make(lines)
    x = paddle.to_tensor(np.array(xs, "float32"))
    nt = paddle.to_tensor(np.array(n, "int64"))
    oe, os_ = _obj(), _obj()
    want = [t.numpy() for t in f(x, nt, oe)]
    sf = paddle.jit.to_static(f)
    got = [t.numpy() for t in sf(x, nt, os_)]
    assert sf._eager_reason is None, f"{sf._eager_reason}\n{src}"
    ops = {op.type for b in sf.concrete_program.main_program.blocks for op in b.ops}
    if any(line.lstrip().startswith(("while ", "for k")) and "range(3)" not in line for line in lines):
        assert "while" in ops, src     # a tensor-bounded loop is a while op, not unrolled
    if any(line.lstrip().startswith(("if ", "elif ")) for line in lines):
        assert "cond" in ops, src
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg=src)
    # the object's attribute written in the program is the program's output value
    np.testing.assert_allclose(np.asarray(os_.v.numpy() if hasattr(os_.v, "numpy") else os_.v),
                               oe.v.numpy(), rtol=1e-4, atol=1e-4, err_msg=src)
