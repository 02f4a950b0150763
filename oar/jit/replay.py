"""The replay of a trace's side-effect log (`effects.py`): each logged change with its values as templates --
static Variables become extra outputs of the program, containers and objects made during the trace are rebuilt
on every run, external objects stay themselves, objects reached through the arguments are found again in each
call's arguments -- applied after every run of the program, in program order; and the checks that no static
Variable reaches the caller.

Example:
    >>> from oar.jit.replay import make
    >>> make(("list", [("var", 0), ("const", 2)], list), ["<value of slot 0>"], {})
    ['<value of slot 0>', 2]
"""
from ..graph.variable import Variable
from .static_values import is_array
from .effects import _ATOMIC, _OPAQUE, MISSING, EscapeError, _cell_value


class _Builder:
    """Turns trace-time values into templates: Variables become output slots, containers made during the trace
    are rebuilt at every replay (one new object per trace-time object), external objects stay themselves."""

    def __init__(self, rec):
        self.rec = rec
        self.slots = {}     # id(Variable) -> slot
        self.variables = []
        self.paths = set()   # argument paths the templates use
        self._memo = {}

    def __call__(self, v):
        if isinstance(v, Variable):
            if is_array(v):
                raise EscapeError(f"a list carried through a tensor-dependent loop (the tensor array '{v.name}') "
                                  "would be left in a Python object that outlives the call: keep it local and "
                                  "store oar.stack(...) of it instead")
            s = self.slots.get(id(v))
            if s is None:
                s = self.slots[id(v)] = len(self.variables)
                self.variables.append(v)
            return ("var", s)
        path = self.rec.arg_paths.get(id(v))
        if path is not None and not isinstance(v, _ATOMIC):
            self.paths.add(path)
            return ("arg", path)
        if isinstance(v, _ATOMIC) or isinstance(v, _OPAQUE) or v is MISSING or self.rec.is_external(v):
            return ("const", v)
        key = id(v)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        node = ["const", v]
        self._memo[key] = node
        if isinstance(v, list):
            items = [self(e) for e in v]
            node[:] = ["list", items, type(v)]
        elif isinstance(v, tuple):
            node[:] = ["tuple", [self(e) for e in v], type(v)]
        elif isinstance(v, dict):
            node[:] = ["dict", [(k, self(e)) for k, e in v.items()], type(v)]
        elif isinstance(v, set):
            node[:] = ["set", [self(e) for e in v], type(v)]
        elif type(getattr(v, "__dict__", None)) is dict and _holds_variable(v.__dict__.values()):
            node[:] = ["obj", [(k, self(e)) for k, e in v.__dict__.items()], v]
        node = tuple(node) if node[0] == "const" else node
        self._memo[key] = node
        return node


def _holds_variable(values, depth=0):
    for e in values:
        if isinstance(e, Variable):
            return True
        if depth < 3 and isinstance(e, (list, tuple)) and _holds_variable(e, depth + 1):
            return True
        if depth < 3 and isinstance(e, dict) and _holds_variable(e.values(), depth + 1):
            return True
    return False


def make(node, outs, memo):
    """The value of template `node` for one run (`outs`: the values of the template's Variables)."""
    kind = node[0]
    if kind == "const":
        return node[1]
    if kind == "var":
        return outs[node[1]]
    if kind == "arg":
        return memo["args"][node[1]]
    hit = memo.get(id(node))
    if hit is not None:
        return hit
    if kind == "list":
        out = node[2]() if node[2] is not list else []
        memo[id(node)] = out
        out.extend(make(e, outs, memo) for e in node[1])
    elif kind == "tuple":
        items = [make(e, outs, memo) for e in node[1]]
        t = node[2]
        out = tuple(items) if t is tuple else (t._make(items) if hasattr(t, "_make") else t(items))
    elif kind == "dict":
        out = node[2]() if node[2] is not dict else {}
        memo[id(node)] = out
        for k, e in node[1]:
            out[k] = make(e, outs, memo)
    elif kind == "set":
        out = node[2](make(e, outs, memo) for e in node[1])
    else:  # an object made during the trace holding Variables: a shallow copy per run, attributes rebuilt
        import copy
        out = copy.copy(node[2])
        memo[id(node)] = out
        for k, e in node[1]:
            out.__dict__[k] = make(e, outs, memo)
    memo[id(node)] = out
    return out


class Replay:
    """The logged changes as templates; `apply(outs)` performs them for one run of the program."""

    def __init__(self, ops, rec):
        build = self.build = _Builder(rec)
        self.ops = []
        for kind, target, *args in ops:
            path = rec.arg_paths.get(id(target))
            if path is not None:
                build.paths.add(path)
                target = ("arg", path)
            if kind == "call":
                name, a, k = args
                op = (kind, target, name, [build(v) for v in a], [(n, build(v)) for n, v in k.items()])
            elif kind == "setitem":
                op = (kind, target, build(args[0]), build(args[1]))
            elif kind in ("delitem", "contents"):
                op = (kind, target, build(args[0]))
            elif kind in ("setattr", "global", "cell"):
                op = (kind, target, args[0], build(args[1]))
            else:  # delattr
                op = (kind, target, args[0])
            self.ops.append(op)
        self.variables = build.variables

    def __bool__(self):
        return bool(self.ops)

    def apply(self, outs, memo, call_args=(), call_kwargs=None, check=None):
        """Performs the changes for one run: `outs` the values of `variables`, the call's arguments to find
        the objects reached through them (all found before any change, as the trace found them). With `check`
        (the function's name), asserts that no static Variable was left in what the changes wrote."""
        memo["args"] = {p: _resolve(p, call_args, call_kwargs or {}) for p in self.build.paths}
        for op in self.ops:
            target = op[1]
            if type(target) is tuple and len(target) == 2 and target[0] == "arg":
                target = memo["args"][target[1]]
            self._apply(op[0], target, op[2:], outs, memo)
            if check is not None:
                check_no_variables(written((op[0], target) + tuple(op[2:])),
                                   f"a {type(target).__name__} the function changes", check)

    def _apply(self, kind, target, args, outs, memo):
        if kind == "call":
            name, a, k = args
            getattr(target, name)(*[make(v, outs, memo) for v in a], **{n: make(v, outs, memo) for n, v in k})
        elif kind == "setitem":
            target[make(args[0], outs, memo)] = make(args[1], outs, memo)
        elif kind == "delitem":
            del target[make(args[0], outs, memo)]
        elif kind == "setattr":
            setattr(target, args[0], make(args[1], outs, memo))
        elif kind == "delattr":
            delattr(target, args[0])
        elif kind == "global":
            value = make(args[1], outs, memo)
            if value is MISSING:
                target.pop(args[0], None)
            else:
                target[args[0]] = value
        elif kind == "cell":
            target.cell_contents = make(args[1], outs, memo)
        elif kind == "contents":
            value = make(args[0], outs, memo)
            if isinstance(target, list):
                target[:] = value
            else:
                target.clear()
                target.update(value)


def _resolve(path, args, kwargs):
    (kind, key), *steps = path
    o = args[key] if kind == "arg" else kwargs[key]
    for kind, key in steps:
        o = o[key] if kind == "item" else getattr(o, key)
    return o


def check_no_variables(value, where, function_name):
    """Raises EscapeError when a static Variable is reachable from `value` through containers (and, for an
    object, its own attributes)."""
    stack, seen = [(value, 0)], set()
    while stack:
        o, d = stack.pop()
        if isinstance(o, Variable):
            raise EscapeError(f"to_static('{function_name}') would leave the static value '{o.name}' in {where}; "
                              "static values exist only while a program is built. This is a bug in oar's "
                              "conversion (or a change made by code oar does not track, such as a helper marked "
                              "not_to_static): please report it")
        if isinstance(o, _ATOMIC) or isinstance(o, _OPAQUE) or id(o) in seen or d > 4:
            continue
        seen.add(id(o))
        if isinstance(o, (list, tuple, set, frozenset)):
            stack.extend((e, d + 1) for e in o)
        elif isinstance(o, dict):
            stack.extend((e, d + 1) for e in o.values())
        elif d == 0 and type(getattr(o, "__dict__", None)) is dict:
            stack.extend((e, d + 1) for e in o.__dict__.values())


def written(op):
    """What a replayed change leaves where the caller can see it."""
    kind, target = op[0], op[1]
    if kind == "global":
        return target.get(op[2])
    if kind == "cell":
        return _cell_value(target)
    if kind == "setattr":
        return getattr(target, op[2], None)
    return target if kind != "delattr" else None


def needs_template(out, rec):
    """True when the returned value cannot be rebuilt by flattening: it holds an external list or dict (the
    caller gets that very object back), a namedtuple, or an object with static values in its attributes."""
    stack, seen = [out], set()
    while stack:
        o = stack.pop()
        if isinstance(o, _ATOMIC) or isinstance(o, _OPAQUE) or isinstance(o, Variable) or id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, (list, dict, set)) and rec.is_external(o):
            return True
        if isinstance(o, tuple) and type(o) is not tuple:
            return True
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
        elif isinstance(o, set):
            return True
        elif type(getattr(o, "__dict__", None)) is dict and _holds_variable(o.__dict__.values()):
            return True
    return False
