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

from .safe_files import write_files

PICKLE_MAGIC = b"\x80"
NAME_TABLE_KEY = "StructuredToParameterName@@"
_SPLIT_INFO_KEY = "UnpackBigParamInfor@@"


class UnsafePickleError(pickle.UnpicklingError):
    """A Paddle checkpoint asked to import something other than arrays and plain containers."""


def _lodtensor_eval(expr, scope=None, *rest):
    """Stands in for ``builtins.eval`` in Paddle's LoDTensor form ``eval('data', {'data': array})``: returns the
    array and evaluates nothing."""
    if expr == "data" and isinstance(scope, dict) and isinstance(scope.get("data"), np.ndarray) and not rest:
        return scope["data"]
    raise UnsafePickleError("the file calls eval() on something other than a saved tensor")


def _allowed():
    table = {("collections", "OrderedDict"): collections.OrderedDict,
             ("_codecs", "encode"): codecs.encode,
             ("numpy", "ndarray"): np.ndarray,
             ("numpy", "dtype"): np.dtype,
             ("builtins", "tuple"): tuple, ("builtins", "list"): list, ("builtins", "dict"): dict,
             ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "bytearray"): bytearray,
             ("builtins", "eval"): _lodtensor_eval, ("__builtin__", "eval"): _lodtensor_eval}
    try:
        from numpy._core import multiarray  # numpy 2
    except ImportError:
        from numpy.core import multiarray
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        table[(mod, "_reconstruct")] = multiarray._reconstruct
        table[(mod, "scalar")] = multiarray.scalar
    return table


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, f, path, encoding="ASCII"):
        super().__init__(f, encoding=encoding)
        self._path, self._table = path, _allowed()

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


def restricted_load(f, what, encoding="ASCII"):
    """Unpickles the open binary file `f` allowing only arrays and plain containers (see the module docstring);
    `what` names the file in errors. Data-set readers use it for pickled archives (CIFAR's batches).

    Example:
        >>> import io, pickle
        >>> from oar.framework.paddle_pickle import restricted_load
        >>> restricted_load(io.BytesIO(pickle.dumps({"a": [1, 2]})), "demo")
        {'a': [1, 2]}
    """
    return _RestrictedUnpickler(f, what, encoding).load()


def is_pickle(path):
    """Whether `path` starts like a pickle of protocol 2 or newer (what `paddle.save` writes)."""
    with open(path, "rb") as f:
        head = f.read(2)
    return len(head) == 2 and head[:1] == PICKLE_MAGIC and 2 <= head[1] <= 5


def _join_split_arrays(obj):
    """Paddle's protocol 2/3 files cut arrays over 4 GB into ``name@@.i`` slices listed under a key; rejoin."""
    info = obj.pop(_SPLIT_INFO_KEY, None) if isinstance(obj, dict) else None
    for key, v in (info or {}).items():
        parts = [obj.pop(p) for p in v["slices"]]
        obj[key] = np.concatenate(parts).reshape(v["OriginShape"])
    return obj


def _to_oar(obj, return_numpy, tuples_are_tensors):
    from ..tensor.tensor import Tensor
    if tuples_are_tensors and isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) \
            and isinstance(obj[1], np.ndarray):
        return obj[1] if return_numpy else Tensor(obj[1], name=obj[0])
    if isinstance(obj, np.ndarray):
        return obj if return_numpy else Tensor(obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_oar(v, return_numpy, tuples_are_tensors)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_oar(v, return_numpy, tuples_are_tensors) for v in obj)
    return obj


def _has_named_tuple(obj):
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray):
        return True
    if isinstance(obj, dict):
        return any(_has_named_tuple(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_has_named_tuple(v) for v in obj)
    return False


def load_paddle_pickle(path, return_numpy=False, keep_name_table=False):
    """Reads a file written by Paddle's `paddle.save` (arrays become Tensors unless `return_numpy`).

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
        with open(path, "rb") as f:
            obj = _RestrictedUnpickler(f, path).load()
    except UnsafePickleError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError) as e:
        raise ValueError(f"oar.load: {path!r} looks like a Paddle pickle checkpoint but cannot be read: it is "
                         f"truncated or damaged ({type(e).__name__}: {e})") from None
    obj = _join_split_arrays(obj)
    if isinstance(obj, dict) and not keep_name_table:
        obj.pop(NAME_TABLE_KEY, None)
    # Paddle >= 2.1 marks tensors as (name, array) tuples; then bare arrays stay arrays (as paddle.load does)
    if _has_named_tuple(obj):
        return _to_oar(obj, return_numpy, tuples_are_tensors=True)
    return _to_oar(obj, return_numpy, tuples_are_tensors=False)


def _is_state_dict(obj):
    from ..tensor.tensor import Tensor
    return isinstance(obj, dict) and bool(obj) and all(isinstance(v, Tensor) for v in obj.values())


def _to_paddle(obj):
    from ..tensor.tensor import Tensor
    if isinstance(obj, Tensor):
        return (obj._name or "tensor", np.asarray(obj._data))
    if isinstance(obj, dict):
        return {k: _to_paddle(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_paddle(v) for v in obj)
    if isinstance(obj, (np.ndarray, str, bytes, int, float, bool, type(None), np.generic)):
        return obj
    raise TypeError(f"oar.save(protocol='paddle'): cannot save a {type(obj).__name__}; save Tensors, arrays, "
                    "numbers, strings and dicts/lists/tuples of them (a Layer's or Optimizer's state_dict())")


def save_paddle_pickle(obj, path, protocol=4, fsync=True):
    """Writes `obj` as Paddle's `paddle.save` does (a state dict: arrays + the name table; elsewhere a Tensor is
    ``(name, array)``), so Paddle's `paddle.load` reads it. The file is replaced atomically and fsynced
    (`oar.framework.safe_files.write_files`).

    Example:
        >>> oar.save(oar.nn.Linear(2, 3).state_dict(), "for_paddle.pdparams", protocol="paddle")
        >>> sorted(oar.load("for_paddle.pdparams"))
        ['bias', 'weight']
    """
    if _is_state_dict(obj):
        saved = {k: np.asarray(v._data) for k, v in obj.items()}
        saved[NAME_TABLE_KEY] = {k: v._name or k for k, v in obj.items()}
    else:
        saved = _to_paddle(obj)
    write_files({path: pickle.dumps(saved, protocol=protocol)}, fsync=fsync)
