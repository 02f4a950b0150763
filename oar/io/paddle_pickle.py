"""Paddle 2.x's own checkpoint format (`paddle.save`: a pickle), read without running code from the file.

What Paddle writes (``python/paddle/framework/io.py``, pickle protocol 2-4, default 4):

- a Layer's or Optimizer's state dict becomes a dict of NumPy arrays plus the key
  ``"StructuredToParameterName@@"`` -> ``{structured name: parameter name}``;
- a Tensor anywhere else is pickled as the tuple ``(name, ndarray)`` (the ``tuple`` builtin as a reduce callable);
- a static LoDTensor is pickled as ``eval('data', {'data': ndarray})``.

`load_paddle_pickle` rebuilds that with a restricted unpickler: only NumPy's array/dtype/scalar reconstructors,
``collections.OrderedDict``, ``_codecs.encode`` (protocol 2 byte strings), and ``tuple``/``list``/``dict``/``set``
are importable; ``builtins.eval`` is replaced by a function that only unwraps the LoDTensor form above. Anything
else (a class, ``os.system``, ...) raises `UnsafePickleError` naming the file and the refused global.

`save_paddle_pickle` writes the same layout, so Paddle's ``paddle.load`` reads oar's files.
"""
import codecs
import collections
import os
import pickle

import numpy as np

from ..core.devices import is_device_array, to_host
from ..core.safe_files import write_files

PICKLE_MAGIC = b"\x80"
NAME_TABLE_KEY = "StructuredToParameterName@@"
_SPLIT_INFO_KEY = "UnpackBigParamInfor@@"


MAX_PICKLE_OPS = 5_000_000  # opcodes (and elements copied by list()/tuple()/set()/dict() calls) of one file
MAX_ELEMENTS = 4_000_000  # containers and items of the loaded structure, shared references counted each time


class UnsafePickleError(pickle.UnpicklingError):
    """A Paddle checkpoint asked to import something other than arrays and plain containers."""


class PickleBombError(pickle.UnpicklingError, ValueError):
    """A pickle whose structure would take far more time or memory to build than its size suggests."""


def _lodtensor_eval(expr, scope=None, *rest):
    """Stands in for ``builtins.eval`` in Paddle's LoDTensor form ``eval('data', {'data': array})``: returns the
    array and evaluates nothing."""
    if expr == "data" and isinstance(scope, dict) and isinstance(scope.get("data"), np.ndarray) and not rest:
        return scope["data"]
    raise UnsafePickleError("the file calls eval() on something other than a saved tensor")


_SCALARS = (str, bytes, int, float, bool, complex, type(None), np.generic)


def _check_keys(keys):
    """Refuses dict keys and set members that would not hash in time proportional to their size: only scalars
    and tuples of scalars pass (a nested tuple with shared members hashes in exponential time)."""
    for k in keys:
        if not (isinstance(k, _SCALARS) or (type(k) is tuple and all(isinstance(x, _SCALARS) for x in k))):
            raise PickleBombError(f"a dict key or set member of type {type(k).__name__} holding containers (only "
                                  "numbers, strings and flat tuples are accepted)")


def _reconstruct_empty(multiarray):
    def _reconstruct(subtype, shape, dtype):  # NumPy pickles an array as an empty one, then its bytes (BUILD)
        if subtype is not np.ndarray or not (isinstance(shape, tuple) and len(shape) <= 1 and
                                             all(isinstance(d, int) and 0 <= d <= 1 for d in shape)):
            raise PickleBombError(f"numpy _reconstruct of {getattr(subtype, '__name__', subtype)} with shape "
                                  f"{shape!r:.60} (NumPy writes an empty array there)")
        return multiarray._reconstruct(subtype, shape, dtype)
    return _reconstruct


def _bytearray(*args):
    if not (len(args) == 1 and isinstance(args[0], bytes)
            or len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], str)):
        raise PickleBombError("bytearray() with arguments other than its bytes")
    return bytearray(*args)


class _Reader:
    """The file as the unpickler reads it: a read of more bytes than the file has left (a string declaring a
    length of exabytes) fails before anything is allocated."""

    def __init__(self, f):
        self._f = f
        try:
            here = f.tell()
            self._end = f.seek(0, os.SEEK_END)
            f.seek(here)
        except (AttributeError, OSError, ValueError):
            self._end = None

    def _check(self, n):
        if self._end is not None and n > self._end - self._f.tell():
            raise pickle.UnpicklingError(f"the file declares {n} bytes where {self._end - self._f.tell()} remain "
                                         "(truncated or damaged)")

    def read(self, n=-1):
        if n >= 0:
            self._check(n)
        return self._f.read(n)

    def readinto(self, b):
        self._check(len(b))
        return self._f.readinto(b)

    def readline(self, *a):
        return self._f.readline(*a)


class _RestrictedUnpickler(pickle._Unpickler):
    """Python's own unpickler (the pure-Python one, so each step can be checked) that imports only its `_allowed`
    table, hashes only flat keys, counts opcodes and the elements list()/tuple()/set()/dict() calls copy against
    `MAX_PICKLE_OPS`, and refuses what would allocate from a declared size."""

    def __init__(self, f, path, encoding="ASCII"):
        super().__init__(_Reader(f), encoding=encoding)
        self._path, self._table, self._ops = path, self._allowed(), 0
        self.dispatch = {code: self._counted(fn) for code, fn in pickle._Unpickler.dispatch.items()}
        for op, fn in ((pickle.SETITEM, _setitem), (pickle.SETITEMS, _setitems), (pickle.DICT, _dict),
                       (pickle.ADDITEMS, _additems), (pickle.FROZENSET, _frozenset), (pickle.BUILD, _build)):
            self.dispatch[op[0]] = self._counted(fn)

    def _count(self, n):
        self._ops += n
        if self._ops > MAX_PICKLE_OPS:
            raise PickleBombError(f"over {MAX_PICKLE_OPS:,} pickle steps and copied elements")

    def _counted(self, fn):
        def step(unpickler):
            self._count(1)
            fn(unpickler)
        return step

    def _copying(self, kind, keyed=False):
        """`kind` (a container type) as the file may call it: the elements it copies count as steps; the keys
        of a dict and the members of a set must be flat."""
        def make(*args):
            if args and hasattr(args[0], "__len__"):
                self._count(len(args[0]))
            if keyed and args and kind in (set, frozenset):
                args = (list(args[0]),)
                _check_keys(args[0])
            out = kind(*args)
            if keyed and kind not in (set, frozenset):
                _check_keys(out)
            return out
        return make

    def _allowed(self):
        try:
            from numpy._core import multiarray  # numpy 2
        except ImportError:
            from numpy.core import multiarray
        table = {("collections", "OrderedDict"): self._copying(collections.OrderedDict, True),
                 ("_codecs", "encode"): codecs.encode,
                 ("numpy", "ndarray"): np.ndarray,
                 ("numpy", "dtype"): np.dtype,
                 ("builtins", "tuple"): self._copying(tuple), ("builtins", "list"): self._copying(list),
                 ("builtins", "dict"): self._copying(dict, True), ("builtins", "set"): self._copying(set, True),
                 ("builtins", "frozenset"): self._copying(frozenset, True), ("builtins", "bytearray"): _bytearray,
                 ("builtins", "eval"): _lodtensor_eval, ("__builtin__", "eval"): _lodtensor_eval}
        for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
            table[(mod, "_reconstruct")] = _reconstruct_empty(multiarray)
            table[(mod, "scalar")] = multiarray.scalar
        return table

    def find_class(self, module, name):
        fn = self._table.get((module, name))
        if fn is None and module in ("numpy", "numpy.dtypes") and name.endswith("DType"):
            fn = getattr(np.dtypes, name, None) if hasattr(np, "dtypes") else None  # numpy 2 pickles dtype classes
        if fn is None:
            raise UnsafePickleError(f"{self._path!r} asks to import {module}.{name}; oar reads pickles (Paddle "
                                    "checkpoints, data-set archives) with a restricted unpickler that only rebuilds "
                                    "NumPy arrays and plain containers (never arbitrary objects), so this file is "
                                    "refused")
        return fn

    def persistent_load(self, pid):
        raise UnsafePickleError(f"{self._path!r} uses pickle persistent ids (not a Paddle checkpoint)")


def _setitem(u):
    value, key = u.stack.pop(), u.stack.pop()
    _check_keys((key,))
    u.stack[-1][key] = value


def _setitems(u):
    items = u.pop_mark()
    _check_keys(items[0::2])
    target = u.stack[-1]
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _dict(u):
    items = u.pop_mark()
    _check_keys(items[0::2])
    u.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})


def _additems(u):
    items = u.pop_mark()
    _check_keys(items)
    target = u.stack[-1]
    if not isinstance(target, set):
        raise PickleBombError("ADDITEMS on something other than a set")
    target.update(items)


def _frozenset(u):
    items = u.pop_mark()
    _check_keys(items)
    u.append(frozenset(items))


def _build(u):
    state = u.stack.pop()
    inst = u.stack[-1]
    if not isinstance(inst, (np.ndarray, np.dtype, np.generic)):  # what NumPy's pickles set a state on
        raise UnsafePickleError(f"the file sets the state of a {type(inst).__name__} (only NumPy arrays, dtypes "
                                "and scalars have one)")
    inst.__setstate__(state)


def _containers(obj):
    if isinstance(obj, dict):
        return list(obj.keys()) + list(obj.values())
    return obj if isinstance(obj, (list, tuple, set, frozenset)) else ()


def expanded_size(root, what):
    """Containers and items of `root`, each counted once per reference to it (what a walk of it visits), found in
    time linear in its distinct containers. Raises PickleBombError naming `what` over `MAX_ELEMENTS` or when a
    container contains itself.

    Example:
        >>> from oar.io.paddle_pickle import expanded_size
        >>> leaf = [1, 2]
        >>> expanded_size([leaf, leaf], "demo")   # the outer list, twice the inner one and its two items
        7
    """
    size, visiting, todo = {}, set(), [root]
    while todo:
        obj = todo[-1]
        k = id(obj)
        if k in size:
            todo.pop()
            continue
        kids = _containers(obj)
        if k not in visiting:
            visiting.add(k)
            for c in kids:
                if isinstance(c, (list, tuple, set, frozenset, dict)) and id(c) not in size:
                    if id(c) in visiting:
                        raise PickleBombError(f"{what}: a container that contains itself")
                    todo.append(c)
            continue
        todo.pop()
        visiting.discard(k)
        n = 1 + sum(size.get(id(c), 1) for c in kids)
        if n > MAX_ELEMENTS:
            raise PickleBombError(f"{what}: its structure expands to over {MAX_ELEMENTS:,} elements (shared "
                                  "references repeated: a \"billion laughs\" file)")
        size[k] = n
    return size.get(id(root), 1)


def restricted_load(f, what, encoding="ASCII"):
    """Unpickles the open binary file `f` allowing only arrays and plain containers (see the module docstring),
    within `MAX_PICKLE_OPS` steps and `MAX_ELEMENTS` elements; `what` names the file in every error (a
    `pickle.UnpicklingError`: `UnsafePickleError`, `PickleBombError`, or damage). Data-set readers use it for
    pickled archives (CIFAR's batches).

    Example:
        >>> import io, pickle
        >>> from oar.io.paddle_pickle import restricted_load
        >>> restricted_load(io.BytesIO(pickle.dumps({"a": [1, 2]})), "demo")
        {'a': [1, 2]}
    """
    try:
        obj = _RestrictedUnpickler(f, what, encoding).load()
        expanded_size(obj, what)
    except UnsafePickleError as e:
        raise UnsafePickleError(str(e) if str(e).startswith(repr(what)) else f"{what!r}: {e}") from None
    except PickleBombError as e:
        raise PickleBombError(str(e) if str(e).startswith(str(what)) else f"{what!r}: refused, a pickle bomb: {e}") \
            from None
    except MemoryError:
        raise PickleBombError(f"{what!r}: out of memory while unpickling (a damaged or hostile file)") from None
    except RecursionError:
        raise PickleBombError(f"{what!r}: nested too deeply to unpickle") from None
    return obj


def is_pickle(path):
    """Whether the file `path` (or the seekable binary stream, at its position) starts like a pickle of protocol 2
    or newer (what `paddle.save` writes)."""
    if hasattr(path, "read"):
        pos = path.tell()
        head = path.read(2)
        path.seek(pos)
    else:
        with open(path, "rb") as f:
            head = f.read(2)
    return isinstance(head, bytes) and len(head) == 2 and head[:1] == PICKLE_MAGIC and 2 <= head[1] <= 5


def _join_split_arrays(obj, path):
    """Paddle's protocol 2/3 files cut arrays over 4 GB into ``name@@.i`` slices listed under a key; rejoin them,
    checking the list first (ValueError naming the file)."""
    info = obj.pop(_SPLIT_INFO_KEY, None) if isinstance(obj, dict) else None
    if info is None:
        return obj
    bad = f"oar.load: {path!r} has a bad {_SPLIT_INFO_KEY!r} entry"
    if not isinstance(info, dict):
        raise ValueError(f"{bad}: a {type(info).__name__}, not a dict of arrays to rejoin")
    for key, v in info.items():
        slices = v.get("slices") if isinstance(v, dict) else None
        shape = v.get("OriginShape") if isinstance(v, dict) else None
        if not (isinstance(slices, (list, tuple)) and isinstance(shape, (list, tuple))
                and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
            raise ValueError(f"{bad} {key!r:.60}: expected {{'slices': [names], 'OriginShape': [ints]}}, got "
                             f"{v!r:.80}")
        missing = [p for p in slices if not (isinstance(p, str) and isinstance(obj.get(p), np.ndarray))]
        if missing:
            raise ValueError(f"{bad} {key!r:.60}: slice {missing[0]!r:.60} is not an array of the file")
        parts = [obj[p].reshape(-1) for p in slices]
        if sum(a.size for a in parts) != int(np.prod(shape, dtype=object)) or len({a.dtype for a in parts}) > 1:
            raise ValueError(f"{bad} {key!r:.60}: its slices hold {sum(a.size for a in parts)} values, not the "
                             f"{int(np.prod(shape, dtype=object))} of shape {list(shape)} (or mix dtypes)")
        for p in slices:
            obj.pop(p)
        obj[key] = np.concatenate(parts).reshape(shape)
    return obj


_WALK = object()


def _rebuild(root, leaf):
    """`root` with its dicts, lists and tuples rebuilt and every other value `v` replaced by ``leaf(v)`` (which
    returns `_WALK` for a container to walk into). No recursion (any depth), each distinct container converted
    once (a value referenced twice stays one object, as pickle gives it)."""
    done, todo = {}, [(root, False)]
    while todo:
        obj, ready = todo.pop()
        k = id(obj)
        if k in done:
            continue
        v = leaf(obj)
        if v is not _WALK:
            done[k] = v
            continue
        kids = list(obj.values()) if isinstance(obj, dict) else list(obj)
        if not ready:
            todo.append((obj, True))
            todo.extend((c, False) for c in kids if id(c) not in done)
            continue
        vals = [done[id(c)] for c in kids]
        done[k] = type(obj)(zip(obj.keys(), vals)) if isinstance(obj, dict) else type(obj)(vals)
    return done[id(root)]


def _is_named_tensor(obj):
    return type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray)


def _to_oar(obj, return_numpy, tuples_are_tensors):
    from ..eager.tensor import Tensor

    def leaf(x):
        if tuples_are_tensors and _is_named_tensor(x):
            return x[1] if return_numpy else Tensor(x[1], name=x[0])
        if isinstance(x, np.ndarray):
            return x if return_numpy else Tensor(x)
        return _WALK if isinstance(x, (dict, list, tuple)) else x
    return _rebuild(obj, leaf)


def _has_named_tuple(root):
    seen, todo = set(), [root]
    while todo:
        obj = todo.pop()
        if _is_named_tensor(obj):
            return True
        if isinstance(obj, (dict, list, tuple)) and id(obj) not in seen:
            seen.add(id(obj))
            todo.extend(obj.values() if isinstance(obj, dict) else obj)
    return False


def load_paddle_pickle(path, return_numpy=False, keep_name_table=False):
    """Reads a file (or an open binary stream) written by Paddle's `paddle.save` (arrays become Tensors unless
    `return_numpy`), with `restricted_load`: a hostile file is refused with an error naming it.

    Example:
        >>> import pickle
        >>> with open("lenet.pdparams", "wb") as f:   # the layout paddle.save writes for a state dict
        ...     pickle.dump({"fc.weight": np.ones([2, 3], "float32"),
        ...                  "StructuredToParameterName@@": {"fc.weight": "linear_0.w_0"}}, f, protocol=4)
        >>> state = oar.load("lenet.pdparams")
        >>> list(state), state["fc.weight"].shape
        (['fc.weight'], [2, 3])
    """
    try:
        if hasattr(path, "read"):  # an open binary stream: one pickle, read from its position
            path, obj = "the stream", restricted_load(path, "the stream")
        else:
            with open(path, "rb") as f:
                obj = restricted_load(f, path)
    except (UnsafePickleError, PickleBombError):
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError) as e:
        raise ValueError(f"oar.load: {path!r} looks like a Paddle pickle checkpoint but cannot be read: it is "
                         f"truncated or damaged ({type(e).__name__}: {e})") from None
    obj = _join_split_arrays(obj, path)
    if isinstance(obj, dict) and not keep_name_table:
        obj.pop(NAME_TABLE_KEY, None)
    # Paddle >= 2.1 marks tensors as (name, array) tuples; then bare arrays stay arrays (as paddle.load does)
    return _to_oar(obj, return_numpy, tuples_are_tensors=_has_named_tuple(obj))


def _is_state_dict(obj):
    from ..eager.tensor import Tensor
    return isinstance(obj, dict) and bool(obj) and all(isinstance(v, Tensor) for v in obj.values())


def _to_paddle(obj):
    from ..eager.tensor import Tensor
    if isinstance(obj, Tensor):
        return (obj._name or "tensor", _host(obj._data))
    if isinstance(obj, dict):
        return {k: _to_paddle(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_paddle(v) for v in obj)
    if isinstance(obj, (np.ndarray, str, bytes, int, float, bool, type(None), np.generic)):
        return obj
    raise TypeError(f"oar.save(protocol='paddle'): cannot save a {type(obj).__name__}; save Tensors, arrays, "
                    "numbers, strings and dicts/lists/tuples of them (a Layer's or Optimizer's state_dict())")


def _host(a):
    """`a` as a NumPy array (a GPU array copied to the host: the file holds NumPy arrays, as Paddle's)."""
    return to_host(a) if is_device_array(a) else np.asarray(a)


def save_paddle_pickle(obj, path, protocol=4, fsync=True):
    """Writes `obj` as Paddle's `paddle.save` does (a state dict: arrays + the name table; elsewhere a Tensor is
    ``(name, array)``), so Paddle's `paddle.load` reads it. The file is replaced atomically and fsynced
    (`oar.core.safe_files.write_files`).

    Example:
        >>> oar.save(oar.nn.Linear(2, 3).state_dict(), "for_paddle.pdparams", protocol="paddle")
        >>> sorted(oar.load("for_paddle.pdparams"))
        ['bias', 'weight']
    """
    write_files({path: paddle_pickle_bytes(obj, path, protocol)}, fsync=fsync)


def paddle_pickle_bytes(obj, where, protocol=4):
    """The bytes `paddle.save` writes for `obj` (`where` names the destination in errors)."""
    try:
        if _is_state_dict(obj):
            saved = {k: _host(v._data) for k, v in obj.items()}
            saved[NAME_TABLE_KEY] = {k: v._name or k for k, v in obj.items()}
        else:
            saved = _to_paddle(obj)
        return pickle.dumps(saved, protocol=protocol)
    except RecursionError:
        from .save_load import too_deep
        raise too_deep(where, obj) from None
