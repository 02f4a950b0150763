"""Property-based: hypothesis generates small functions with side effects on their argument containers and
objects, on module globals (a scalar and a dict of containers), on closure cells (`nonlocal` and a closure
list), and with `and`/`or`/`not` over mixed Python/tensor values; each is called several times, eagerly and
converted (`full_graph=False`), with the globals changed between calls. Eager == converted for the results
AND for every side effect, after every call. OAR_PROPERTY_EXAMPLES sets the number of functions (500 by
default). The source is registered with `linecache` (no files)."""
import itertools
import linecache
import os

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import oar as paddle

Variable = paddle.static.Variable

_ids = itertools.count()

consts = st.sampled_from(["0.5", "1.0", "-1.0", "2.0", "3"])
statements = st.sampled_from([
    "L.append(x * {c})", "L.append({c})", "L.insert(0, x + {c})", "L.extend([x, {c}])",
    "if L:\n    L.pop()", "if len(L) > 1:\n    del L[0]", "L.sort(key=lambda e: 0)", "if len(L) > 3:\n    L.clear()",
    "D['a'] = x + {c}", "D.update(b={c})", "D.pop('a', None)", "D['n'] = D.get('n', 0) + 1",
    "o.v = x * {c}", "o.n += 1", "o.items.append(o.n)",
    "gv = gv + {c}", "G['l'].append(x * gv)", "G['n'] += 1", "G['d']['k'] = x",
    "k += 1", "c.append(k)", "x = x * gv + k", "x = x + len(L)", "x = x + G['n']",
    "r = (L and x) or {c}", "r = not L", "r = (o.n > 2 and x) or -x", "r = (gv > 1) or x",
    "r = x if o.n > 1 else {c}", "x = x + (1 if len(c) > 2 else 0)",
])
returns = st.sampled_from(["x", "x, gv, k", "L", "D", "r", "[x, r]", "o.n", "G['l']"])


def _make(lines, ret, tag):
    body = "".join("        " + ln + "\n" for line in lines for ln in line.splitlines())
    src = ("import oar as paddle\n"
           "gv = 1.0\n"
           "G = {'n': 0, 'l': [], 'd': {}}\n\n\n"
           "def make():\n"
           "    k = 1\n"
           "    c = []\n\n"
           "    def f(x, L, D, o):\n"
           "        global gv\n"
           "        nonlocal k\n"
           "        r = None\n" + body +
           f"        return {ret}\n\n"
           "    def state():\n"
           "        return k, c\n"
           "    return f, state\n")
    name = f"<effects-gen-{tag}-{next(_ids)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    ns = {"__name__": name}
    exec(compile(src, name, "exec"), ns)
    f, state = ns["make"]()
    return ns, f, state, src


class Obj:
    def __init__(self):
        self.v, self.n, self.items = None, 0, []


def values(v, depth=0):
    if isinstance(v, Variable):
        raise AssertionError(f"a static Variable escaped: {v.name}")
    if hasattr(v, "numpy"):
        return ("tensor", np.round(v.numpy().astype("float64"), 4).tolist(), v.dtype.name, tuple(v.shape))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [values(e, depth + 1) for e in v])
    if isinstance(v, dict):
        return ("dict", sorted((str(k), values(e, depth + 1)) for k, e in v.items()))
    if isinstance(v, Obj):
        return ("Obj", values(vars(v), depth + 1))
    if isinstance(v, float):
        return round(v, 4)
    return v


def _snapshot(ns, state, result, args):
    return values([result, list(args[1:]), ns["gv"], ns["G"], list(state())])


@settings(max_examples=int(os.environ.get("OAR_PROPERTY_EXAMPLES", 500)), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(statements, consts), min_size=1, max_size=5), returns, st.floats(-2, 2, width=32),
       st.lists(st.sampled_from([0.5, 2.0, -1.0]), min_size=2, max_size=2))
def test_side_effects_and_python_values_match_eager(stmts, ret, xv, new_globals):
    lines = [s.format(c=c) for s, c in stmts]
    ns_e, f_e, state_e, src = _make(lines, ret, "eager")
    ns_c, f_c, state_c, _ = _make(lines, ret, "converted")
    sf = paddle.jit.to_static(f_c, full_graph=False)
    args_e = [None, [1.0], {"n": 0}, Obj()]
    args_c = [None, [1.0], {"n": 0}, Obj()]
    for call, gv in enumerate([None] + new_globals):
        if gv is not None:   # the globals change between calls
            ns_e["gv"] = ns_c["gv"] = gv
        x = np.array([xv], "float32")
        args_e[0], args_c[0] = paddle.to_tensor(x), paddle.to_tensor(x)
        want_error = got_error = None
        try:
            want = f_e(*args_e)
        except Exception as e:   # what eager raises, converted raises too (same type)
            want_error = type(e)
        try:
            got = sf(*args_c)
        except Exception as e:
            got_error = type(e)
        assert got_error == want_error, f"call {call}: eager raised {want_error}, converted {got_error}\n{src}"
        if want_error is not None:
            return
        assert _snapshot(ns_c, state_c, got, args_c) == _snapshot(ns_e, state_e, want, args_e), \
            f"call {call} differs\n{src}"
