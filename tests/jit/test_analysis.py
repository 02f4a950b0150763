"""oar/jit/analysis: the CFG, reaching definitions, liveness and places, checked on small functions."""
import ast
import textwrap

from oar.jit.analysis import annotate
from oar.jit.analysis.cfg import build_cfg
from oar.jit.analysis.dataflow import liveness, reaching_definitions
from oar.jit.analysis.places import block_places


def fn(src):
    return ast.parse(textwrap.dedent(src)).body[0]


def node_at(graph, line, kind=None):
    return next(n for n in graph.nodes if getattr(n.stmt, "lineno", None) == line and (kind is None or n.kind == kind))


def test_cfg_shapes():
    g = build_cfg(fn("""
    def f(x):
        if x:
            y = 1
        else:
            y = 2
        while x:
            if y:
                break
            x = x - 1
        return y
    """))
    head_if = node_at(g, 3, "if")
    assert [s.stmt.lineno for s in head_if.succ] == [4, 6]
    loop = node_at(g, 7, "loop")
    brk = node_at(g, 9)
    assert g.compound[loop.stmt][1] in brk.succ          # break jumps to the loop's join
    assert loop in node_at(g, 10).succ                    # the body flows back to the head
    assert g.nodes[1] in node_at(g, 11).succ              # return reaches the exit


def test_reaching_definitions():
    f = fn("""
    def f(x):
        if x:
            y = 1
        z = y
        y = 3
        return y
    """)
    g = build_cfg(f)
    reach, _ = reaching_definitions(g, ["x"])
    at_z = reach[node_at(g, 5).idx]
    assert ("y", node_at(g, 4).idx) in at_z and ("y", None) in at_z   # assigned on one path, unassigned on the other
    at_return = reach[node_at(g, 7).idx]
    assert {d for d in at_return if d[0] == "y"} == {("y", node_at(g, 6).idx)}  # the later assignment kills both
    assert ("x", 0) in at_return


def test_liveness_through_loops_and_branches():
    f = fn("""
    def f(x, n):
        s = 0
        t = 5
        for i in range(n):
            u = s + i
            s = u * 2
        if x:
            t = 1
            w = 2
        return s + t
    """)
    g = build_cfg(f)
    live_in, _ = liveness(g)
    assert live_in[node_at(g, 5, "loop").idx] >= {"s", "t"}          # s read in the body, t after
    assert "u" not in live_in[node_at(g, 5, "loop").idx]             # fresh each iteration
    annotate(f)
    loop, branch = f.body[2], f.body[3]
    assert loop._oar_carried == {"s"}                                 # i and u are not carried
    assert branch._oar_live_out >= {"s", "t"} and "w" not in branch._oar_live_out
    assert "w" in branch._oar_undefined


def test_closures_and_locals_keep_names_live():
    f = fn("""
    def f(x):
        g = lambda: y
        if x:
            y = 1
        return g()
    """)
    annotate(f)
    assert "y" in f.body[1]._oar_live_out
    f = fn("""
    def f(x):
        if x:
            y = 1
        return locals()
    """)
    annotate(f)
    assert "<all>" in f.body[0]._oar_live_out


def test_places_names_attributes_containers_and_tensor_items():
    body = ast.parse(textwrap.dedent("""
        a = 1
        self.v = a
        obj.a.b += 2
        d["k"] = 3
        d2["a"][0] = 4
        xs.append(5)
        cache.update(e)
        y[:, k] += v
        del z[0]
        foo(bar)
    """)).body
    assert block_places(body) == [("name", "a"), ("attr", "self.v"), ("attr", "obj.a.b"), ("mut", "d"),
                                  ("mut", "d2"), ("mut", "xs"), ("mut", "cache"), ("mut", "y"), ("mut", "z")]


def test_try_handlers_see_assignments_of_the_body():
    f = fn("""
    def f(x):
        try:
            y = g(x)
            z = 1
        except ValueError:
            return y
        return z
    """)
    g = build_cfg(f)
    live_in, _ = liveness(g)
    assert "y" in live_in[node_at(g, 5).idx]  # the handler may read y after `z = 1` raised
