"""Reaching definitions and liveness over a `cfg.Graph`, by the usual iterative worklist.

Example:
    >>> import ast
    >>> from .cfg import build_cfg
    >>> g = build_cfg(ast.parse("def f(a):\\n    b = a\\n    return b").body[0])
    >>> live_in, _ = liveness(g)
    >>> sorted(live_in[0])      # at the entry
    ['a']
"""


def liveness(graph):
    """(live_in, live_out): per node index, the names read later on some path before being rebound."""
    n = len(graph.nodes)
    live_in, live_out = [frozenset()] * n, [frozenset()] * n
    work = list(range(n - 1, -1, -1))
    queued = set(work)
    while work:
        i = work.pop()
        queued.discard(i)
        node = graph.nodes[i]
        out = frozenset().union(*(live_in[s.idx] for s in node.succ)) if node.succ else frozenset()
        new_in = frozenset(node.uses | (out - node.defs))
        live_out[i] = out
        if new_in != live_in[i]:
            live_in[i] = new_in
            for p in node.pred:
                if p.idx not in queued:
                    queued.add(p.idx)
                    work.append(p.idx)
    return live_in, live_out


def reaching_definitions(graph, params=()):
    """(reach_in, reach_out): per node index, the set of (name, node index) definitions that reach it; the
    entry defines the parameters, and (name, None) stands for "not assigned yet" on some path."""
    n = len(graph.nodes)
    undefined = frozenset((name, None) for name in graph.names if name not in params)
    start = frozenset((p, 0) for p in params) | undefined
    reach_in, reach_out = [frozenset()] * n, [frozenset()] * n
    reach_out[0] = start
    work = list(range(1, n))
    queued = set(work)
    while work:
        i = work.pop(0)
        queued.discard(i)
        node = graph.nodes[i]
        inn = frozenset().union(*(reach_out[p.idx] for p in node.pred)) if node.pred else frozenset()
        out = frozenset(d for d in inn if d[0] not in node.defs) | {(name, i) for name in node.defs}
        reach_in[i] = inn
        if out != reach_out[i]:
            reach_out[i] = out
            for s in node.succ:
                if s.idx not in queued:
                    queued.add(s.idx)
                    work.append(s.idx)
    return reach_in, reach_out
