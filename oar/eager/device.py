"""Eager Tensor methods about memory and placement: cpu/cuda/to, contiguity and strides, element_size,
retain_grads, `data`, iteration. oar keeps every tensor in CPU memory as a NumPy array."""
import numpy as np



def cpu(self):
    """The tensor itself: oar tensors live in CPU memory.

    Example:
        >>> x = oar.ones([2])
        >>> x.cpu() is x
        True
    """
    return self


def cuda(self, device_id=None, blocking=True):
    """Raises: oar runs on a CPU only."""
    raise RuntimeError("Tensor.cuda(): oar is a CPU-only framework (no CUDA device); keep tensors on the CPU")


def to(self, *args, **kwargs):
    """Converts dtype and/or place: ``x.to('float64')``, ``x.to('cpu')``, ``x.to('cpu', 'float64')``,
    ``x.to(other_tensor)``. GPU places raise, as oar runs on a CPU.

    Example:
        >>> oar.ones([2]).to('float64').dtype == oar.float64
        True
    """
    dtype = kwargs.get("dtype")
    for a in list(args) + [kwargs.get("device")]:
        if a is None or isinstance(a, bool):
            continue
        if hasattr(a, "_data"):
            dtype = a.dtype
        elif isinstance(a, str) and (a.startswith("gpu") or a.startswith("cuda") or a.startswith("xpu")):
            raise RuntimeError(f"Tensor.to({a!r}): oar is a CPU-only framework")
        elif isinstance(a, str) and a.startswith("cpu"):
            continue
        elif type(a).__name__.endswith("Place"):
            if type(a).__name__ != "CPUPlace":
                raise RuntimeError(f"Tensor.to({a!r}): oar is a CPU-only framework")
        else:
            dtype = a
    return self if dtype is None else self.astype(dtype)


def contiguous(self):
    """A tensor with C-contiguous memory (the tensor itself when it already is).

    Example:
        >>> oar.ones([2, 3]).contiguous().is_contiguous()
        True
    """
    if not hasattr(self, "_data") or self._data.flags["C_CONTIGUOUS"]:  # static Variables have no layout
        return self
    from ..ops.creation import assign
    return assign(self)


def is_contiguous(self):
    """Whether the values are laid out C-contiguously."""
    return bool(self._data.flags["C_CONTIGUOUS"])


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


def _keep_grad(t):
    """A gradient hook storing (and accumulating) a non-leaf tensor's gradient in its `.grad`."""
    def keep(g):
        t._grad = type(g)._wrap(g._data.copy()) if t._grad is None else type(g)._wrap(t._grad._data + g._data)
    keep.retains_grad = True
    return keep


def retain_grads(self):
    """Keeps `.grad` of this non-leaf tensor after backward, as Paddle's (a leaf keeps its gradient anyway); the
    gradients of later backward calls accumulate into it.

    Example:
        >>> x = oar.ones([2])
        >>> x.stop_gradient = False
        >>> y = x * 2
        >>> y.retain_grads()
        >>> (y * 3).sum().backward()
        >>> y.grad.numpy().tolist()
        [3.0, 3.0]
    """
    if self._node is None or self.stop_gradient or any(getattr(h, "retains_grad", False) for h in self._hooks or ()):
        return
    self.register_hook(_keep_grad(self))


def _data_get(self):
    return self


def _data_set(self, value):
    a = value._data if hasattr(value, "_data") else np.asarray(value)
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
