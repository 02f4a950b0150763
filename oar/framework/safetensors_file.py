"""The one safetensors writer and reader of oar: `oar.save` files and `.pdiparams` weights both go through here.

`encode` makes the bytes of a name -> ndarray dict (plus string metadata); `write` saves them atomically and
fsynced (`safe_files.write_files`); `read_all` reads every tensor back, any damage reported as a ValueError
naming the file. bfloat16 arrays (NumPy has no bfloat16 of its own; ml_dtypes') are stored as their raw 16 bits
(U16): the reader knows the dtype from its own records (`oar.save`'s structure, the program's variables) and views
them back.

Example:
    >>> from oar.framework import safetensors_file
    >>> safetensors_file.write('w.safetensors', {'w': np.ones([2, 3], 'float32')}, metadata={'by': 'oar'})
    >>> safetensors_file.read_all('w.safetensors')['w'].shape
    (2, 3)
"""
import numpy as np

from .safe_files import write_files


def encode(arrays, metadata=None):
    """safetensors bytes of `arrays` (name -> ndarray: numbers, bools, bfloat16) with `metadata` (str -> str)."""
    from safetensors.numpy import save
    out = {}
    for name, a in arrays.items():
        a = np.asarray(a)
        if a.dtype.kind not in "biuf" and a.dtype.name != "bfloat16":
            raise TypeError(f"{name!r} has dtype {a.dtype}, which cannot be saved")
        if not a.flags.c_contiguous:
            a = a.copy(order="C")  # (np.ascontiguousarray would make a 0-D array 1-D)
        if a.dtype.name == "bfloat16":
            a = a.view(np.uint16)
        out[name] = a
    return save(out, metadata=metadata)


def write(path, arrays, metadata=None, fsync=True):
    """Writes `arrays` to the safetensors file `path`, replacing it atomically (see `safe_files.write_files`)."""
    write_files({path: encode(arrays, metadata)}, fsync=fsync)


def read_all(path, what="safetensors file"):
    """name -> ndarray (writable) of every tensor of the safetensors file `path`; ValueError when it is damaged."""
    from safetensors import safe_open
    try:
        with safe_open(path, framework="numpy") as f:
            return {k: np.array(f.get_tensor(k)) for k in f.keys()}
    except Exception as e:  # safetensors reports corruption with its own exception types
        raise ValueError(f"{path}: corrupted or truncated {what} ({type(e).__name__}: {e})") from None
