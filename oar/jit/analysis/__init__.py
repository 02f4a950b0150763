"""Static analysis of one function before conversion (as TF AutoGraph does): a control-flow graph over its
statements (`cfg.py`), the places each statement reads, rebinds and mutates (`places.py`: names, attribute
paths such as `self.v`, containers changed through `d[k] = v` or `xs.append(v)`, tensors changed through
`y[i] = v`), and two data-flow analyses over the graph (`dataflow.py`): reaching definitions and liveness.

`annotate(fn)` runs them and leaves on every `if`/`while`/`for` node what the converters need:

    node._oar_live_out   names live after the statement
    node._oar_carried    (loops) names the body rebinds that are read again: at the loop head or after it
    node._oar_read_first (loops) names the loop may read before its body assigns them
    node._oar_places     the places the statement's bodies change, each as (kind, text):
                         'name' rebound local, 'attr' attribute path written, 'mut' object changed in place
    node._oar_undefined  names some path reaches the statement without assigning (possibly undefined)

Example:
    >>> import ast
    >>> fn = ast.parse("def f(x):\\n    if x > 0:\\n        y = 1\\n        t = 2\\n    return y").body[0]
    >>> annotate(fn)
    >>> sorted(fn.body[0]._oar_live_out), sorted(fn.body[0]._oar_undefined)
    (['y'], ['t', 'y'])
"""
import ast

from .cfg import build_cfg
from .dataflow import liveness, reaching_definitions
from .places import ALWAYS_LIVE, block_places, closure_names  # noqa: F401  (block_places: public)


def annotate(fn):
    """Annotates the `if`/`while`/`for` statements of the function definition `fn` (not its nested
    functions: call `annotate` on them separately)."""
    graph = build_cfg(fn)
    live_in, _ = liveness(graph)
    reach_in, _ = reaching_definitions(graph, _params(fn))
    pinned = closure_names(fn)  # read by nested functions: live wherever they may be called from
    everything = pinned is ALWAYS_LIVE
    for stmt, (head, join) in graph.compound.items():
        after = live_in[join.idx]
        stmt._oar_live_out = ALWAYS_LIVE if everything else set(after) | pinned
        defined = {name for name, site in reach_in[head.idx] if site is not None}
        maybe_undef = {name for name, site in reach_in[head.idx] if site is None}
        stmt._oar_undefined = maybe_undef | (graph.names - defined)
        places = block_places(_bodies(stmt))
        stmt._oar_places = places
        if head.kind == "loop":
            at_head = live_in[head.idx]
            rebound = {text for kind, text in places if kind == "name"}
            stmt._oar_carried = rebound if everything else rebound & (set(at_head) | set(after) | pinned)
            stmt._oar_read_first = rebound & _upward_exposed(stmt)


def _upward_exposed(loop):
    """Names the loop (its test and body) may read before assigning them: live at the entry of a function
    holding just the loop."""
    alone = ast.FunctionDef(name="_", args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                            kw_defaults=[], kwarg=None, defaults=[]), body=[loop], decorator_list=[])
    live_in, _ = liveness(build_cfg(alone))
    return set(live_in[0])


def _bodies(stmt):
    head = [ast.Assign([stmt.target], ast.Constant(None))] if isinstance(stmt, ast.For) else []
    return head + list(stmt.body) + list(stmt.orelse)


def _params(fn):
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return names
