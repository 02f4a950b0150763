"""`paddle.sparse`: COO and CSR sparse tensors, conversion to and from dense, value-wise functions, elementwise
ops, sparse-dense products and `sparse.nn` activations. Eager mode only (see `tensor.py`)."""
from .tensor import (SparseCooTensor, SparseCsrTensor, sparse_coo_tensor, sparse_csr_tensor, to_sparse_coo,
                     to_sparse_csr)
from .ops import (sin, tan, asin, atan, sinh, tanh, asinh, atanh, sqrt, square, log1p, abs, pow, cast, neg, coalesce,
                  deg2rad, rad2deg, expm1, transpose, sum, reshape, isnan, mv, matmul, masked_matmul, add, divide,
                  multiply, subtract, is_same_shape, addmm)
from . import nn

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh",
           "sqrt", "square", "log1p", "abs", "pow", "cast", "neg", "deg2rad", "rad2deg", "expm1", "mv", "matmul",
           "masked_matmul", "addmm", "add", "subtract", "transpose", "multiply", "divide", "coalesce",
           "is_same_shape", "reshape", "isnan", "sum"]
