"""Stores into objects become runtime calls, so a trace can log the changes it makes to objects that outlive
the call (`oar/jit/effects.py`); on anything else they do exactly what the statement did. Runs last: the
statements moved into branch and loop functions are rewritten too. Also records the function's `global` and
`nonlocal` names (their final values are replayed after each run).

    d[k] = v            ->   _jst.st_item(v, d, k)          (the value is evaluated first, as in Python)
    o.a = v             ->   _jst.set_attr(v, o, 'a')
    del d[k]            ->   _jst.del_item(d, k)
    d[k] += v           ->   _jst.aug_item(d, k, 'iadd', v)   (d, k names or constants: evaluated once)
    a, o.b = t          ->   a, __st_1 = t; _jst.set_attr(__st_1, o, 'b')
"""
import ast

from .base import Transformer, located, walk_scope

_AUG = {ast.Add: "iadd", ast.Sub: "isub", ast.Mult: "imul", ast.Div: "itruediv", ast.FloorDiv: "ifloordiv",
        ast.Mod: "imod", ast.Pow: "ipow", ast.BitAnd: "iand", ast.BitOr: "ior", ast.BitXor: "ixor",
        ast.LShift: "ilshift", ast.RShift: "irshift", ast.MatMult: "imatmul"}


def _call(name, args):
    return ast.Expr(ast.Call(ast.Attribute(ast.Name("_jst", ast.Load()), name, ast.Load()), args, []))


def _store(target, value):
    """The runtime call storing `value` (an expression) into an attribute or subscript target."""
    obj = _load(target.value)
    if isinstance(target, ast.Attribute):
        return _call("set_attr", [value, obj, ast.Constant(target.attr)])
    return _call("st_item", [value, obj, _load(target.slice)])


def _load(node):
    import copy
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return node


def _pure(node):
    """An expression evaluated twice gives the same thing: names, constants, attribute chains of names."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _pure(node.value)
    if isinstance(node, ast.UnaryOp):
        return _pure(node.operand)
    return False


class _Stores(Transformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], (ast.Attribute, ast.Subscript)):
            return located(_store(node.targets[0], node.value), node)
        after = []

        def swap(t):
            if isinstance(t, (ast.Attribute, ast.Subscript)):
                tmp = self.ctx.fresh("st")
                after.append(_store(t, ast.Name(tmp, ast.Load())))
                return ast.Name(tmp, ast.Store())
            if isinstance(t, (ast.Tuple, ast.List)):
                t.elts = [swap(e) for e in t.elts]
            elif isinstance(t, ast.Starred):
                t.value = swap(t.value)
            return t
        node.targets = [swap(t) for t in node.targets]
        return [node] + [located(s, node) for s in after] if after else node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        t, op = node.target, _AUG.get(type(node.op))
        if op is None or not isinstance(t, (ast.Attribute, ast.Subscript)) or not _pure(t.value):
            return node
        if isinstance(t, ast.Subscript):
            if not _pure(t.slice):
                return node
            return located(_call("aug_item", [_load(t.value), _load(t.slice), ast.Constant(op), node.value]), node)
        return located(_call("aug_attr", [_load(t.value), ast.Constant(t.attr), ast.Constant(op), node.value]), node)

    def visit_Delete(self, node):
        if not all(isinstance(t, ast.Subscript) for t in node.targets):
            return node
        return [located(_call("del_item", [_load(t.value), _load(t.slice)]), node) for t in node.targets]


def transform(tree, ctx):
    fdef = tree.body[0]
    ctx.global_writes = sorted({n for node in ast.walk(fdef) if isinstance(node, ast.Global) for n in node.names})
    ctx.nonlocal_writes = sorted({n for node in walk_scope(fdef.body) if isinstance(node, ast.Nonlocal)
                                  for n in node.names})
    return _Stores(ctx).visit(tree)
