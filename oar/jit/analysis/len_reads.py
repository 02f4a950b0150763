"""Places (a name, `self.items`) that a function uses as a list only through its length: `len(p)`, and
mutating calls whose result is dropped (`p.append(v)`, `p.extend(vs)`, `p.insert(i, v)`, `p.pop()`,
`p.clear()`) or item stores (`p[i] = v`, `del p[i]`). What such code computes depends on the list's length,
never on its items, so a guard on the length (and the list's identity) is enough (`guards.py`).

    def f(x):                       # len_only_places(f) == {'hist'}
        hist.append(x)
        if len(hist) > 3:
            hist.pop(0)
        return x * len(hist)
"""
import ast

from .places import place_text

LEN_MUTATORS = frozenset({"append", "extend", "insert", "pop", "clear"})


def len_only_places(fdef):
    """The places of function definition `fdef` whose every use is a length-only one (see the module)."""
    parents = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    ok, bad = set(), set()
    for node in ast.walk(fdef):
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        text = place_text(node)
        if text is None:
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node and not _mutator_call(parent, parents):
            continue  # a longer chain (`self.items` inside `self.items.n`): a use of that chain, judged there
        (ok if _len_only_use(node, parent, parents) else bad).add(text)
    return ok - bad


def _mutator_call(attr, parents):
    call, stmt = parents.get(attr), parents.get(parents.get(attr))
    return attr.attr in LEN_MUTATORS and isinstance(call, ast.Call) and call.func is attr and \
        isinstance(stmt, ast.Expr)


def _len_only_use(node, parent, parents):
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" and \
            parent.args == [node] and not parent.keywords:
        return True
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return _mutator_call(parent, parents)
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, (ast.Store, ast.Del)):
        return not isinstance(parents.get(parent), ast.AugAssign)   # `p[i] += v` reads p[i]
    return False
