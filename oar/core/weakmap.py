"""`WeakIdMap`: a mapping keyed by objects held weakly, looked up by identity.

A `weakref.WeakKeyDictionary` builds a new weak reference on every lookup; the executor looks up its plan cache
and the fed-input registry on every `Executor.run`, so this map keys by ``id(obj)`` and checks the stored weak
reference instead (one dict lookup and one call). An entry goes when its object is collected.

Example:
    >>> from oar.core.weakmap import WeakIdMap
    >>> class Program: pass
    >>> m, p = WeakIdMap(), Program()
    >>> m[p] = "plans"
    >>> m.get(p), len(m)
    ('plans', 1)
    >>> del p
    >>> len(m)
    0
"""
import weakref


class WeakIdMap:
    def __init__(self):
        self._d = {}   # id(obj) -> (weak reference to obj, value)

    def get(self, obj, default=None):
        e = self._d.get(id(obj))
        return e[1] if e is not None and e[0]() is obj else default

    def __setitem__(self, obj, value):
        key, d = id(obj), self._d

        def gone(ref):
            if d.get(key, (None,))[0] is ref:
                del d[key]
        d[key] = (weakref.ref(obj, gone), value)

    def setdefault(self, obj, value):
        got = self.get(obj, _MISSING)
        if got is _MISSING:
            self[obj] = got = value
        return got

    def pop(self, obj, default=None):
        e = self._d.get(id(obj))
        if e is None or e[0]() is not obj:
            return default
        del self._d[id(obj)]
        return e[1]

    def __contains__(self, obj):
        return self.get(obj, _MISSING) is not _MISSING

    def __len__(self):
        return len(self._d)

    def __iter__(self):
        """The live objects, oldest entry first."""
        return iter([o for o in (e[0]() for e in list(self._d.values())) if o is not None])


_MISSING = object()
