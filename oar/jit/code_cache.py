"""What conversion derives from a code object (its converted code, the globals it loads, the attribute chains and
length-only lists it reads), kept in bounded least-recently-used maps: code objects take no weak references, so
a map keyed by them would otherwise keep every function ever converted -- a `to_static` of a function made at
run time (`exec`, a notebook cell run again, graph-break pieces) -- and its syntax tree for the life of the
process. A function still in use keeps its conversion on itself (`convert.convert_function`); an evicted entry is
only derived again, with the same result, when another function object with that code is converted or traced.

Example:
    >>> cache = CodeCache(capacity=2)
    >>> cache["a"], cache["b"], cache["c"] = 1, 2, 3
    >>> cache.get("a"), cache.get("c"), len(cache)
    (None, 3, 2)
"""
import threading
from collections import OrderedDict

CAPACITY = 1024  # entries per map: more than the distinct functions a large model converts


class CodeCache:
    """A thread-safe map keeping the `capacity` most recently used entries (default `CAPACITY`)."""

    def __init__(self, capacity=None):
        self.capacity = CAPACITY if capacity is None else capacity
        self._data = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, default=None):
        with self._lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                return default
            self._data.move_to_end(key)
            return value

    def __setitem__(self, key, value):
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def pop(self, key, default=None):
        with self._lock:
            return self._data.pop(key, default)

    def clear(self):
        with self._lock:
            self._data.clear()

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)


_MISSING = object()
