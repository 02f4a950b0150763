"""Paddle's combined parameters file (``.pdiparams``, written by ``save_combine``): the parameters one after
another, sorted by name, each as

    uint32 version (0) | uint64 lod levels, each uint64 size + bytes | uint32 version (0) |
    int32 n | TensorDesc protobuf (n bytes: element type, dims) | the elements, little-endian

Each header is checked against the parameter the program declares before its data is read, and the data is read
straight into its array (no second copy of the file in memory)."""
import os
import struct

import numpy as np

from . import wire
from .legacy import TENSOR_DESC
from .model import DTYPES, np_dtype

MAX_HEADER = 1 << 16  # a TensorDesc is a few dozen bytes


def _unpack(f, fmt, path, what):
    size = struct.calcsize(fmt)
    raw = f.read(size)
    if len(raw) != size:
        raise ValueError(f"{path}: truncated parameters file ({what})")
    return struct.unpack(fmt, raw)[0]


def read(path, order, declared):
    """{name: ndarray} of the parameters `order` (names in file order); `declared` maps a name to the
    (dtype name, dims) the program gives it."""
    out = {}
    try:
        total = os.path.getsize(path)
        with open(path, "rb") as f:
            for name in order:
                if _unpack(f, "<I", path, f"{name!r} version") != 0:
                    raise ValueError(f"{path}: parameter {name!r}: unsupported tensor version")
                lod = _unpack(f, "<Q", path, f"{name!r} lod levels")
                if lod > 16:
                    raise ValueError(f"{path}: parameter {name!r}: {lod} lod levels")
                for _ in range(lod):
                    n = _unpack(f, "<Q", path, "lod size")
                    if n > total:
                        raise ValueError(f"{path}: parameter {name!r}: lod of {n} bytes in a {total}-byte file")
                    f.seek(n, 1)
                if _unpack(f, "<I", path, f"{name!r} tensor version") != 0:
                    raise ValueError(f"{path}: parameter {name!r}: unsupported tensor version")
                n = _unpack(f, "<i", path, f"{name!r} header size")
                if not 0 <= n <= MAX_HEADER:
                    raise ValueError(f"{path}: parameter {name!r}: header of {n} bytes")
                raw = f.read(n)
                try:
                    desc = wire.decode(raw, *TENSOR_DESC, counter=wire.Counter(4096))
                except ValueError as e:
                    raise ValueError(f"{path}: parameter {name!r}: bad tensor header ({e})") from None
                dtype, dims = DTYPES.get(desc.get("data_type")), desc.get("dims", [])
                want_dtype, want_dims = declared[name]
                if dtype != want_dtype or len(dims) != len(want_dims) or any(
                        a != b for a, b in zip(dims, want_dims) if b >= 0) or any(d < 0 for d in dims):
                    raise ValueError(f"{path}: parameter {name!r} is stored as {dtype} {dims} but the program "
                                     f"declares {want_dtype} {want_dims}")
                npd = np_dtype(dtype)
                count = int(np.prod(dims, dtype=np.int64)) if dims else 1
                if count * npd.itemsize > total - f.tell():
                    raise ValueError(f"{path}: truncated parameters file (parameter {name!r} needs "
                                     f"{count * npd.itemsize} bytes)")
                a = np.fromfile(f, dtype=npd.newbyteorder("<"), count=count)
                out[name] = a.astype(npd, copy=False).reshape(dims)
            if f.tell() != total:
                raise ValueError(f"{path}: {total - f.tell()} bytes after the last parameter (the file does not "
                                 f"match the program)")
    except OSError as e:
        raise ValueError(f"{path}: cannot read the parameters file ({e.strerror or e})") from None
    return out


def write(path_or_file, arrays):
    """Writes {name: ndarray} in Paddle's combined format, sorted by name (the inverse of `read`)."""
    codes = {v: k for k, v in DTYPES.items()}
    chunks = []
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        dtype = "bfloat16" if a.dtype == np.uint16 else str(a.dtype)
        desc = bytes([0x08]) + _varint(codes[dtype]) + b"".join(bytes([0x10]) + _varint(d) for d in a.shape)
        chunks += [struct.pack("<IQI", 0, 0, 0), struct.pack("<i", len(desc)), desc,
                   a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()]
    data = b"".join(chunks)
    if hasattr(path_or_file, "write"):
        path_or_file.write(data)
    else:
        with open(path_or_file, "wb") as f:
            f.write(data)


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)
