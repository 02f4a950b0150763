"""Converts one Python function: source -> AST -> the conversion steps -> code compiled with the ORIGINAL
file name and line numbers (so tracebacks and the static builder's source lines point at the user's code),
closed over the original closure cells.

Example:
    >>> conv = convert_function(f)      # Converted(fn=..., code='def f(x): ...'); ConversionError if not convertible
"""
import ast
import copy
import inspect
import linecache
import textwrap
import threading
import types

from . import log
from .code_cache import CodeCache
from .transformers import STEPS
from .transformers.base import HELPER_RE, Context, to_source

_CODE_CACHE = CodeCache()    # (original code object, its file) -> (new code, Converted template); code objects
                             # compare equal across files when their bodies are the same
_MARK = ("__oar_converted_code__",)  # the last constant of every code object made by conversion (`is_converted`)
_FN_KEY = "__oar_converted__"  # fn.__dict__ key: fn's Converted twin (owned by fn, so it dies with fn and its closure)
_LOCK = threading.RLock()    # two threads converting at once: each function is transformed once, caches stay whole


class Converted:
    """A converted function: `fn` (call it like the original), `code` (the transformed source), `ctx`."""

    def __init__(self, fn, source, ctx):
        self.fn, self._source, self.ctx = fn, source, ctx

    @property
    def code(self):
        return self._source.text()

    @property
    def eager_reason(self):
        return self.ctx.eager_reason


class ConversionError(Exception):
    """The function's source cannot be converted (no source, unsupported syntax)."""


class ConvertedCodeError(ConversionError):
    """The function has source, but the converted code does not compile: a converter's gap, never a reason to run
    the function unconverted inside a program (`x.shape`, `x.size` and tensor `if`s would silently differ)."""


def convert_function(fn):
    """The `Converted` twin of the plain function `fn` (cached), or raises ConversionError. Thread-safe."""
    with _LOCK:
        hit = getattr(fn, "__dict__", {}).get(_FN_KEY)
        if hit is not None and hit.fn.__wrapped_original__ is fn:  # (functools.wraps copies __dict__ to a wrapper)
            return hit
        if not isinstance(fn, types.FunctionType):
            raise ConversionError(f"{fn!r} is not a Python function (a {type(fn).__name__}); it is called as it is")
        code = fn.__code__
        key = (code, code.co_filename)
        entry = _CODE_CACHE.get(key)
        if entry is None:
            entry = _CODE_CACHE[key] = _transform(fn)
        new_code, text, ctx = entry
        conv = Converted(_rebind(fn, new_code), text, ctx)
        conv.fn.__oar_ctx__ = ctx
        fn.__dict__[_FN_KEY] = conv
        return conv


def function_tree(fn):
    """A module holding `fn`'s definition, parsed from its source with the file's line numbers (a function made
    from another's statements, such as a graph-break piece, carries its tree as `__oar_ast__`)."""
    made = getattr(fn, "__oar_ast__", None)
    if made is not None:
        return copy.deepcopy(made)
    if fn.__name__ == "<lambda>":
        from .lambda_source import lambda_function_def
        return lambda_function_def(fn, ConversionError)
    tree = _quick_tree(fn)
    if tree is None:
        try:  # the code object's own source: a functools.wraps wrapper is converted itself, not its __wrapped__
            src = textwrap.dedent(inspect.getsource(fn.__code__))
        except (OSError, TypeError) as e:
            raise ConversionError(f"no source code for {fn.__qualname__}: {e}") from None
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            raise ConversionError(f"cannot parse the source of {fn.__qualname__}: {e}") from None
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ConversionError(f"the source of {fn.__qualname__} is not a function definition")
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    return tree


def _quick_tree(fn):
    """The function's source cut from its file by the lines its code object spans (what inspect.getsource finds
    by scanning every loaded module, ~50-100 ms on a first call), or None to fall back to inspect."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    last = _last_line(code)
    if not lines or last > len(lines):
        return None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines[code.co_firstlineno - 1:last])))
    except SyntaxError:
        return None
    ok = tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) and \
        tree.body[0].name == code.co_name
    return tree if ok else None


def _last_line(code):
    last = code.co_firstlineno
    for _, end, _, _ in code.co_positions():
        if end is not None and end > last:
            last = end
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            last = max(last, _last_line(c))
    return last


def _transform(fn):
    tree = function_tree(fn)
    filename = fn.__code__.co_filename
    ctx = Context(filename, fn.__name__)
    for i, (name, step) in enumerate(STEPS, 1):
        tree = step(tree, ctx)
        if log.code_level():
            log.code(i, name, fn.__name__, to_source(tree))
    fdef = tree.body[0]
    text = _Source(fdef)
    _drop_def_time_expressions(fdef)
    freevars = list(fn.__code__.co_freevars)
    params = ["_jst"] + [v for v in freevars if v != "_jst"]
    if ctx.uses_class_cell and "__class__" not in params:
        params.append("__class__")
    factory = ast.parse(f"def __oar_factory({', '.join(params)}):\n    pass").body[0]
    real_name = fn.__name__
    fdef.name = f"__oar_converted_{fdef.name}"  # so the body's own name still means the global (recursion)
    factory.body = [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))]
    ast.copy_location(factory, fdef)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        compiled = compile(module, filename, "exec")
    except SyntaxError as e:
        raise ConvertedCodeError(f"the converted code of {fn.__qualname__} does not compile ({e}):\n"
                                 f"{text.text()}") from None
    ns = {}
    exec(compiled, fn.__globals__, ns)
    inner = ns["__oar_factory"](*([None] * len(params)))
    new_code = _rename_helpers(inner.__code__.replace(co_name=real_name, co_qualname=fn.__code__.co_qualname))
    return new_code, text, ctx


class _Source:
    """The converted source of a function definition, unparsed when first asked for (most conversions never
    show it; unparsing was a tenth of the conversion time). Holds the tree until then, with what compiling it
    changed (`_drop_def_time_expressions`, the name) put back."""

    def __init__(self, fdef):
        self._fdef, self._text = fdef, None
        a = fdef.args
        args = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]
        self._saved = (fdef.name, list(a.defaults), list(a.kw_defaults), fdef.returns,
                       [(arg, arg.annotation) for arg in args])

    def text(self):
        if self._text is None:
            fdef = self._fdef
            fdef.name, fdef.args.defaults, fdef.args.kw_defaults, fdef.returns, notes = self._saved
            for arg, note in notes:
                arg.annotation = note
            self._text, self._fdef, self._saved = to_source(fdef), None, None
        return self._text


def _drop_def_time_expressions(fdef):
    """Defaults and annotations were evaluated when the user's `def` ran, in the user's scope (`def step(x, m=m)`
    names a local of the enclosing function): the converted function reuses those values (`_rebind`), so the
    compiled `def` must not evaluate them again in the factory, where such names do not exist."""
    a = fdef.args
    a.defaults = [ast.Constant(None) for _ in a.defaults]
    a.kw_defaults = [None if d is None else ast.Constant(None) for d in a.kw_defaults]
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]:
        arg.annotation = None
    fdef.returns = None


def _rename_helpers(code):
    """Generated block functions (`__true_fn_3`, `__body_5`, ...) take the name of the user function they
    belong to, so tracebacks and error notes say `in forward`, never a generated name. Every code object gets
    `_MARK` as its last constant (`is_converted`; no instruction loads it)."""
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if HELPER_RE.match(c.co_name):
                c = c.replace(co_name=code.co_name, co_qualname=code.co_qualname)
            c = _rename_helpers(c)
        consts.append(c)
    consts.append(_MARK)
    return code.replace(co_consts=tuple(consts))


def is_converted(code):
    """True for a code object made by conversion (a converted function, or a function or lambda nested in one):
    marked by its own last constant, so the mark lives and dies with the code object (no process-wide set)."""
    consts = code.co_consts
    return bool(consts) and consts[-1] is _MARK


def _rebind(fn, new_code):
    from . import runtime
    old = fn.__code__.co_freevars
    cells = []
    for name in new_code.co_freevars:
        if name == "_jst":
            cells.append(types.CellType(runtime))
        elif name in old:
            cells.append(fn.__closure__[old.index(name)])
        else:
            cells.append(types.CellType())
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__, new.__doc__, new.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
    new.__dict__.update((k, v) for k, v in fn.__dict__.items() if k != _FN_KEY)
    new.__wrapped_original__ = fn
    return new
