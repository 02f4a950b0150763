"""Property-based: hypothesis generates small random functions with nested if/while/break over tensors and
checks that the converted function gives what the eager one gives."""
import importlib.util
import itertools
import os
import tempfile

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

import oar as paddle

_ids = itertools.count()

conds = st.sampled_from(["paddle.sum(x) > {c}", "x[0] < {c}", "paddle.mean(x) >= {c}", "s > {c}"])
consts = st.sampled_from(["0.5", "1.0", "-1.0", "2.0", "3.0"])
simple = st.sampled_from(["x = x + {c}", "x = x * 0.5", "s = s + paddle.sum(x)", "x = x - s * 0.1",
                          "s = s * 0.9"])


@st.composite
def blocks(draw, depth=0):
    n = draw(st.integers(1, 3))
    lines = []
    for _ in range(n):
        kind = draw(st.sampled_from(["simple", "if", "while"] if depth < 2 else ["simple"]))
        c = draw(consts)
        if kind == "simple":
            lines.append(draw(simple).format(c=c))
        elif kind == "if":
            lines.append(f"if {draw(conds).format(c=c)}:")
            lines += ["    " + l for l in draw(blocks(depth=depth + 1))]
            if draw(st.booleans()):
                lines.append("else:")
                lines += ["    " + l for l in draw(blocks(depth=depth + 1))]
        else:
            k = f"k{depth}_{len(lines)}"
            lines.append(f"{k} = paddle.zeros([], 'int64')")
            lines.append(f"while {k} < n:")
            lines.append(f"    {k} = {k} + 1")
            body = draw(blocks(depth=depth + 1))
            if draw(st.booleans()):
                body = body + [f"if {draw(conds).format(c=draw(consts))}:", "    break"]
            lines += ["    " + l for l in body]
    return lines


def _make(lines):
    src = "import oar as paddle\n\n\ndef f(x, n):\n    s = paddle.zeros([])\n" + \
        "".join(f"    {l}\n" for l in lines) + "    return x + s\n"
    path = os.path.join(tempfile.mkdtemp(), f"gen_{next(_ids)}.py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f, src


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(blocks(), st.lists(st.floats(-3, 3, allow_nan=False), min_size=3, max_size=3), st.integers(0, 3))
def test_random_functions_convert_faithfully(lines, xs, n):
    f, src = _make(lines)
    x = paddle.to_tensor(np.array(xs, "float32"))
    nt = paddle.to_tensor(np.array(n, "int64"))
    want = f(x, nt).numpy()
    got = paddle.jit.to_static(f)(x, nt).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=src)
