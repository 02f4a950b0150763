"""`paddle.linalg`: decompositions, solvers, matrix functions and norms.

The ops live in `oar/ops/linalg*.py` (one definition each); this module is the public namespace Paddle programs
import (``paddle.linalg.svd(x)``). Most names are also top-level functions and Tensor methods, as in Paddle.
"""
from .ops.linalg_decomp import cholesky, det, slogdet, eigh, eigvalsh, eig, eigvals, svd, qr, lu, lu_unpack
from .ops.linalg_solve import (solve, inv, triangular_solve, cholesky_solve, pinv, lstsq, matrix_exp, matrix_power,
                               matrix_rank, multi_dot)
from .ops.linalg_norm import (norm, vector_norm, matrix_norm, cond, cov, corrcoef, cross, householder_product,
                              ormqr, svd_lowrank, pca_lowrank)

__all__ = ["cholesky", "norm", "matrix_norm", "vector_norm", "cond", "cov", "corrcoef", "inv", "eig", "eigvals",
           "multi_dot", "matrix_rank", "svd", "qr", "householder_product", "pca_lowrank", "svd_lowrank", "lu",
           "lu_unpack", "matrix_exp", "matrix_power", "det", "slogdet", "eigh", "eigvalsh", "pinv", "solve",
           "cholesky_solve", "triangular_solve", "lstsq", "ormqr", "cross"]
