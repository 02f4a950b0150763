"""Eager Tensor methods about memory and placement: cpu/cuda/to, contiguity and strides, element_size,
retain_grads, `data`, iteration. A tensor's array is a NumPy array in host memory, or on a GPU a CuPy array."""
import numpy as np

from ..core.devices import device_of, place_array
from ..core.state import CPUPlace, CUDAPlace, place_name



def _moved(self, place):
    """`self` on `place` ('cpu' / 'gpu:N'): itself when it is there already (and for static Variables, which
    have no placement), otherwise a copy on the gradient path."""
    if not hasattr(self, "_data") or device_of(self._data) == place:
        return self
    from ..ops.creation import memcpy
    return memcpy(self, place)


def cpu(self):
    """The tensor in host memory (itself when it is there already).

    Example:
        >>> x = oar.ones([2])
        >>> x.cpu() is x
        True
    """
    return _moved(self, "cpu")


def cuda(self, device_id=None, blocking=True):
    """The tensor on GPU `device_id` (default 0); raises a RuntimeError when there is no GPU backend
    (`docs/gpu.md`). Copies are synchronous with respect to later ops, so `blocking` changes nothing.

    Example:
        >>> try:
        ...     oar.ones([2]).cuda()
        ... except RuntimeError as e:
        ...     print(str(e).split(':')[0])
        no GPU backend
    """
    return _moved(self, place_name(f"gpu:{0 if device_id is None else int(device_id)}"))


def to(self, *args, **kwargs):
    """Converts dtype and/or place: ``x.to('float64')``, ``x.to('gpu')``, ``x.to('cpu', 'float64')``,
    ``x.to(oar.CUDAPlace(0))``, ``x.to(other_tensor)`` (its dtype).

    Example:
        >>> oar.ones([2]).to('float64').dtype == oar.float64
        True
        >>> oar.ones([2]).to('cpu').place
        Place(cpu)
    """
    dtype, place = kwargs.get("dtype"), None
    for a in list(args) + [kwargs.get("device")]:
        if a is None or isinstance(a, bool):
            continue
        if hasattr(a, "_data"):
            dtype = a.dtype
        elif isinstance(a, (CPUPlace, CUDAPlace)) or isinstance(a, str) and a.split(":")[0].lower() in _DEVICES:
            place = place_name(a)
        elif type(a).__name__.endswith("Place"):
            raise ValueError(f"Tensor.to({a!r}): oar places are CPUPlace and CUDAPlace")
        else:
            dtype = a
    out = self if place is None else _moved(self, place)
    return out if dtype is None else out.astype(dtype)


_DEVICES = ("cpu", "gpu", "cuda", "xpu", "npu")


def contiguous(self):
    """A tensor with C-contiguous memory (the tensor itself when it already is).

    Example:
        >>> oar.ones([2, 3]).contiguous().is_contiguous()
        True
    """
    if not hasattr(self, "_data") or self._data.flags.c_contiguous:  # static Variables have no layout
        return self
    from ..ops.creation import assign
    return assign(self)


def is_contiguous(self):
    """Whether the values are laid out C-contiguously."""
    return bool(self._data.flags.c_contiguous)


def strides(self):
    """Strides in elements (Paddle's unit), one per dim.

    Example:
        >>> oar.ones([2, 3]).strides
        [3, 1]
    """
    size = self._data.itemsize
    return [s // size for s in self._data.strides]


def element_size(self):
    """Bytes per element.

    Example:
        >>> oar.ones([2], 'float64').element_size()
        8
    """
    return self._data.itemsize


def retain_grads(self):
    """Keeps the gradient of this non-leaf tensor in its ``.grad`` after backward (a leaf keeps its own always).

    Example:
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y = x * 3.0
        >>> y.retain_grads()
        >>> (y * y).sum().backward()
        >>> y.grad.numpy().tolist()
        [6.0, 12.0]
    """
    from .engine import RETAIN_GRAD
    if self._node is None or self.stop_gradient:
        return None
    if self._hooks is None:
        self._hooks = []
    if RETAIN_GRAD not in self._hooks:
        self._hooks.append(RETAIN_GRAD)
    return None


def _data_get(self):
    return self


def _data_set(self, value):
    a = value._data if hasattr(value, "_data") else np.asarray(value)
    if device_of(a) != device_of(self._data):
        a = place_array(a, device_of(self._data))
    self._data = a.astype(self._data.dtype, copy=False) if a.dtype != self._data.dtype else a
    self._version += 1


def _iter(self):
    if not self._data.ndim:
        raise TypeError("iteration over a 0-D tensor")
    for i in range(self._data.shape[0]):
        yield self[i]


def value(self):
    """The tensor itself (Paddle's `Tensor.value()` returns the underlying dense tensor)."""
    return self


SHARED = {"cpu": cpu, "cuda": cuda, "to": to, "contiguous": contiguous, "value": value}  # Tensor and Variable
METHODS = {"is_contiguous": is_contiguous, "strides": property(strides), "element_size": element_size,
           "retain_grads": retain_grads, "data": property(_data_get, _data_set), "__iter__": _iter}  # eager only
