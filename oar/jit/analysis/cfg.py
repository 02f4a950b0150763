"""A control-flow graph over one function's statements. Simple statements are nodes; `if`/`while`/`for`
give a head node (the test, or the iterable and target) and a `join` node where their paths meet again
(what is live at the join is live after the statement). `break`/`continue`/`return`/`raise` jump; a `try`
body may jump to each handler after any of its statements.

Example:
    >>> import ast
    >>> g = build_cfg(ast.parse("def f(x):\\n    while x:\\n        x = x - 1\\n    return x").body[0])
    >>> [n.kind for n in g.nodes]
    ['entry', 'exit', 'loop', 'join', 'stmt', 'stmt']
"""
import ast

from .places import uses_defs


class Node:
    __slots__ = ("idx", "kind", "stmt", "succ", "pred", "uses", "defs")

    def __init__(self, idx, kind, stmt):
        self.idx, self.kind, self.stmt = idx, kind, stmt
        self.succ, self.pred = [], []
        self.uses, self.defs = uses_defs(stmt) if stmt is not None else (set(), set())

    def __repr__(self):
        return f"<{self.kind} {self.idx} line {getattr(self.stmt, 'lineno', '-')}>"


class Graph:
    def __init__(self):
        self.nodes = []
        self.compound = {}  # if/while/for statement -> (head node, join node)
        self.names = set()  # every name defined anywhere

    def node(self, kind, stmt=None, plain=False):
        n = Node(len(self.nodes), kind, None if plain else stmt)
        if plain:
            n.stmt = stmt
        self.nodes.append(n)
        self.names |= n.defs
        return n


def _edge(a, b):
    if b not in a.succ:
        a.succ.append(b)
        b.pred.append(a)


class _Builder:
    def __init__(self, graph):
        self.g = graph
        self.loops = []      # (head, join) of the loops we are in
        self.handlers = []   # handler entry nodes of the try bodies we are in

    def block(self, stmts, preds):
        """Adds `stmts` after the nodes `preds`; returns the nodes control leaves the block from."""
        for s in stmts:
            preds = self.stmt(s, preds)
        return preds

    def stmt(self, s, preds):
        g = self.g
        if isinstance(s, ast.If):
            head, join = g.node("if", s), g.node("join", s, plain=True)
            g.compound[s] = (head, join)
            self._link(preds, head)
            for p in self.block(s.body, [head]) + self.block(s.orelse, [head]):
                _edge(p, join)
            if not s.orelse:
                _edge(head, join)
            return [join]
        if isinstance(s, (ast.While, ast.For, ast.AsyncFor)):
            head, join = g.node("loop", s), g.node("join", s, plain=True)
            g.compound[s] = (head, join)
            self._link(preds, head)
            self.loops.append((head, join))
            for p in self.block(s.body, [head]):
                _edge(p, head)
            self.loops.pop()
            for p in self.block(s.orelse, [head]):
                _edge(p, join)
            return [join]
        if isinstance(s, (ast.Break, ast.Continue)):
            n = g.node("stmt", s)
            self._link(preds, n)
            if self.loops:
                head, join = self.loops[-1]
                _edge(n, join if isinstance(s, ast.Break) else head)
            return []
        if isinstance(s, (ast.Return, ast.Raise)):
            n = g.node("stmt", s)
            self._link(preds, n)
            _edge(n, g.nodes[1])
            for h in self.handlers:
                _edge(n, h)
            return []
        if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            entries = [g.node("handler", h) for h in s.handlers]
            self.handlers.extend(entries)
            body_out = self.block(s.body, preds)
            del self.handlers[len(self.handlers) - len(entries):]
            for e in entries:  # an exception may leave the body before any of its statements
                for p in preds:
                    _edge(p, e)
            outs = self.block(s.orelse, body_out)
            for e, h in zip(entries, s.handlers):
                outs = outs + self.block(h.body, [e])
            if s.finalbody:
                outs = self.block(s.finalbody, outs)
            return outs
        if isinstance(s, (ast.With, ast.AsyncWith)):
            n = g.node("stmt", s, plain=True)
            n.uses = set().union(*(uses_defs(ast.Expr(i.context_expr))[0] for i in s.items))
            n.defs = set().union(*(uses_defs(ast.Assign([i.optional_vars], ast.Constant(0)))[1]
                                   for i in s.items if i.optional_vars is not None))
            g.names |= n.defs
            self._link(preds, n)
            return self.block(s.body, [n])
        n = g.node("stmt", s)
        self._link(preds, n)
        return [n]

    def _link(self, preds, n):
        for p in preds:
            _edge(p, n)
        for h in self.handlers:  # any statement of a try body may raise into its handlers
            _edge(n, h)


def build_cfg(fn):
    """The CFG of the function definition `fn`: nodes[0] is the entry, nodes[1] the exit."""
    g = Graph()
    entry, exit_ = g.node("entry"), g.node("exit")
    for p in _Builder(g).block(fn.body, [entry]):
        _edge(p, exit_)
    return g
