"""Run-time side of the places the analysis finds (`analysis/places.py`): reading and writing an attribute
path, and snapshots of the objects a tensor-dependent `if` or loop changes in place (lists, dicts, and
tensors changed through `y[i] = v`), so each traced branch starts from the same state and the merged result
is written back into the very objects the user holds.

Place kinds, as the converters pass them: 'name' (a local rebound), 'attr' (an attribute path written),
'mut' (an object changed in place), 'name+mut' / 'attr+mut' (both), 'dead' (a local rebound that no later
code reads: restored after the statement, never an output).

Example:
    >>> d = {"a": [1]}
    >>> snap = Snapshot([d], ("mut",))
    >>> d["a"].append(2); d["b"] = 3
    >>> _ = snap.restore(); d
    {'a': [1]}
"""
from ..graph.variable import Variable
from .undefined import UndefinedVar

_VAR_FIELDS = ("name", "shape", "dtype", "block", "persistable", "stop_gradient")


def ld_attr(base, attr):
    """`base().attr`, or an UndefinedVar when the base or the attribute does not exist (yet)."""
    try:
        obj = base()
    except (NameError, AttributeError):
        return UndefinedVar(attr)
    if isinstance(obj, UndefinedVar):
        return UndefinedVar(attr)
    return getattr(obj, attr, UndefinedVar(attr))


def st_attr(base, attr, value):
    """`base.attr = value`; an UndefinedVar value removes the attribute (it did not exist on that path)."""
    if isinstance(base, UndefinedVar):
        return
    if isinstance(value, UndefinedVar):
        if attr in getattr(base, "__dict__", {}):
            from .store_runtime import del_attr
            del_attr(base, attr)
        return
    if getattr(base, attr, None) is not value:
        from .store_runtime import set_attr
        set_attr(value, base, attr)


def mutable(kind):
    return kind.endswith("mut")


class Snapshot:
    """The contents of every list and dict (recursively) and the binding of every Variable reachable from the
    values of the in-place ('mut') places, taken once; `restore()` puts them back into the same objects."""

    def __init__(self, values, kinds):
        self.saved = {}  # id -> (object, saved contents)
        for v, k in zip(values, kinds):
            if mutable(k):
                self._save(v)
        self.changed = set()  # ids of objects some traced path changed in place

    def _save(self, v):
        if id(v) in self.saved:
            return
        if isinstance(v, list):
            self.saved[id(v)] = (v, list(v))
            for e in v:
                self._save(e)
        elif isinstance(v, dict):
            self.saved[id(v)] = (v, dict(v))
            for e in v.values():
                self._save(e)
        elif isinstance(v, tuple):
            for e in v:
                self._save(e)
        elif isinstance(v, Variable):
            self.saved[id(v)] = (v, _fields(v))

    def _differs(self, obj, saved):
        if isinstance(obj, Variable):
            return _fields(obj) != saved
        if isinstance(obj, list):
            return len(obj) != len(saved) or any(a is not b for a, b in zip(obj, saved))
        return obj.keys() != saved.keys() or any(obj[k] is not saved[k] for k in obj)

    def note_changes(self):
        """Records which saved objects the path just traced changed in place."""
        for key, (obj, saved) in self.saved.items():
            if self._differs(obj, saved):
                self.changed.add(key)

    def restore(self):
        for obj, saved in self.saved.values():
            if isinstance(obj, Variable):
                _set_fields(obj, saved)
            elif isinstance(obj, list):
                obj[:] = saved
            else:
                obj.clear()
                obj.update(saved)
        return self

    def freeze(self, v):
        """A copy of the structure of `v` that later in-place changes cannot reach (leaves shared, but the
        Variables this snapshot holds, which change in place, copied)."""
        if isinstance(v, list):
            return [self.freeze(e) for e in v]
        if isinstance(v, dict):
            return {k: self.freeze(e) for k, e in v.items()}
        if isinstance(v, tuple):
            items = [self.freeze(e) for e in v]
            return v._make(items) if hasattr(v, "_make") else tuple(items)  # a namedtuple stays one
        if isinstance(v, Variable) and id(v) in self.saved:
            return _copy_var(v)
        return v

    def _dirty(self, obj, seen):
        """True when `obj` or a container it held when saved was changed in place."""
        key = id(obj)
        if key in self.changed:
            return True
        if key not in self.saved or key in seen or isinstance(obj, Variable):
            return False
        seen.add(key)
        saved = self.saved[key][1]
        return any(self._dirty(e, seen) for e in (saved if isinstance(saved, list) else saved.values()))

    def write_back(self, orig, new):
        """`new` (a merged value) put into the objects of `orig` that some path changed in place; returns the
        object the place holds afterwards."""
        if orig is new or not self._dirty(orig, set()):
            return new
        if isinstance(orig, Variable) and isinstance(new, Variable):
            _set_fields(orig, _fields(new))
            orig.attrs = new.attrs
            return orig
        saved = self.saved[id(orig)][1]
        if isinstance(orig, list) and isinstance(new, list):
            orig[:] = [self.write_back(saved[i], e) if i < len(saved) else e for i, e in enumerate(new)]
            return orig
        if isinstance(orig, dict) and isinstance(new, dict):
            items = {k: self.write_back(saved[k], e) if k in saved else e for k, e in new.items()}
            orig.clear()
            orig.update(items)
            return orig
        return new


def _fields(v):
    return tuple(getattr(v, k) for k in _VAR_FIELDS)


def _set_fields(v, fields):
    """Points the Python object `v` at another value; the block that holds `v` under its current name keeps a
    copy there (as `Variable._inplace` does), so the program still finds that value."""
    b = v.block
    if b is not None and b.vars.get(v.name) is v:
        b.vars[v.name] = _copy_var(v)
    for k, value in zip(_VAR_FIELDS, fields):
        setattr(v, k, value)


def _copy_var(v):
    c = Variable.__new__(type(v))
    for k in _VAR_FIELDS:
        object.__setattr__(c, k, getattr(v, k))
    for k in ("is_parameter", "trainable", "is_data", "attrs"):
        if hasattr(v, k):
            object.__setattr__(c, k, getattr(v, k))
    return c
