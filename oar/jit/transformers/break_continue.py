"""`break` and `continue` become flags: the rest of the loop body is guarded by `if not flag:`, a `break`
flag joins the loop condition, and `for/else` / `while/else` run their `else` when the flag is unset.

    while i < n:                    __break_1 = False
        if i > 3:           ->      while _jst.convert_logical_and(lambda: _jst.convert_logical_not(__break_1),
            break                                                  lambda: i < n):
        i += 1                          if i > 3:
                                            __break_1 = True
                                        if _jst.convert_logical_not(__break_1):
                                            i += 1
"""
import ast

from .base import Transformer, contains, expr, guard, located, set_jump, template


def _replace(stmts, kind, flag):
    out = []
    for s in stmts:
        if isinstance(s, kind):
            out.extend(set_jump(located(template(f"{flag} = True"), s)))
            return out
        if isinstance(s, ast.If):
            s.body, s.orelse = _replace(s.body, kind, flag), _replace(s.orelse, kind, flag)
        elif isinstance(s, ast.With):
            s.body = _replace(s.body, kind, flag)
        elif isinstance(s, ast.Try):
            s.body, s.orelse = _replace(s.body, kind, flag), _replace(s.orelse, kind, flag)
            for h in s.handlers:
                h.body = _replace(h.body, kind, flag)
        out.append(s)
    return out


class _Jumps(Transformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)  # inner loops first
        has_b = contains(node.body, ast.Break, stop_at_loops=True)  # an inner loop's jumps are its own
        has_c = contains(node.body, ast.Continue, stop_at_loops=True)
        before, after = [], []
        flags = []
        if has_c:
            cflag = self.ctx.fresh("continue")
            node.body = located(template(f"{cflag} = False"), node) + _replace(node.body, ast.Continue, cflag)
            flags.append(cflag)
            before = located(template(f"{cflag} = False"), node)
        if has_b:
            bflag = self.ctx.fresh("break")
            node.body = _replace(node.body, ast.Break, bflag)
            flags.append(bflag)
            before = before + located(template(f"{bflag} = False"), node)
            if isinstance(node, ast.While):
                node.test = located(expr(f"_jst.convert_logical_and(lambda: _jst.convert_logical_not({bflag}), "
                                         "lambda: {t})", t=node.test), node.test)
            else:
                node._oar_break_flag = bflag
            if node.orelse:
                after = [located(ast.If(test=expr(f"_jst.convert_logical_not({bflag})"), body=node.orelse,
                                        orelse=[]), node.orelse[0])]
        elif node.orelse:
            after = node.orelse
        node.orelse = []
        if flags:
            node.body = guard(node.body, flags)
        return before + [node] + after

    visit_While = visit_For = _loop


def transform(tree, ctx):
    return _Jumps(ctx).visit(tree)
