"""A fake accelerator for the CPU test suite: `FakeArray`, an array type NumPy refuses, computed by NumPy underneath,
and `xp`, a CuPy-shaped module over it that offers only the names CuPy implements (`cupy_names.json`).

Selected with ``OAR_DEVICE_BACKEND=fake`` (or ``pytest --fake-device``); `oar.set_device('gpu')` then puts tensors
on ``gpu:0`` as FakeArrays. A NumPy function that receives one directly raises (`__array__`, `__array_function__`
and `__array_ufunc__` all refuse, as CuPy's implicit conversion does), and an operator mixing one with a host array
of rank > 0 raises: so a kernel that passes the fake device has taken its array module from
`oar.kernels.backend.array_module` on every path, and calls only functions CuPy has.

Example:
    >>> import numpy as np
    >>> a = xp.asarray(np.arange(3.0))
    >>> float(xp.sum(a * 2))
    6.0
    >>> try:
    ...     np.sum(a)
    ... except TypeError as e:
    ...     print(str(e).split(':')[0])
    NumPy function sum received a fake-device array
"""
import json
import math
import pathlib

import numpy as np

_NAMES = json.loads((pathlib.Path(__file__).with_name("cupy_names.json")).read_text())["names"]
_HOST_OK = frozenset(("asarray", "array", "asanyarray"))  # CuPy functions that copy a host array to the device


class MemoryStats:
    """Bytes held by live FakeArrays now and at most (what `paddle.device.cuda.memory_allocated` reports)."""

    def __init__(self):
        self.current = self.peak = 0


STATS = MemoryStats()


class FakeDevice:
    """``array.device`` as CuPy has it: an object with the device's ``id``."""

    def __init__(self, id):
        self.id = id

    def synchronize(self):
        return None


_DEVICE0 = FakeDevice(0)


def _refuse(what):
    raise TypeError(f"{what} received a fake-device array: device kernels must take their array module from "
                    "oar.kernels.backend.array_module(...) (and copy to the host with .get())")


class FakeArray:
    """A device array of the fake accelerator: a NumPy array NumPy itself may not touch."""

    __slots__ = ("_a", "__weakref__")
    __array_ufunc__ = None  # np.add(fake, ...) and ndarray + fake raise TypeError
    __hash__ = None

    def __init__(self, a):
        self._a = a
        n = a.nbytes if a.base is None else 0  # a view holds no memory of its own
        STATS.current += n
        if STATS.current > STATS.peak:
            STATS.peak = STATS.current

    def __del__(self, _stats=STATS):  # (bound now: module globals are gone at interpreter exit)
        _stats.current -= self._a.nbytes if self._a.base is None else 0

    def __array__(self, dtype=None, copy=None):
        _refuse("NumPy (implicit conversion)")

    def __array_function__(self, func, types, args, kwargs):
        _refuse(f"NumPy function {func.__name__}")

    # ---- what CuPy's ndarray adds ----------------------------------------------------------------------------
    device = property(lambda self: _DEVICE0)

    def get(self, stream=None):
        """A host copy (CuPy's ``ndarray.get()``)."""
        return self._a.copy()

    def __repr__(self):
        return f"fake_device.FakeArray({self._a!r})"

    def __getattr__(self, name):
        if name.startswith("__"):  # __array_interface__, __array_struct__, __dlpack__: NumPy would read the memory
            raise AttributeError(name)
        v = getattr(self._a, name)
        if callable(v):
            return _wrapped(v, name, method=True)
        return _wrap(v) if isinstance(v, np.ndarray) else v

    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key, host_ok=True)])

    def __setitem__(self, key, value):
        self._a[_unwrap(key, host_ok=True)] = _unwrap(value)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __bool__(self):
        return bool(self._a)

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __complex__(self):
        return complex(self._a)

    def __index__(self):
        return self._a.__index__()


def _operator(name):
    def op(self, *args):
        return _wrap(getattr(self._a, name)(*[_unwrap(a) for a in args]))
    op.__name__ = name
    return op


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
              "rshift"):
    for _form in ("__{}__", "__r{}__", "__i{}__"):
        setattr(FakeArray, _form.format(_name), _operator(_form.format(_name)))
for _name in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert", "divmod", "rdivmod"):
    setattr(FakeArray, f"__{_name}__", _operator(f"__{_name}__"))


def _wrap(r):
    """Device arrays for what NumPy returns (scalars become 0-d arrays, as CuPy returns)."""
    if isinstance(r, (np.ndarray, np.generic)):
        return FakeArray(np.asarray(r))
    if isinstance(r, tuple):
        items = [_wrap(v) for v in r]
        return type(r)(*items) if hasattr(r, "_fields") else tuple(items)
    if isinstance(r, list):
        return [_wrap(v) for v in r]
    return r


def _unwrap(a, host_ok=False):
    """The NumPy arrays under FakeArrays; a host array of rank > 0 is refused (CuPy refuses it), except where
    `host_ok` (an index, or the argument of `asarray`)."""
    t = type(a)
    if t is FakeArray:
        return a._a
    if t is np.ndarray:
        if a.ndim and not host_ok:
            raise TypeError(f"a host (NumPy) array of shape {list(a.shape)} was mixed with fake-device arrays: "
                            "copy it to the device with xp.asarray first")
        return a
    if t is tuple or t is list:
        return t(_unwrap(v, host_ok) for v in a)
    if t is dict:
        return {k: _unwrap(v, host_ok) for k, v in a.items()}
    return a


# functions whose first argument may be a Python sequence of numbers (a shape, values to copy); CuPy's others
# refuse one where NumPy would convert it (``cupy.prod([2, 3])`` raises), and so does the fake
_SEQUENCE_OK = frozenset(("zeros", "ones", "empty", "full", "asarray", "array", "asanyarray", "broadcast_shapes",
                          "arange", "eye", "identity", "unravel_index", "ravel_multi_index", "indices", "tri"))


def _check_first(name, args):
    if args and type(args[0]) in (list, tuple) and args[0] and all(type(v) in (int, float, bool) for v in args[0]):
        raise TypeError(f"cupy.{name} received a Python sequence {args[0]!r}: CuPy functions take arrays (compute "
                        "on shapes and attributes with Python or NumPy, not the device module)")


def _wrapped(fn, name, method=False):
    host_ok = name in _HOST_OK
    check = not method and name not in _SEQUENCE_OK

    def call(*args, **kwargs):
        if check:
            _check_first(name, args)
        return _wrap(fn(*[_unwrap(a, host_ok) for a in args], **{k: _unwrap(v, host_ok) for k, v in kwargs.items()}))
    call.__name__ = name
    call.__wrapped__ = fn
    return call


class FakeUfunc:
    """A NumPy ufunc behind the fake device: callable, with ``reduce``/``accumulate``/``outer``, but no ``at``
    (CuPy's scatter is ``cupyx.scatter_add``)."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__
        self.reduce = _wrapped(uf.reduce, uf.__name__ + ".reduce")
        self.accumulate = _wrapped(uf.accumulate, uf.__name__ + ".accumulate")
        self.outer = _wrapped(uf.outer, uf.__name__ + ".outer")
        self.nin, self.nout = uf.nin, uf.nout

    def __call__(self, *args, **kwargs):
        return _wrap(self._uf(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()}))


class FakeModule:
    """A CuPy namespace over a NumPy one: only the names CuPy defines, each computing with NumPy on FakeArrays."""

    def __init__(self, name, numpy_module, names, extra=None):
        self.__name__ = name
        self._np = numpy_module
        self._names = frozenset(names)
        self._cache = dict(extra or {})

    def __getattr__(self, name):
        cache = self.__dict__["_cache"]
        if name in cache:
            return cache[name]
        if name not in self._names:
            raise AttributeError(f"{self.__name__} has no {name!r} (not in CuPy {self.__name__}): a kernel that "
                                 "needs it on the device needs a shim in oar/kernels/backend.py")
        v = getattr(self._np, name)
        if isinstance(v, np.ufunc):
            v = FakeUfunc(v)
        elif isinstance(v, type) or not callable(v):
            pass  # dtypes (xp.float32), constants (xp.pi, xp.newaxis)
        else:
            v = _wrapped(v, name)
        cache[name] = v
        return v


def _asarray(a, dtype=None, order=None):
    """``cupy.asarray``: a device array as it is (cast to `dtype`), anything else copied to the device."""
    if type(a) is FakeArray:
        return a if dtype is None or a._a.dtype == np.dtype(dtype) else FakeArray(a._a.astype(dtype))
    return FakeArray(np.array(_unwrap(a, host_ok=True), dtype=dtype, order=order or "K", copy=True))


def _asnumpy(a, stream=None):
    return a.get() if type(a) is FakeArray else np.asarray(a)


def _scatter_add(a, slices, value):
    """``cupyx.scatter_add``: ``a[slices] += value`` with repeated indices accumulated."""
    np.add.at(_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))


def _scatter_max(a, slices, value):
    """``cupyx.scatter_max``."""
    np.maximum.at(_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))


def _scatter_min(a, slices, value):
    """``cupyx.scatter_min``."""
    np.minimum.at(_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))


def _special_erf(a):
    """``cupyx.scipy.special.erf``: exact, elementwise, in the input's precision."""
    x = _unwrap(a)
    return FakeArray(np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy())


def _sliding_window_view(a, window_shape, axis=None):
    """``cupy.lib.stride_tricks.sliding_window_view``: a read-only view of the windows."""
    return FakeArray(np.lib.stride_tricks.sliding_window_view(_unwrap(a), window_shape, axis=axis))


def _errstate(**kwargs):
    return np.errstate(**kwargs)  # CuPy kernels never raise on float errors; the host's state is what a fake sees


xp = FakeModule("cupy", np, _NAMES["cupy"], extra={
    "ndarray": FakeArray,
    "asarray": _asarray,
    "asnumpy": _asnumpy,
    "linalg": FakeModule("cupy.linalg", np.linalg, _NAMES["cupy.linalg"]),
    "fft": FakeModule("cupy.fft", np.fft, _NAMES["cupy.fft"]),
})
cupyx = FakeModule("cupyx", np, (), extra={"scatter_add": _scatter_add, "scatter_max": _scatter_max,
                                           "scatter_min": _scatter_min, "errstate": _errstate,
                                           "special_erf": _special_erf,
                                           "sliding_window_view": _sliding_window_view})
