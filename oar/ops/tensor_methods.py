"""Tensor methods of Paddle 3 that have no top-level function: `type_as`, `ndimension`, the `new_*` constructors
(``x.new_zeros([2, 3])``: a new tensor of `x`'s dtype) and the cast shorthands (``x.float()``, ``x.long()`` ...).
Each is composed from `cast` or a creation op. `METHODS` maps the names to the functions; `oar.tensor.method_table`
installs them. Python's ``float(x)``, ``int(x)``, ``bool(x)`` still call ``__float__``/``__int__``/``__bool__``."""
from ..core import dtype as D
from .creation import _check_cpu, full
from .math import cast


def type_as(x, other):
    """`x` cast to `other`'s dtype.

    Example:
        >>> oar.to_tensor([1, 2]).type_as(oar.to_tensor([0.5])).numpy().tolist()
        [1.0, 2.0]
    """
    return cast(x, other.dtype)


def ndimension(x):
    """The number of dimensions of `x` (`ndim`), as a Python int.

    Example:
        >>> oar.ones([2, 3]).ndimension()
        2
    """
    return x.ndim


def _size(size, what):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        return list(size[0])
    if not all(isinstance(s, int) for s in size):
        raise TypeError(f"{what}: size must be ints or one list of ints, got {size!r}")
    return list(size)


def new_full(x, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A new tensor of shape `size` filled with `fill_value`, of `x`'s dtype unless `dtype` is given (a float value
    into an int dtype truncates, as `full`); `device` must be the CPU; `requires_grad` sets
    ``stop_gradient = not requires_grad``.

    Example:
        >>> oar.to_tensor([1, 2], dtype="int32").new_full([2], 7).numpy().tolist()
        [7, 7]
    """
    _check_cpu(device, "new_full")
    shape = [size] if isinstance(size, int) else _size((size,), "new_full")
    out = full(shape, fill_value, x.dtype if dtype is None else dtype)
    out.stop_gradient = not requires_grad
    return out


def new_zeros(x, *size, dtype=None, device=None, requires_grad=False):
    """A new tensor of zeros of shape `size` (one list, or separate ints), of `x`'s dtype unless `dtype` is given.

    Example:
        >>> oar.to_tensor([1.5], dtype="float64").new_zeros(2, 3).dtype.name
        'float64'
    """
    return new_full(x, _size(size, "new_zeros"), 0, dtype=dtype, device=device, requires_grad=requires_grad)


def new_ones(x, *size, dtype=None, device=None, requires_grad=False):
    """A new tensor of ones of shape `size` (one list, or separate ints), of `x`'s dtype unless `dtype` is given.

    Example:
        >>> oar.to_tensor([1, 2]).new_ones([3]).numpy().tolist()
        [1, 1, 1]
    """
    return new_full(x, _size(size, "new_ones"), 1, dtype=dtype, device=device, requires_grad=requires_grad)


def new_empty(x, *size, dtype=None, device=None, requires_grad=False):
    """A new tensor of shape `size` of `x`'s dtype unless `dtype` is given; like `empty`, oar fills it with zeros
    so results never depend on garbage.

    Example:
        >>> oar.to_tensor([1, 2]).new_empty([1, 2]).shape
        [1, 2]
    """
    return new_full(x, _size(size, "new_empty"), 0, dtype=dtype, device=device, requires_grad=requires_grad)


# the cast shorthands Paddle 3.3.1's Tensor has, and the dtype each gives (checked against Paddle)
CASTS = {"float": D.float32, "double": D.float64, "half": D.float16, "bfloat16": D.bfloat16, "int": D.int32,
         "long": D.int64, "short": D.int16, "char": D.int8, "byte": D.uint8, "bool": D.bool_, "cfloat": D.complex64,
         "cdouble": D.complex128, **{d.name: d for d in D.ALL if d is not D.bool_}}


def _cast_method(name, dtype):
    def method(x):
        return cast(x, dtype)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`x` cast to {dtype.name} (``x.{name}()`` is ``x.astype('{dtype.name}')``)."
    return method


METHODS = {"type_as": type_as, "ndimension": ndimension, "new_full": new_full, "new_zeros": new_zeros,
           "new_ones": new_ones, "new_empty": new_empty,
           **{name: _cast_method(name, dtype) for name, dtype in CASTS.items()}}
