"""`return` anywhere (inside `if`, loops, nested loops) becomes one exit: the value goes to `__return_value`,
`__return_flag` is set, loops are left through `break`, and the statements after are guarded by
`if not __return_flag:`. The function ends with `return __return_value`.

    if x > 0:                 __return_value = _jst.NO_RETURN; __return_flag = False
        return x      ->      if x > 0:
    return -x                     __return_value = x; __return_flag = True
                              if not __return_flag:
                                  __return_value = -x; __return_flag = True
                              return _jst.returned(__return_value)

`_jst.NO_RETURN` ("no return yet") differs from a returned None, so a path that returned None and one that has
not returned yet are never confused.
"""
import ast

from .base import Transformer, LOOPS, guard, located, set_jump, template, walk_scope

FLAG, VALUE = "__return_flag", "__return_value"


def _needs(fn):
    """True when a `return` is nested in a statement (a nested function's returns are its own)."""
    return any(not isinstance(s, ast.Return) and any(isinstance(n, ast.Return) for n in walk_scope(s))
               for s in fn.body)


def _lower(stmts, in_loop):
    out = []
    for s in stmts:
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(None)
            new = template(f"{VALUE} = {{v}}\n{FLAG} = True", v=value)
            if in_loop:
                new.append(ast.Break())
            out.extend(set_jump(located(new, s)))
            return out  # anything after a return is unreachable
        if isinstance(s, ast.If):
            s.body, s.orelse = _lower(s.body, in_loop), _lower(s.orelse, in_loop)
        elif isinstance(s, (ast.With, ast.Try)):
            s.body = _lower(s.body, in_loop)
            if isinstance(s, ast.Try):
                s.orelse, s.finalbody = _lower(s.orelse, in_loop), _lower(s.finalbody, in_loop)
                for h in s.handlers:
                    h.body = _lower(h.body, in_loop)
        elif isinstance(s, LOOPS):
            had = any(isinstance(n, ast.Return) for n in walk_scope(s))
            s.body, s.orelse = _lower(s.body, True), _lower(s.orelse, in_loop)
            out.append(s)
            if had and in_loop:  # leave the enclosing loop too
                out.extend(located(template(f"if {FLAG}:\n    break"), s))
            continue
        out.append(s)
    return out


class _Returns(Transformer):
    def visit_FunctionDef(self, fn):
        self.generic_visit(fn)  # nested user functions first
        if getattr(fn, "_oar_helper", False) or not _needs(fn):
            return fn
        body = guard(_lower(fn.body, False), [FLAG])
        head = located(template(f"{FLAG} = False\n{VALUE} = _jst.NO_RETURN"), fn.body[0])
        tail = located(template(f"return _jst.returned({VALUE})"), fn.body[-1])
        fn.body = head + body + tail
        return fn

    visit_AsyncFunctionDef = visit_FunctionDef


def transform(tree, ctx):
    return _Returns().visit(tree)
