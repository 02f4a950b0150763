"""The one safetensors writer and reader of oar: `oar.save` files and `.pdiparams` weights both go through here.

`encode` makes the bytes of a name -> ndarray dict (plus string metadata); `write` saves them atomically and
fsynced (`safe_files.write_files`); `SafetensorsFile` reads tensors one by one (dtype and shape first, so callers
check them before anything is allocated; each read straight into its array) and `read_all` reads every tensor.
Damage is reported as a ValueError naming the file, a lack of memory as a MemoryError naming it, a panic inside
safetensors' Rust code (a BaseException) as a RuntimeError naming it (`reading_error`). bfloat16 arrays
(ml_dtypes') are stored as BF16 and read back as bfloat16, whatever the installed safetensors' NumPy support for
it; files of older oar versions hold them as U16 (their raw bits), which callers that know the dtype view back.

Example:
    >>> from oar.framework import safetensors_file
    >>> safetensors_file.write('w.safetensors', {'w': np.ones([2, 3], 'float32')}, metadata={'by': 'oar'})
    >>> safetensors_file.read_all('w.safetensors')['w'].shape
    (2, 3)
"""
import json

import numpy as np

from .devices import is_device_array, to_host

from .safe_files import write_files

DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
          "I32": "int32", "I16": "int16", "I8": "int8", "U64": "uint64", "U32": "uint32", "U16": "uint16",
          "U8": "uint8", "BOOL": "bool", "C64": "complex64"}  # safetensors dtype code -> NumPy dtype name


def encode(arrays, metadata=None):
    """safetensors bytes of `arrays` (name -> ndarray or GPU array: numbers, bools, bfloat16) with `metadata`
    (str -> str)."""
    from safetensors.numpy import save
    out = {}
    for name, a in arrays.items():
        a = a if type(a) is np.ndarray else to_host(a) if is_device_array(a) else np.asarray(a)  # (GPU: a copy)
        if a.dtype.kind not in "biuf" and a.dtype.name != "bfloat16":
            raise TypeError(f"{name!r} has dtype {a.dtype}, which cannot be saved")
        if not a.flags.c_contiguous:
            a = a.copy(order="C")  # (np.ascontiguousarray would make a 0-D array 1-D)
        out[name] = a
    return save(out, metadata=metadata)


def write(path, arrays, metadata=None, fsync=True):
    """Writes `arrays` to the safetensors file `path`, replacing it atomically (see `safe_files.write_files`)."""
    write_files({path: encode(arrays, metadata)}, fsync=fsync)


class SafetensorsFile:
    """An open safetensors file (a context manager): `keys()`, `dtype(name)` (NumPy dtype name), `shape(name)`,
    `get(name)` (a writable ndarray). safetensors validates the header (offsets within the file) on opening."""

    def __init__(self, path):
        from safetensors import safe_open
        self.path = path
        self._f = safe_open(path, framework="numpy")
        self._offsets = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f = None

    def keys(self):
        return list(self._f.keys())

    def metadata(self):
        """The file's string metadata (a dict, empty when it has none)."""
        return dict(self._f.metadata() or {})

    def dtype(self, name):
        code = self._f.get_slice(name).get_dtype()
        return DTYPES.get(code, code)

    def shape(self, name):
        return list(self._f.get_slice(name).get_shape())

    def get(self, name):
        """The tensor `name` as a new writable array, read straight from the file into it (its bytes are never
        held twice: a weight costs its own size once)."""
        code = self._f.get_slice(name).get_dtype()
        if code not in DTYPES:
            raise ValueError(f"{self.path}: tensor {name!r} has dtype {code}, which oar does not read")
        from . import dtype as D
        return self._read_raw(name, D.np_dtype(D.bfloat16) if code == "BF16" else np.dtype(DTYPES[code]))

    def _read_raw(self, name, np_dtype):
        """The tensor's bytes read straight into a new array."""
        if self._offsets is None:
            with open(self.path, "rb") as fh:
                n = int.from_bytes(fh.read(8), "little")
                header = json.loads(fh.read(n))
            self._offsets = {k: (8 + n + v["data_offsets"][0], v["data_offsets"][1] - v["data_offsets"][0])
                             for k, v in header.items() if k != "__metadata__"}
        start, size = self._offsets[name]
        shape = self.shape(name)
        try:
            a = np.empty(shape, np_dtype)
        except MemoryError:
            raise MemoryError(f"{self.path}: not enough memory to read tensor {name!r} ({size:,} bytes, shape "
                              f"{shape})") from None
        if a.nbytes != size:
            raise RuntimeError(f"tensor {name!r}: {size} bytes for shape {list(a.shape)} of {np_dtype}")
        with open(self.path, "rb") as fh:
            fh.seek(start)
            if fh.readinto(a.reshape(-1).view(np.uint8)) != size:
                raise RuntimeError(f"tensor {name!r} is truncated")
        return a


def is_panic(exc):
    """Whether `exc` is the Rust panic safetensors' bindings raise (pyo3's PanicException, a BaseException)."""
    return type(exc).__name__ == "PanicException"


def reading_error(path, exc, what="safetensors file"):
    """The oar error for `exc` raised while reading the safetensors file `path`: MemoryError stays one (naming the
    file), a Rust panic becomes a RuntimeError, anything else a ValueError saying the file is damaged. Returns
    None for a BaseException that is not a panic (KeyboardInterrupt: re-raise it)."""
    if isinstance(exc, MemoryError):
        return exc if str(exc).startswith(str(path)) else MemoryError(f"{path}: not enough memory to read the "
                                                                        f"{what} ({exc})")
    if is_panic(exc):
        return RuntimeError(f"{path}: reading the {what} failed inside safetensors (a Rust panic: {exc}); this "
                            "happens when memory runs out")
    if isinstance(exc, Exception):
        return ValueError(f"{path}: corrupted or truncated {what} ({type(exc).__name__}: {exc})")
    return None


def read_all(path, what="safetensors file"):
    """name -> ndarray (writable) of every tensor of the safetensors file `path`; ValueError when it is damaged."""
    try:
        with SafetensorsFile(path) as f:
            return {k: f.get(k) for k in f.keys()}
    except BaseException as e:  # safetensors reports corruption with its own types, and panics
        new = reading_error(path, e, what)
        if new is None:
            raise
        raise new from None
