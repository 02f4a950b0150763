"""`oar.tensor` (Paddle's `paddle.tensor`): the Tensor class and every tensor function (creation, math,
manipulation, linear algebra, logic, search, statistics, random, ...). The op families define them in `oar/ops/`;
the top-level `oar` namespace re-exports this module's `__all__`.

Example:
    >>> oar.tensor.add(oar.to_tensor([1, 2]), oar.to_tensor([3, 4])).numpy().tolist()
    [4, 6]
"""
from ..eager.tensor import Tensor, Parameter, to_tensor, is_tensor
from ..core.tensor_methods import TensorMethods
from .array import create_array, array_write, array_read, array_length, array_to_tensor, tensor_array_to_tensor
from .. import ops as _ops
from ..ops.math import *  # noqa: F401,F403
from ..ops.reduction import *  # noqa: F401,F403
from ..ops.linalg import *  # noqa: F401,F403
from ..ops.logic import *  # noqa: F401,F403
from ..ops.creation import *  # noqa: F401,F403
from ..ops.manipulation import *  # noqa: F401,F403
from ..ops.search import *  # noqa: F401,F403
from ..ops.indexing import *  # noqa: F401,F403
from ..ops.random import *  # noqa: F401,F403
from ..ops.special import *  # noqa: F401,F403
from ..ops.complex import *  # noqa: F401,F403
from ..ops.stat import *  # noqa: F401,F403
from ..ops.matrix import *  # noqa: F401,F403
from ..ops.rearrange import *  # noqa: F401,F403
from ..ops.short_names import *  # noqa: F401,F403
from ..ops.inplace import *  # noqa: F401,F403
from ..ops.linalg_decomp import *  # noqa: F401,F403
from ..ops.linalg_solve import *  # noqa: F401,F403
from ..ops.linalg_norm import *  # noqa: F401,F403
from ..ops.manipulation import flip as reverse
from ..ops.math import max, min, sum  # noqa: F401  (shadow builtins on purpose)

_FAMILIES = ("math", "reduction", "linalg", "logic", "creation", "manipulation", "search", "indexing", "random",
             "special", "complex", "stat", "matrix", "rearrange", "short_names", "inplace", "linalg_decomp",
             "linalg_solve", "linalg_norm")
__all__ = sorted({name for family in _FAMILIES for name in getattr(_ops, family).__all__}
                 | {"Tensor", "Parameter", "to_tensor", "is_tensor", "reverse", "max", "min", "sum"})


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of `shape` filled with `value` (Paddle's `paddle.tensor.fill_constant`); with `out`, the value
    is written into that tensor.

    Example:
        >>> oar.tensor.fill_constant([2], "int64", 3).numpy().tolist()
        [3, 3]
    """
    from ..ops.creation import assign, full
    result = full(shape, value, dtype)
    if out is not None:
        assign(result, out)
        return out
    return result
# Paddle's submodule paths (`paddle.tensor.math.frexp`, `from paddle.tensor.manipulation import ...`)
from . import math, manipulation, creation, linalg, logic, search, stat, random, attribute  # noqa: E402,F401
