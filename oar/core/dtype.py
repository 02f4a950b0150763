"""Data types: one `DType` object per type, convertible from strings, NumPy dtypes and Python types.

`bfloat16` is backed by the optional `ml_dtypes` package; without it the dtype exists but arrays of it
cannot be made (a clear error says what to install).
"""
import numpy as np

try:
    import ml_dtypes as _ml
except ImportError:  # optional extra
    _ml = None


class DType:
    """A tensor element type, e.g. ``oar.float32``. Compares equal to its name and to the NumPy dtype.

    Example:
        >>> oar.float32 == 'float32', oar.float32 == np.float32
        (True, True)
        >>> oar.to_tensor([1, 2]).dtype.name
        'int64'
    """

    __slots__ = ("name", "np", "kind", "itemsize")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np = np_dtype
        self.kind = "b" if name == "bool" else ("c" if name.startswith("complex") else
                                                 ("f" if name in _FLOATS else ("u" if name == "uint8" else "i")))
        self.itemsize = np.dtype(np_dtype).itemsize if np_dtype is not None else 2

    def __repr__(self):
        return "paddle." + self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, DType):
            return other is self
        try:
            return convert_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (convert_dtype, (self.name,))

    @property
    def is_floating_point(self):
        return self.kind == "f"


_FLOATS = ("float16", "bfloat16", "float32", "float64")

float16 = DType("float16", np.dtype("float16"))
bfloat16 = DType("bfloat16", np.dtype(_ml.bfloat16) if _ml else None)
float32 = DType("float32", np.dtype("float32"))
float64 = DType("float64", np.dtype("float64"))
int8 = DType("int8", np.dtype("int8"))
int16 = DType("int16", np.dtype("int16"))
int32 = DType("int32", np.dtype("int32"))
int64 = DType("int64", np.dtype("int64"))
uint8 = DType("uint8", np.dtype("uint8"))
bool_ = DType("bool", np.dtype("bool"))
complex64 = DType("complex64", np.dtype("complex64"))
complex128 = DType("complex128", np.dtype("complex128"))

ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool_, complex64, complex128)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "int": int64, "long": int64,
                 "bool_": bool_})
_BY_NP = {d.np: d for d in ALL if d.np is not None}


def convert_dtype(d):
    """Returns the `DType` for a DType, a name ('float32', 'paddle.float32'), a NumPy dtype or a Python type.

    Example:
        >>> from oar.core.dtype import convert_dtype
        >>> convert_dtype('paddle.float16').name, convert_dtype(np.int32).name
        ('float16', 'int32')
    """
    if isinstance(d, DType):
        return d
    if isinstance(d, np.dtype):
        t = _BY_NP.get(d)
        if t is not None:
            return t
    if isinstance(d, str):
        name = d[7:] if d.startswith("paddle.") else (d[4:] if d.startswith("oar.") else d)
        if name in _BY_NAME:
            return _BY_NAME[name]
        raise ValueError(f"unknown dtype {d!r}; expected one of {sorted(x.name for x in ALL)}")
    if d is float:
        return float32
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return complex64
    try:
        return _BY_NP[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"cannot interpret {d!r} as an oar dtype") from None


def np_dtype(d):
    """The NumPy dtype that stores `d`; a clear error for bfloat16 without ml_dtypes."""
    t = convert_dtype(d)
    if t.np is None:
        raise RuntimeError("bfloat16 needs the optional 'ml_dtypes' package: pip install ml_dtypes")
    return t.np


_default = [float32]


def get_default_dtype():
    """The default floating dtype name, 'float32' unless changed by `set_default_dtype`.

    Example:
        >>> oar.get_default_dtype()
        'float32'
    """
    return _default[0].name


def set_default_dtype(d):
    """Sets the dtype used for Python floats and float creation ops: one of float16/float32/float64.

    Example:
        >>> oar.set_default_dtype('float64')
        >>> oar.to_tensor(1.5).dtype == oar.float64
        True
        >>> oar.set_default_dtype('float32')
    """
    t = convert_dtype(d)
    if t.kind != "f":
        raise TypeError(f"set_default_dtype expects a floating dtype, got {t.name}")
    _default[0] = t


def default_float():
    return _default[0]


_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote(a, b):
    """The result dtype of a binary op on tensors of dtypes `a` and `b`.

    Paddle's table between floating types (bf16 with f16 gives f32, otherwise the wider) and between complex and
    real types (c64 with f64 gives c128). Paddle rejects the other mixed pairs (int with float, int32 with
    int64); oar accepts them the NumPy way: the float wins over ints, the wider int within ints, uint8 with
    int8 gives int16.

    Example:
        >>> from oar.core.dtype import promote
        >>> promote(oar.float16, oar.bfloat16)
        paddle.float32
    """
    if a is b:
        return a
    ra, rb = _RANK[a.kind], _RANK[b.kind]
    if ra != rb:
        hi, lo = (a, b) if ra > rb else (b, a)
        if hi.kind == "c" and lo.kind == "f" and lo.itemsize > 4:
            return complex128
        return hi
    if {a, b} == {float16, bfloat16}:
        return float32
    if {a, b} == {uint8, int8}:
        return int16
    return _BY_NP[np.promote_types(a.np, b.np)] if a.np is not None and b.np is not None else float32


def scalar_dtype(value, tensor_dtype):
    """The dtype a Python scalar takes beside a tensor of `tensor_dtype` (the tensor's dtype wins within kind)."""
    if isinstance(value, bool):
        return tensor_dtype
    if isinstance(value, int):
        return tensor_dtype if tensor_dtype is not bool_ else int64
    if isinstance(value, float):
        return tensor_dtype if tensor_dtype.kind in "fc" else default_float()
    if isinstance(value, complex):
        return tensor_dtype if tensor_dtype.kind == "c" else complex64
    raise TypeError(f"unsupported scalar {value!r}")
