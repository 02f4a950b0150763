"""Guards: the Python values a traced program depended on, checked before each run of the cached program.

A trace reads globals, closure cells and attributes of its arguments (`self.flag`, `cfg.n`) and bakes what it saw
into the program. Each such value is written down when the trace starts, as a cheap check: the value for immutables
(ints, strings, tuples of them), the contents for lists/dicts/sets and NumPy arrays (their bytes up to `MAX_ARRAY`
elements, a CRC-32 of them beyond: an in-place write retraces), the identity for any other object. A cached program
runs only while all its checks hold; otherwise the function is traced again and the reason ("global 'g' changed
from 1 to 2") is logged (`oar.jit.set_verbosity(1)`) and listed in `StaticFunction.retrace_reasons`. Tensor
arguments and Python arguments are part of the cache key already.

Example:
    >>> g = 1
    >>> def bump():
    ...     global g
    ...     g = g + 1
    ...     return g
    >>> sf = oar.jit.to_static(bump)
    >>> [sf(), sf(), sf()]
    [2, 3, 4]
    >>> sf.retrace_reasons[0]
    "global 'g' changed from 1 to 2"
"""
import ast
import dis
import sys
import types
import zlib

import numpy as np

from ..core.tensor_methods import TensorMethods
from .code_cache import CodeCache

MISSING = object()
MAX_ITEMS = 256  # a container with more items is checked by identity and length only
MAX_ARRAY = 4096  # a NumPy array with more elements is checked by a CRC-32 of its contents
_VALUE_TYPES = (int, float, complex, str, bytes, bool, type(None), range, slice)
_READS = CodeCache()   # code object -> global names its code (and nested code) loads
_PATHS = CodeCache()   # code object -> attribute chains on its parameters: (('self', 'fc'), ('cfg', 'n'), ...)
_LEN_ONLY = CodeCache()  # code object -> places it uses as a list only through its length (`analysis/len_reads.py`)


def global_reads(code):
    """The global names `code` and its nested code objects load (cached per code object)."""
    hit = _READS.get(code)
    if hit is None:
        names = set()
        stack = [code]
        while stack:
            c = stack.pop()
            names.update(_loaded_globals(c))
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        names.discard("_jst")
        hit = _READS[code] = tuple(sorted(names))
    return hit


_LOAD_GLOBAL, _LOAD_NAME, _EXTENDED_ARG = (dis.opmap[n] for n in ("LOAD_GLOBAL", "LOAD_NAME", "EXTENDED_ARG"))
_GLOBAL_SHIFT = 1 if sys.version_info >= (3, 11) else 0  # 3.11+: LOAD_GLOBAL's low bit says "push NULL"


def _loaded_globals(code):
    """The names `code` itself loads with LOAD_GLOBAL / LOAD_NAME, read from the raw bytecode (what
    `dis.get_instructions` finds, at a tenth of its cost: it was a tenth of a first call's tracing time)."""
    raw, names, ext = code.co_code, code.co_names, 0
    out = set()
    for i in range(0, len(raw), 2):
        op, arg = raw[i], raw[i + 1] | ext
        if op == _EXTENDED_ARG:
            ext = arg << 8
            continue
        ext = 0
        if op == _LOAD_GLOBAL:
            out.add(names[arg >> _GLOBAL_SHIFT])
        elif op == _LOAD_NAME:
            out.add(names[arg])
    return out


def param_paths(fn):
    """Attribute chains rooted at `fn`'s parameters that its body reads (`self.fc`, `cfg.scale`)."""
    code = fn.__code__
    hit = _PATHS.get(code)
    if hit is None:
        hit = _PATHS[code] = _scan_paths(fn)
    return hit


def len_only(fn):
    """Places (`'hist'`, `'self.seen'`) `fn` uses as a list only through `len()` and mutating calls."""
    code = fn.__code__
    hit = _LEN_ONLY.get(code)
    if hit is None:
        from .analysis.len_reads import len_only_places
        from .convert import ConversionError, function_tree
        try:
            hit = frozenset(len_only_places(function_tree(fn).body[0]))
        except (ConversionError, SyntaxError, OSError, TypeError):
            hit = frozenset()
        _LEN_ONLY[code] = hit
    return hit


def _scan_paths(fn):
    from .convert import ConversionError, function_tree
    try:
        fdef = function_tree(fn).body[0]
    except (ConversionError, SyntaxError):
        return ()
    a = fdef.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    parents = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    found = set()
    for node in ast.walk(fdef):
        if not isinstance(node, ast.Attribute) or isinstance(parents.get(node), ast.Attribute):
            continue
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in params:
            continue
        chain.reverse()
        if isinstance(node.ctx, ast.Store) and not isinstance(parents.get(node), ast.AugAssign):
            chain = chain[:-1]  # `self.h = ...` reads only `self`
        if chain:
            found.add((base.id,) + tuple(chain))
    return tuple(sorted(found))


def signature(v, depth=0):
    """What a guard compares: the value of an immutable, the contents of a container, else the identity."""
    t = type(v)
    if t in _VALUE_TYPES:
        return (t, v)
    if t is tuple or (isinstance(v, tuple) and depth < 4):
        return (t, tuple(signature(e, depth + 1) for e in v)) if depth < 4 else ("id", id(v))
    if isinstance(v, (list, dict, set)) and not isinstance(v, TensorMethods):
        if depth >= 4 or len(v) > MAX_ITEMS:
            return ("id", id(v), len(v))
        if isinstance(v, dict):
            return (t, id(v), tuple((k, signature(e, depth + 1)) for k, e in v.items()))
        return (t, id(v), tuple(signature(e, depth + 1) for e in v))
    if t is np.ndarray:
        # a trace bakes an array's values into the program: an in-place write must retrace (the contents up to
        # MAX_ARRAY elements; a larger array by a CRC-32 of its bytes, ~0.15 ms per MB, no copy when contiguous)
        if v.size <= MAX_ARRAY:
            return ("ndarray", id(v), v.shape, v.dtype.str, v.tobytes())
        data = v if v.flags.c_contiguous else np.ascontiguousarray(v)
        return ("ndarray", id(v), v.shape, v.dtype.str, zlib.crc32(memoryview(data).cast("B")))
    if t is types.MethodType:
        return ("method", id(v.__func__), id(v.__self__))
    if t is types.BuiltinMethodType and not isinstance(v.__self__, types.ModuleType):
        # `lst.append`: a new bound object at every read; what it calls is fixed by its receiver and name
        return ("builtin method", id(v.__self__), v.__name__)
    return ("id", id(v))


def _keep(v):
    """References that keep the ids a signature holds valid (no reuse while the guard lives)."""
    if isinstance(v, (list, set, tuple)):
        return (v, tuple(v))
    if isinstance(v, dict):
        return (v, tuple(v.values()))
    if isinstance(v, types.MethodType):
        return (v.__func__, v.__self__)
    if type(v) is types.BuiltinMethodType:
        return v.__self__
    return v


def describe(v):
    if v is MISSING:
        return "undefined"
    if type(v) in _VALUE_TYPES or isinstance(v, tuple):
        text = repr(v)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(v, (list, dict, set)):
        return f"a {type(v).__name__} of {len(v)} items"
    if type(v) is np.ndarray:
        return f"an array {v.dtype}{list(v.shape)} (written in place, or replaced)"
    return f"another {type(v).__name__} object"


class Guard:
    """One check: `read(args, kwargs)` gives the current value, compared with the one seen when tracing;
    `source` is the same read as a Python expression over `a`, `k` and the names in `env`. `len_only`: every
    function of the trace reading this list used only its length (`relax` then checks identity + length)."""
    __slots__ = ("what", "read", "expected", "value", "keep", "identity", "source", "env", "len_only", "length")

    def __init__(self, what, read, value, source, env, len_only=None):
        self.what, self.read, self.value, self.source, self.env = what, read, value, source, env
        self.expected = signature(value)
        self.identity = self.expected[0] == "id" and len(self.expected) == 2
        self.keep = _keep(value)
        # (the analysis runs only for a list)
        self.len_only, self.length = type(value) is list and len_only is not None and len_only(), None

    def holds(self, args, kwargs):
        v = self.read(args, kwargs)
        if self.identity:
            return v is self.value
        if self.length is not None:
            return v is self.value and len(v) == self.length
        return signature(v) == self.expected

    def reason(self, args, kwargs):
        if self.what.endswith("replaced or removed"):
            return self.what
        v = self.read(args, kwargs)
        if self.length is not None and v is self.value:
            return f"{self.what} (read only through its length) changed from {self.length} to {len(v)} items"
        return f"{self.what} changed from {describe(self.value)} to {describe(self.read(args, kwargs))}"


class GuardSet:
    """The guards of one ConcreteProgram (deduplicated by what they read)."""

    def __init__(self):
        self.guards = []
        self._seen = {}  # key -> its Guard (None: its read raised)
        self._fast = None

    def relax(self, contents_logged):
        """After a trace (its changes undone): a list read only through its length is checked by identity and
        length, unless its changes were logged as whole contents (`contents_logged`: ids; the replay then
        writes contents made from its items)."""
        for g in self.guards:
            if g.len_only and g.length is None and id(g.value) not in contents_logged:
                g.length = len(g.value)
                self._fast = None

    def __len__(self):
        return len(self.guards)

    def check(self, args, kwargs):
        """None when every guard holds, else the reason of the first that does not."""
        if self.compiled()(args, kwargs):
            return None
        for g in self.guards:
            if not g.holds(args, kwargs):
                return g.reason(args, kwargs)
        return None

    def compiled(self):
        return self._fast or self._compile()

    def _compile(self):
        """All checks as one generated function (what runs on every warm call): one expression per guard,
        joined by `and`; a read that raises means "does not hold" (the loop above then names the reason)."""
        env, conds = {"_M": MISSING, "_sig": signature}, []
        for i, g in enumerate(self.guards):
            env.update(g.env)
            if g.identity:
                env[f"_v{i}"] = g.value
                conds.append(f"({g.source}) is _v{i}")
            elif g.length is not None:
                env[f"_v{i}"], env[f"_n{i}"] = g.value, g.length
                conds.append(f"(_x := {g.source}) is _v{i} and len(_x) == _n{i}")
            elif type(g.value) in (int, str, bool, type(None)):  # exact type and value, no signature call
                env[f"_v{i}"], env[f"_t{i}"] = g.value, type(g.value)
                conds.append(f"(_x := {g.source}).__class__ is _t{i} and _x == _v{i}")
            else:
                env[f"_e{i}"] = g.expected
                conds.append(f"_sig({g.source}) == _e{i}")
        src = "def check(a, k):\n    try:\n        return " + (" and ".join(conds) or "True") + \
            "\n    except Exception:\n        return False\n"
        exec(compile(src, "<oar.jit guards>", "exec"), env)
        self._fast = env["check"]
        return self._fast

    def _add(self, key, what, read, source, env, args=(), kwargs=None, len_only=None):
        """`len_only()`: True when the function reading it uses it only through its length (asked for lists)."""
        if key in self._seen:
            seen = self._seen[key]
            if seen is not None and seen.len_only and not (len_only is not None and len_only()):
                seen.len_only = False  # another function reads it in full
            return
        self._seen[key] = None
        try:
            value = read(args, kwargs or {})
        except Exception:
            return
        self._seen[key] = Guard(what, read, value, source, env, len_only)
        self.guards.append(self._seen[key])
        self._fast = None

    def add_layer_edits(self):
        """Guards the parameter and sublayer objects the program holds: any replaced or removed one retraces."""
        from ..nn.layer.layers import LAYER_EDITS
        self._add(("layer-edits",), "a Layer's parameter, sublayer or buffer was replaced or removed",
                  lambda a, k: LAYER_EDITS.count, "_le.count", {"_le": LAYER_EDITS})

    def add_function(self, fn, reads_params=None, args=(), kwargs=None):
        """Guards for what `fn` (a converted function about to run) reads from its globals and closure; with
        `reads_params` ((name, getter) of the call's parameters), also the attribute chains on them."""
        g = fn.__globals__
        n = len(self._seen)
        orig = getattr(fn, "__wrapped_original__", fn)
        for name in global_reads(fn.__code__):
            n += 1
            self._add(("global", id(g), name), f"global '{name}'", lambda a, k, g=g, name=name: g.get(name, MISSING),
                      f"_g{n}.get({name!r}, _M)", {f"_g{n}": g}, len_only=lambda p=name: p in len_only(orig))
        for name, cell in zip(orig.__code__.co_freevars, orig.__closure__ or ()):
            n += 1
            self._add(("cell", id(cell)), f"closure variable '{name}'", lambda a, k, c=cell: _cell(c),
                      f"_c{n}.cell_contents", {f"_c{n}": cell}, len_only=lambda p=name: p in len_only(orig))
        if reads_params is None:
            return
        for path in param_paths(orig):
            found = reads_params.get(path[0])
            if found is None:
                continue
            getter, root_source, root_env = found
            root = getter(args, kwargs or {})
            if isinstance(root, (TensorMethods, list, tuple, dict)) or type(root) in _VALUE_TYPES:
                continue  # keyed already
            path = path[:1] + _stable(root, path[1:])
            if len(path) > 1:
                self._add(("path", root_source) + path, ".".join(path),
                          lambda a, k, gt=getter, p=path[1:]: _chain(gt(a, k), p),
                          _path_source(root, root_source, path[1:]), root_env, args, kwargs,
                          len_only=lambda p=".".join(path): p in len_only(orig))


def add_object_method(guards, fn, obj):
    """Guards for a converted method of `obj` (a Layer: its identity is fixed while `LAYER_EDITS` holds) run
    in a trace: what it reads from its globals and closure, and the attribute chains it reads from `self`."""
    code = fn.__code__
    first = code.co_varnames[0] if code.co_argcount else None
    params = {first: (lambda a, k, o=obj: o, f"_o{id(obj)}", {f"_o{id(obj)}": obj})} if first else None
    guards.add_function(fn, params)


def param_getters(fn, layer, args, kwargs):
    """name -> getter(args, kwargs) for each parameter of `fn` as this call passes it (`self`: the layer)."""
    code = getattr(fn, "__wrapped_original__", fn).__code__
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    out = {}
    offset = 0
    if layer is not None and names:
        out[names[0]] = (lambda a, k, o=layer: o, "_self", {"_self": layer})
        offset = 1
    for i, name in enumerate(names[offset:]):
        if i < len(args):
            out[name] = (lambda a, k, i=i: a[i] if i < len(a) else MISSING, f"a[{i}]", {})
        elif name in kwargs:
            out[name] = (lambda a, k, n=name: k.get(n, MISSING), f"k[{name!r}]", {})
    return out


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:
        return MISSING


def _stable(obj, attrs):
    """The part of an attribute chain worth checking: it stops at a tensor (what follows is computed from it),
    before a property (computed at each access) and before a Layer's parameter or sublayer (the `LAYER_EDITS`
    guard covers those)."""
    out = []
    for a in attrs:
        if isinstance(obj, TensorMethods) or isinstance(getattr(type(obj), a, None), property) or \
                _store_of(obj, a) is not None:
            break
        out.append(a)
        obj = getattr(obj, a, MISSING)
        if obj is MISSING:
            break
    return tuple(out)


_STORES = ("_parameters", "_sub_layers", "_buffers")  # where a Layer's __getattr__ finds parameters and sublayers


def _store_of(obj, attr):
    """The store (`_parameters`, ...) a Layer's `__getattr__` finds `attr` in, or None."""
    d = getattr(obj, "__dict__", None)
    if type(d) is not dict or attr in d or not hasattr(type(obj), "__getattr__"):
        return None
    return next((s for s in _STORES if isinstance(d.get(s), dict) and attr in d[s]), None)


def _path_source(obj, source, attrs):
    """The expression reading `attrs` from `obj` (whose expression is `source`)."""
    return source + "".join(f".{a}" for a in attrs)


def _chain(obj, attrs):
    for a in attrs:
        if obj is MISSING:
            return MISSING
        obj = getattr(obj, a, MISSING)
    return obj
