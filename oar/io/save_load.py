"""`oar.save` / `oar.load`: nested dicts/lists of Tensors and plain values in one safetensors file. No pickle.

Format (version ``FORMAT_VERSION``): a safetensors file whose tensors are named ``t0, t1, ...`` and whose
metadata holds ``"oar_format": "<version>"`` and ``"oar_structure"``: JSON describing the object, where

- JSON scalars (null, bool, int, float, string) and lists stand for themselves,
- ``{"tensor": "t3", "name": "linear_0.w_0", "kind": "tensor" | "ndarray", "dtype": "bfloat16"?}`` is a leaf array,
- ``{"dict": [[key, value], ...]}`` is a dict (keys kept with their JSON type, order kept),
- ``{"tuple": [...]}`` is a tuple.

A static `Program` is saved alone, as version 2: no tensors, ``"oar_program"`` holding the program JSON of
`docs/format.md` (``oar.ir.serialize.program_to_dict``) instead of ``"oar_structure"``.

`save` and `load` also take an open binary stream (``io.BytesIO``, a file opened with ``'wb'`` / ``'rb'``): the same
bytes are written at its position, and `load` reads exactly one saved object, so several objects saved one after
the other load back in order.

Changelog:
    1 (2025-06-01): first version. bfloat16 leaves were written as U16 raw bits, now as BF16; both load.
    2 (2026-11-27): files holding a static Program (the other files still say 1, so earlier oar reads them).

Example:
    >>> model = oar.nn.Linear(2, 3)
    >>> oar.save(model.state_dict(), "model.pdparams")
    >>> state = oar.load("model.pdparams")
    >>> sorted(state), state['weight'].shape
    (['bias', 'weight'], [2, 3])
    >>> model.set_state_dict(state)  # missing and unexpected keys
    ([], [])
"""
import json
import os
import sys

import numpy as np

from ..core import safetensors_file
from ..core.safe_files import parse_cost, regular_file

FORMAT_VERSION = 2
_PROGRAM_VERSION = 2  # the first version that can hold a Program
_MAGIC_KEY = "oar_format"
MAX_STRUCTURE_COST = 1 << 30  # parse_cost bound of the header and the structure JSON


def save(obj, path, protocol=4, **configs):
    """Saves `obj` (Tensors, NumPy arrays, plain values, nested in dicts/lists/tuples) to the file `path`.

    The file is replaced atomically (written beside it, fsynced, renamed): a failed or killed save leaves the
    previous file intact.

    Args:
        obj: e.g. ``layer.state_dict()`` or ``optimizer.state_dict()``.
        path: the file to write (parent folders are created), or an open binary stream (``io.BytesIO``) written
            at its position.
        protocol: an int is accepted for Paddle compatibility (oar's format has no pickle protocol);
            ``"paddle"`` writes Paddle's own pickle layout instead, for files that Paddle's ``paddle.load`` reads.
        configs: ``fsync`` (default True; False skips flushing to the disk: faster, but a power loss right after
            the save may lose it).

    Example:
        >>> oar.save({"w": oar.ones([2]), "epoch": 3}, "ckpt.pdparams")
    """
    if _is_stream(path, "write"):
        if protocol == "paddle":
            from .paddle_pickle import paddle_pickle_bytes
            path.write(paddle_pickle_bytes(obj, "the stream"))
        else:
            path.write(safetensors_file.encode(*_contents(obj, "the stream")))
        return
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"oar.save: path must be a file name or a binary stream with write(), got "
                        f"{type(path).__name__}")
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ValueError(f"oar.save: {path!r} is a folder; give a file name such as {path}/model.pdparams")
    if protocol == "paddle":
        from .paddle_pickle import save_paddle_pickle
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        return save_paddle_pickle(obj, path, fsync=bool(configs.get("fsync", True)))
    arrays, meta = _contents(obj, path)
    safetensors_file.write(path, arrays, metadata=meta, fsync=bool(configs.get("fsync", True)))


def _is_stream(f, method):
    return not isinstance(f, (str, bytes, os.PathLike)) and callable(getattr(f, method, None))


def _contents(obj, path):
    """(arrays, metadata) of the file that holds `obj`."""
    from ..ir import Program
    if isinstance(obj, Program):
        from ..graph.serialize import program_to_dict
        return {}, {_MAGIC_KEY: str(_PROGRAM_VERSION),
                    "oar_program": json.dumps(program_to_dict(obj), separators=(",", ":"))}
    arrays = {}
    try:
        structure = _encode(obj, arrays, "obj")
    except RecursionError:
        raise too_deep(path, obj) from None
    return arrays, {_MAGIC_KEY: "1", "oar_structure": json.dumps(structure)}


def nesting_depth(obj):
    """How many dicts/lists/tuples deep `obj` nests (no recursion).

    Example:
        >>> from oar.io.save_load import nesting_depth
        >>> nesting_depth({"a": [1, (2,)]})
        3
    """
    deepest, todo, seen = 0, [(obj, 1)], set()
    while todo:
        x, d = todo.pop()
        if isinstance(x, (dict, list, tuple)) and id(x) not in seen:
            seen.add(id(x))
            deepest = max(deepest, d)
            todo.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))
    return deepest


def too_deep(path, obj):
    """The error for an object nested deeper than a save can write (Python's recursion limit)."""
    return ValueError(f"oar.save: cannot save {path!r}: the object nests {nesting_depth(obj)} dicts/lists/tuples "
                      "deep, deeper than Python's JSON and pickle writers go (the recursion limit, "
                      f"{sys.getrecursionlimit()} frames); flatten it (e.g. keys 'a.b.c' instead of nested dicts)")


def load(path, **configs):
    """Loads an object saved by `oar.save` (Tensors come back as Tensors, NumPy arrays as arrays), or a
    ``.pdparams``/``.pdopt`` file written by Paddle's ``paddle.save`` (read by a restricted unpickler that rebuilds
    only arrays and plain containers; see `oar.io.paddle_pickle`).

    `path` may be an open binary stream: one object is read from its position (oar's format, or a Paddle pickle
    when the stream can seek), leaving the stream after it. A file saved from a static `Program` loads as that
    Program.

    A prefix written by `oar.jit.save` (``path + '.pdiparams'`` exists) gives that model's state dict.
    ``return_numpy=True`` returns every tensor as a NumPy array.

    Example:
        >>> oar.save({'step': 3, 'w': oar.ones([2])}, "ckpt.pdparams")
        >>> state = oar.load("ckpt.pdparams")
        >>> state['step'], state['w'].numpy().tolist()
        (3, [1.0, 1.0])
        >>> oar.load("ckpt.pdparams", return_numpy=True)['w']
        array([1., 1.], dtype=float32)
    """
    if _is_stream(path, "read"):
        from .paddle_pickle import is_pickle, load_paddle_pickle
        if callable(getattr(path, "seek", None)) and is_pickle(path):  # what Paddle's paddle.save wrote
            return load_paddle_pickle(path, bool(configs.get("return_numpy", False)),
                                      bool(configs.get("keep_name_table", False)))
        return _from_meta(*_read_stream(path), "the stream", configs)
    path = os.fspath(path)
    if not os.path.isfile(path) and os.path.isfile(path + ".pdiparams"):
        from ..jit.save_load import load_state_dict_from_prefix
        return load_state_dict_from_prefix(path)
    if not os.path.lexists(path):
        raise FileNotFoundError(f"oar.load: no such file {path!r}")
    if os.path.isdir(path):
        raise ValueError(f"oar.load: {path!r} is a folder, not a file saved by oar.save")
    regular_file(path, "oar.save")
    from .paddle_pickle import is_pickle, load_paddle_pickle
    if is_pickle(path):
        return load_paddle_pickle(path, bool(configs.get("return_numpy", False)),
                                  bool(configs.get("keep_name_table", False)))
    return _from_meta(*_read(path), repr(path), configs)


def _from_meta(meta, tensors, where, configs):
    """The object a file's metadata and tensors describe."""
    damaged = f"oar.load: {where} is damaged: its structure does not match its tensors"
    if "oar_program" in meta:
        from ..graph.serialize import program_from_dict
        text = meta["oar_program"]
        if not isinstance(text, str) or parse_cost(text.encode()) > MAX_STRUCTURE_COST:
            raise ValueError(f"oar.load: {where} is damaged: its program is not JSON text, or one too large")
        try:
            return program_from_dict(json.loads(text))
        except (ValueError, RecursionError) as e:
            raise ValueError(f"oar.load: {where} is damaged: {type(e).__name__}: {str(e)[:200]}") from None
    text = meta.get("oar_structure")
    if not isinstance(text, str) or parse_cost(text.encode()) > MAX_STRUCTURE_COST:
        raise ValueError(f"{damaged} (no structure, or one too large)")
    try:
        structure = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{damaged} ({type(e).__name__}: {str(e)[:200]})") from None
    return _decode(structure, tensors, bool(configs.get("return_numpy", False)), damaged)


def _read(path):
    from safetensors import SafetensorError
    not_oar = (f"oar.load: {path!r} is not a file written by oar.save (or it is truncated or damaged)")
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise ValueError(not_oar)
            n = int.from_bytes(head, "little")
            if n > 100_000_000 or n > os.path.getsize(path) - 8:
                raise ValueError(not_oar)
            raw = f.read(n)
        if parse_cost(raw) > MAX_STRUCTURE_COST:
            raise ValueError(not_oar + ": its header is too large")
        meta = _checked_meta(json.loads(raw), repr(path), not_oar)
        tensors = safetensors_file.read_all(path)
    except ValueError as e:
        if not str(e).startswith(path):
            raise
        raise ValueError(f"{not_oar} ({e})") from None
    except (SafetensorError, json.JSONDecodeError, UnicodeDecodeError, OSError, RecursionError) as e:
        raise ValueError(f"{not_oar} ({e})") from None
    return meta, tensors


def _checked_meta(header, where, not_oar):
    """The metadata of a parsed safetensors header, once it is a version of oar's format this oar reads."""
    meta = header.get("__metadata__") if isinstance(header, dict) else None
    if not isinstance(meta, dict) or _MAGIC_KEY not in meta:
        raise ValueError(not_oar + ": it has no oar format marker")
    version = meta[_MAGIC_KEY]
    if not (isinstance(version, str) and version.isdigit() and len(version) < 6):
        raise ValueError(not_oar + f": its format marker {str(version)[:20]!r} is not a version number")
    version = int(version)
    if version > FORMAT_VERSION:
        raise ValueError(f"oar.load: {where} has format version {version}; this oar reads up to "
                         f"{FORMAT_VERSION}; upgrade oar")
    return meta


def _read_stream(f):
    """(metadata, tensors) of the one saved object at the position of the binary stream `f`, which is left just
    after it. Its length comes from the header: the largest end offset of its tensors."""
    not_oar = "oar.load: the stream does not hold an object written by oar.save at its position"
    head = f.read(8)
    if not isinstance(head, bytes) or len(head) < 8:
        raise ValueError(not_oar + " (it ends before a header)")
    n = int.from_bytes(head, "little")
    if n > 100_000_000:
        raise ValueError(not_oar)
    raw = f.read(n)
    if len(raw) < n or parse_cost(raw) > MAX_STRUCTURE_COST:
        raise ValueError(not_oar + " (its header is truncated or too large)")
    try:
        header = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{not_oar} ({e})") from None
    meta = _checked_meta(header, "the stream", not_oar)
    ends = [e.get("data_offsets", [0, 0])[1] for k, e in header.items() if k != "__metadata__" and isinstance(e, dict)]
    size = max(ends, default=0)
    if not all(isinstance(e, int) and 0 <= e for e in ends) or size > (1 << 40):
        raise ValueError(not_oar + " (its tensor offsets are not byte counts)")
    data = f.read(size)
    if len(data) < size:
        raise ValueError(not_oar + " (it ends inside its tensors)")
    import tempfile
    with tempfile.TemporaryDirectory(prefix="oar-load-") as d:  # the file reader (bfloat16, checks) reads paths
        tmp = os.path.join(d, "obj.safetensors")
        with open(tmp, "wb") as out:
            out.write(head + raw + data)
        try:
            tensors = safetensors_file.read_all(tmp, "object saved by oar.save")
        except ValueError as e:
            raise ValueError(f"{not_oar} ({str(e).replace(tmp, 'stream')})") from None
    return meta, tensors


def _encode(obj, arrays, where):
    from ..eager.tensor import Tensor
    from ..graph.scope import _TensorView
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, _TensorView):  # a static variable's value in a scope (Paddle's LoDTensor): a Tensor
        obj = Tensor(np.array(obj))
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if isinstance(obj, (Tensor, np.ndarray)):
        a = obj._data if isinstance(obj, Tensor) else obj
        key = f"t{len(arrays)}"
        leaf = {"tensor": key, "kind": "tensor" if isinstance(obj, Tensor) else "ndarray"}
        if isinstance(obj, Tensor) and obj._name is not None:
            leaf["name"] = obj._name
        if a.dtype.kind not in "biuf" and a.dtype.name != "bfloat16":
            raise TypeError(f"oar.save: {where} has dtype {a.dtype}, which cannot be saved")
        if a.dtype.name == "bfloat16":  # stored as BF16; files of earlier oar hold its raw bits as U16
            leaf["dtype"] = "bfloat16"
        arrays[key] = a
        return leaf
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not (k is None or isinstance(k, (str, int, float, bool))):
                raise TypeError(f"oar.save: {where} has a key of type {type(k).__name__}; keys must be str/int/float")
            items.append([k, _encode(v, arrays, f"{where}[{k!r}]")])
        return {"dict": items}
    if isinstance(obj, tuple):
        return {"tuple": [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(obj)]}
    if isinstance(obj, list):
        return [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(obj)]
    raise TypeError(f"oar.save: cannot save {where} of type {type(obj).__name__}; oar.save takes Tensors, NumPy "
                    "arrays, numbers, strings, None and dicts/lists/tuples of them (no pickle). For a Layer or an "
                    "Optimizer, save its state_dict()")


def _decode(root, tensors, return_numpy, damaged):
    """The object a structure describes, built with an explicit stack (no recursion: any nesting depth loads).
    Anything that does not match the format raises ValueError with the `damaged` message."""
    out = []
    todo = [(False, root, out)]  # (build?, node or (kind, items, keys), list receiving the value)
    while todo:
        build, node, sink = todo.pop()
        if build:
            kind, items, keys = node
            sink.append(tuple(items) if kind == "tuple" else dict(zip(keys, items)) if kind == "dict" else items)
            continue
        if isinstance(node, list):
            kind, children, keys = "list", node, None
        elif not isinstance(node, dict):
            sink.append(node)
            continue
        elif len(node) == 1 and isinstance(node.get("tuple"), list):
            kind, children, keys = "tuple", node["tuple"], None
        elif len(node) == 1 and isinstance(node.get("dict"), list):
            pairs = node["dict"]
            if not all(isinstance(p, list) and len(p) == 2 and (p[0] is None or isinstance(p[0], (str, int, float)))
                       for p in pairs):
                raise ValueError(f"{damaged} (a dict entry is not [key, value])")
            kind, children, keys = "dict", [p[1] for p in pairs], [p[0] for p in pairs]
        else:
            sink.append(_leaf(node, tensors, return_numpy, damaged))
            continue
        items = []
        todo.append((True, (kind, items, keys), sink))
        todo.extend((False, c, items) for c in reversed(children))
    return out[0]


def _leaf(s, tensors, return_numpy, damaged):
    a = tensors.get(s.get("tensor")) if isinstance(s.get("tensor"), str) else None
    if a is None or s.get("kind") not in ("tensor", "ndarray"):
        raise ValueError(f"{damaged} (entry {str(s)[:80]} names no tensor of the file)")
    if s.get("dtype") == "bfloat16":
        import ml_dtypes
        a = a.view(ml_dtypes.bfloat16)
    if s["kind"] == "ndarray" or return_numpy:
        return a
    from ..eager.tensor import Tensor
    name = s.get("name")
    return Tensor(a, name=name if isinstance(name, str) else None)
