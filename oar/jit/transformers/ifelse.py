"""`if`/`elif`/`else` and conditional expressions. Each branch becomes a nested function sharing the
enclosing variables through `nonlocal`; `_jst.convert_ifelse` runs one branch for a Python predicate and
builds a `cond` op for a static one.

    if x > 0:                  def __true_fn_1():
        y = x                      nonlocal y
    else:              ->          y = x
        y = -x                 def __false_fn_2():
                                   nonlocal y
                                   y = -x
                               _jst.convert_ifelse(x > 0, __true_fn_1, __false_fn_2, __get_3, __set_4, ('y',))

    a if c else b      ->   _jst.convert_ifexp(c, lambda: a, lambda: b)
"""
from .base import (BlockTransformer, Transformer, assigned_names, block_places, expr, function_def, located,
                   state_functions, template)


class _IfElse(BlockTransformer):
    def visit_If(self, node):
        self.generic_visit(node)
        names = list(assigned_names(node.body + node.orelse))
        g = self.globals[-1]
        tname, fname = self.ctx.fresh("true_fn"), self.ctx.fresh("false_fn")
        tfn = function_def(tname, "", node.body, names, g)
        ffn = function_def(fname, "", node.orelse, names, g)
        places = block_places(node, names, getattr(node, "_oar_live_out", None))
        state, get, set_ = state_functions(places, self.ctx, g)
        in_try = f", in_try={node._oar_in_try}" if getattr(node, "_oar_in_try", None) else ""
        call = template(f"_jst.convert_ifelse({{t}}, {tname}, {fname}, {get}, {set_}, {_places(places)}{in_try})",
                        t=node.test)
        return located([tfn, ffn] + state + call, node)


class _IfExp(Transformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        return located(expr("_jst.convert_ifexp({t}, lambda: {a}, lambda: {b})", t=node.test, a=node.body,
                            b=node.orelse), node)


def _names(names):
    return "(" + "".join(repr(n) + ", " for n in names) + ")"


def _places(places):
    """The runtime's view of the places: `(('y', 'name'), ('self.v', 'attr'), ...)`."""
    return "(" + "".join(f"({t!r}, {k!r}), " for k, t in places) + ")"


def transform(tree, ctx):
    return _IfElse(ctx).visit(tree)


def transform_ifexp(tree, ctx):
    return _IfExp().visit(tree)
