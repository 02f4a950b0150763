"""`METHODS` maps Tensor method and operator names to the public op functions (one definition each)."""
from ..ops import math, reduction, linalg, manipulation, subscript, creation, logic, search, indexing, random
from ..ops import special, complex as complex_ops, stat, matrix, rearrange, inplace
from ..ops import linalg_decomp, linalg_solve, linalg_norm, short_names, tensor_methods


def _r(fn):
    """Reflected binary operator: ``2 - x`` is ``subtract(2, x)``."""
    return lambda self, other: fn(other, self)


_inplace = inplace.inplace  # ``add_`` is `add`, then written into the tensor


M, L, C, S = math, logic, creation, manipulation

METHODS = {
    "__add__": M.add, "__radd__": _r(M.add), "__sub__": M.subtract, "__rsub__": _r(M.subtract),
    "__mul__": M.multiply, "__rmul__": _r(M.multiply), "__truediv__": M.divide, "__rtruediv__": _r(M.divide),
    "__floordiv__": M.floor_divide, "__rfloordiv__": _r(M.floor_divide), "__mod__": M.remainder,
    "__rmod__": _r(M.remainder), "__pow__": M.pow, "__rpow__": _r(M.pow), "__matmul__": M.matmul,
    "__rmatmul__": _r(M.matmul), "__neg__": M.neg, "__abs__": M.abs, "__pos__": lambda self: self,
    "__eq__": L.equal, "__ne__": L.not_equal, "__lt__": L.less_than, "__le__": L.less_equal,
    "__gt__": L.greater_than, "__ge__": L.greater_equal,
    "__and__": lambda x, y: (L.logical_and if x.dtype.kind == "b" else L.bitwise_and)(x, y),
    "__or__": lambda x, y: (L.logical_or if x.dtype.kind == "b" else L.bitwise_or)(x, y),
    "__xor__": lambda x, y: (L.logical_xor if x.dtype.kind == "b" else L.bitwise_xor)(x, y),
    "__rand__": lambda x, y: (L.logical_and if x.dtype.kind == "b" else L.bitwise_and)(y, x),
    "__rxor__": lambda x, y: (L.logical_xor if x.dtype.kind == "b" else L.bitwise_xor)(y, x),
    "__invert__": L.bitwise_not, "__lshift__": L.bitwise_left_shift, "__rlshift__": _r(L.bitwise_left_shift),
    "__rshift__": L.bitwise_right_shift, "__rrshift__": _r(L.bitwise_right_shift),
    "__getitem__": subscript.tensor_getitem, "__setitem__": subscript.tensor_setitem,
    "astype": M.cast, "cast": M.cast, "clone": C.clone,
    "T": property(lambda self: S.transpose(self, list(range(self.ndim))[::-1])),
    "add_": _inplace(M.add), "subtract_": _inplace(M.subtract), "multiply_": _inplace(M.multiply),
    "divide_": _inplace(M.divide), "scale_": _inplace(M.scale), "clip_": _inplace(M.clip), "exp_": _inplace(M.exp),
    "sqrt_": _inplace(M.sqrt), "tanh_": _inplace(M.tanh), "zero_": lambda self: self._inplace(M.zeros_like(self)),
    "fill_": lambda self, v: self._inplace(M.zeros_like(self) + v), "reshape_": _inplace(S.reshape),
    "squeeze_": _inplace(S.squeeze), "unsqueeze_": _inplace(S.unsqueeze), "flatten_": _inplace(S.flatten),
}

for _mod in (math, reduction, linalg, logic, manipulation, search, indexing, special, complex_ops, stat, matrix,
             rearrange, linalg_decomp, linalg_solve, linalg_norm, short_names):
    for _name in dir(_mod):
        _fn = getattr(_mod, _name)
        if not _name.startswith("_") and callable(_fn) and getattr(_fn, "__module__", "") == _mod.__name__ \
                and _name not in METHODS and _name[0].islower():
            METHODS[_name] = _fn
for _name in ("tensor_getitem", "tensor_setitem", "encode_index", "decode_index", "unbroadcast", "getitem", "setitem",
              "reshape_as"):
    METHODS.pop(_name, None)
METHODS.update(uniform_=random.uniform_, normal_=random.normal_, bernoulli=random.bernoulli,
               multinomial=random.multinomial)
# more in-place variants that Paddle's Tensor has: each is the out-of-place op, then `_inplace`
for _fn in (M.floor, M.ceil, M.round, M.reciprocal, M.rsqrt, M.abs, M.sin, M.cos, M.log, M.sigmoid, M.pow,
            M.remainder, M.floor_divide, M.neg, M.square, M.cumsum, S.flip, S.roll, S.tile, S.transpose,
            indexing.scatter, indexing.put_along_axis, indexing.index_add, indexing.masked_fill, matrix.fill_diagonal):
    METHODS.setdefault(_fn.__name__ + "_", _inplace(_fn))
# the breadth families (special, complex, stat, matrix, rearrange) and every in-place form Paddle's Tensor has
for _name in ("tril_indices", "triu_indices", "logspace", "meshgrid", "cartesian_prod", "positive", "ger", "vecdot",
              "cat", "concatenate", "broadcast_shapes"):  # top-level functions only, as in Paddle
    METHODS.pop(_name, None)
for _name, _fn in inplace.INPLACE.items():
    METHODS.setdefault(_name, _fn)
METHODS.update(reverse=manipulation.flip, is_tensor=lambda self: True, **inplace.RANDOM_FILLS)
METHODS.update(tensor_methods.METHODS)  # type_as, ndimension, new_*, the cast shorthands (x.float(), x.long())


def _sparse_method(name):
    """Dense Tensor's sparse conversions (``x.to_sparse_coo(2)``), defined once in `oar.sparse.tensor`."""
    def method(self, *args, **kwargs):
        from ..sparse import tensor
        return getattr(tensor, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


METHODS.update(to_sparse_coo=_sparse_method("to_sparse_coo"), to_sparse_csr=_sparse_method("to_sparse_csr"),
               is_sparse=lambda self: False, is_sparse_coo=lambda self: False, is_sparse_csr=lambda self: False,
               is_dense=lambda self: True, to_dense=lambda self: self)
