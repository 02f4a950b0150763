"""`while` and `for` loops. The body becomes a nested function over the loop variables (the names it
assigns); `_jst.convert_while` / `_jst.convert_for` run a plain Python loop while the condition or the
iterable is Python, and build a `while_loop` op as soon as it depends on a static value.

    while i < n:              def __cond_1():
        i = i + 1      ->         return i < n
                              def __body_2():
                                  nonlocal i
                                  i = i + 1
                              _jst.convert_while(__cond_1, __body_2, __get_3, __set_4, ('i',))

    for v in xs:              def __body_1(__item):
        s = s + v      ->         nonlocal s, v
                                  v = __item
                                  s = s + v
                              _jst.convert_for(xs, __body_1, __get_2, __set_3, ('s', 'v'), 'v', None)
"""
import ast

from .base import BlockTransformer, assigned_names, block_places, function_def, located, state_functions, template
from .ifelse import _places


def _target_spec(t):
    if isinstance(t, ast.Name):
        return t.id
    if isinstance(t, (ast.Tuple, ast.List)):
        parts = [_target_spec(e) for e in t.elts]
        return None if any(p is None for p in parts) else tuple(parts)
    return None


def _loop_places(node, rebound, flag=None):
    """The places a static loop carries: the rebound names the analysis found read again (at the loop head
    or after the loop; all of them when the analysis did not run), attribute paths, objects changed in place."""
    carried = getattr(node, "_oar_carried", None)
    if carried is None:
        return block_places(node, rebound)
    assigned = {t for k, t in node._oar_places if k == "name"}
    local_only = assigned - carried - {flag}
    return block_places(node, [n for n in rebound if n not in local_only], local_only=local_only)


def _extra(node):
    """Keyword arguments: the `try` around the loop, the names it reads before assigning them."""
    out = f", in_try={node._oar_in_try}" if getattr(node, "_oar_in_try", None) else ""
    early = sorted(n for n in getattr(node, "_oar_read_first", ()) if not n.startswith("__"))
    return out + (f", read_first={tuple(early)!r}" if early else "")


class _Loops(BlockTransformer):
    def visit_While(self, node):
        self.generic_visit(node)
        names = list(assigned_names(node.body))
        g = self.globals[-1]
        cname, bname = self.ctx.fresh("cond"), self.ctx.fresh("body")
        cfn = function_def(cname, "", [ast.Return(node.test)], [], g)
        bfn = function_def(bname, "", node.body, names, g)
        places = _loop_places(node, names)
        state, get, set_ = state_functions(places, self.ctx, g)
        call = template(f"_jst.convert_while({cname}, {bname}, {get}, {set_}, {_places(places)}{_extra(node)})")
        return located([cfn, bfn] + state + call, node)

    def visit_For(self, node):
        self.generic_visit(node)
        g = self.globals[-1]
        assign = ast.Assign(targets=[node.target], value=ast.Name("__item", ast.Load()))
        body = located([assign], node) + node.body
        names = list(assigned_names(body))
        bname = self.ctx.fresh("body")
        bfn = function_def(bname, "__item", body, names, g)
        flag = getattr(node, "_oar_break_flag", None)
        places = _loop_places(node, names, flag)
        state, get, set_ = state_functions(places, self.ctx, g)
        brk = f"lambda: {flag}" if flag else "None"
        call = template(f"_jst.convert_for({{it}}, {bname}, {get}, {set_}, {_places(places)}, "
                        f"{_target_spec(node.target)!r}, {brk}{_extra(node)})", it=node.iter)
        return located([bfn] + state + call, node)


def transform(tree, ctx):
    return _Loops(ctx).visit(tree)
