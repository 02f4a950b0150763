"""`paddle.tensor.linalg` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["bincount", "bmm", "broadcast_shape", "cast", "cdist", "cholesky", "cholesky_solve", "cond", "corrcoef",
         "cov", "cross", "det", "diagonal", "dist", "dot", "eig", "eigh", "eigvals", "eigvalsh", "full",
         "histogram", "householder_product", "lstsq", "lu", "lu_unpack", "matmul", "matrix_exp", "matrix_norm",
         "matrix_power", "matrix_rank", "multi_dot", "mv", "norm", "ormqr", "pca_lowrank", "pinv", "qr", "slogdet",
         "solve", "svd", "svd_lowrank", "t", "t_", "transpose", "transpose_", "triangular_solve", "vector_norm"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
