"""`UndefinedVar`: the value of a name before Python would have assigned it. Converted blocks share names
through `nonlocal`, so such names must exist; any use of one raises UnboundLocalError naming the variable,
the line that used it and the lines that assign it -- exactly when Python would have raised."""
import linecache


def _where():
    from ..static.builder import user_location
    return user_location()


class UndefinedVar:
    __slots__ = ("name", "lines")

    def __init__(self, name, *lines):
        self.name, self.lines = name, lines

    def error(self):
        loc = _where()
        used = f" at {loc[0]}:{loc[1]} ({loc[2]})" if loc else ""
        msg = f"local variable '{self.name}' is used{used} before it is assigned"
        if self.lines and loc:
            srcs = "; ".join(f"line {l}: {linecache.getline(loc[0], l).strip()}" for l in self.lines)
            msg += f"; it is assigned only at {srcs}, on a path that did not run"
        return UnboundLocalError(msg)

    def _raise(self, *args, **kwargs):
        raise self.error()

    def __getattr__(self, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        raise self.error()

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __setitem__ = __float__ = __int__ = __index__ = _raise
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _raise
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _raise
    __neg__ = __pos__ = __abs__ = __invert__ = __lt__ = __le__ = __gt__ = __ge__ = _raise
    __and__ = __or__ = __xor__ = __rand__ = __ror__ = __rxor__ = _raise

    def __repr__(self):
        return f"<undefined {self.name}>"


def check_defined(value):
    """Raises when `value` is an UndefinedVar (used where Python reads a name: returns, call arguments)."""
    if isinstance(value, UndefinedVar):
        raise value.error()
    return value
