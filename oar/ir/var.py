"""`Var`: a named, typed value of a Block. Plain data; `oar.static.Variable` adds the tensor methods."""
from ..core import dtype as D


class Var:
    """A named, typed value in a Block: shape (-1 for unknown dims), dtype, persistable, stop_gradient.

    Example:
        >>> from oar import ir
        >>> p = ir.Program()
        >>> v = p.global_block().create_var('x', [-1, 3], 'float32')
        >>> v
        var x : float32[-1, 3]
    """

    __slots__ = ("name", "shape", "dtype", "block", "persistable", "stop_gradient", "is_parameter", "trainable",
                 "is_data", "attrs", "__weakref__")

    def __init__(self, block, name, shape, dtype, persistable=False, stop_gradient=True, is_parameter=False,
                 trainable=True, is_data=False):
        self.block, self.name = block, name
        self.shape = [int(d) for d in shape]
        self.dtype = D.convert_dtype(dtype)
        self.persistable, self.stop_gradient = persistable, stop_gradient
        self.is_parameter, self.trainable, self.is_data = is_parameter, trainable, is_data
        self.attrs = {}

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            if d < 0:
                return -1
            n *= d
        return n

    @property
    def type(self):
        return "DENSE_TENSOR"

    def __repr__(self):
        return f"var {self.name} : {self.dtype.name}{self.shape}" + (" (persistable)" if self.persistable else "")

    def __hash__(self):
        return id(self)
