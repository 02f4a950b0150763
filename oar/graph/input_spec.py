"""`InputSpec`: the shape/dtype/name of a model input, used by `to_static` and `jit.save`."""
import numpy as np

from ..core import dtype as D


class InputSpec:
    """Describes an input: `shape` (None or -1 for unknown dims), `dtype` and `name`.

    Example:
        >>> spec = oar.static.InputSpec([None, 784], 'float32', 'x')
        >>> spec
        InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, stop_gradient=False)
    """

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = self._norm(shape)
        self.dtype = D.convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @staticmethod
    def _norm(shape):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape must be a list or tuple, got {type(shape).__name__}")
        out = []
        for d in shape:
            if d is None:
                out.append(-1)
            elif isinstance(d, (int, np.integer)) and not isinstance(d, bool):
                if d < -1:
                    raise ValueError(f"InputSpec: invalid dim {d} in shape {list(shape)}")
                out.append(int(d))
            else:
                raise TypeError(f"InputSpec: dims must be ints or None, got {d!r} in shape {list(shape)}")
        return tuple(out)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of an existing Tensor (its name unless `name` is given)."""
        from ..core.tensor_methods import TensorMethods
        if not isinstance(tensor, TensorMethods):
            raise ValueError(f"InputSpec.from_tensor expects a Tensor or static Variable, got "
                             f"{type(tensor).__name__}" + (" (use InputSpec.from_numpy)"
                                                           if isinstance(tensor, np.ndarray) else ""))
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The spec of a NumPy array."""
        return cls(ndarray.shape, D.convert_dtype(ndarray.dtype), name)

    def batch(self, batch_size):
        """Inserts a leading batch dim (in place, as Paddle) and returns the spec."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"batch_size must be an int or a 1-element list, got {batch_size}")
            batch_size = batch_size[0]
        if batch_size is not None and (not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool)):
            raise TypeError(f"batch_size must be an int, got {type(batch_size).__name__} {batch_size!r}")
        self.shape = (-1 if batch_size is None else int(batch_size),) + self.shape
        return self

    def unbatch(self):
        """Removes the leading dim (in place) and returns the spec."""
        if not self.shape:
            raise ValueError("unbatch: the spec has no dims")
        self.shape = self.shape[1:]
        return self

    def _key(self):
        return (self.shape, self.dtype.name, self.name, self.stop_gradient)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        # as Paddle, the name is left out: specs that differ only by name share a to_static program
        return hash((self.shape, self.dtype.name, self.stop_gradient))

    def __repr__(self):
        return (f"InputSpec(shape={self.shape}, dtype=paddle.{self.dtype.name}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")
