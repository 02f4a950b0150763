"""`oar.nn.utils`: flattening parameters to a vector and back."""
import numpy as np

from ..ops import manipulation as S
from ..eager.tensor import Tensor


def parameters_to_vector(parameters, name=None):
    """Concatenates the flattened parameters into one 1-D tensor.

    Example:
        >>> v = oar.nn.utils.parameters_to_vector(oar.nn.Linear(2, 3).parameters())   # shape [9]
    """
    return S.concat([S.reshape(p, [-1]) for p in parameters])


def vector_to_parameters(vec, parameters, name=None):
    """Copies consecutive slices of the 1-D `vec` into `parameters` (in place)."""
    data = vec._data if isinstance(vec, Tensor) else np.asarray(vec)
    i = 0
    for p in parameters:
        n = p._data.size
        if i + n > data.size:
            raise ValueError(f"vector_to_parameters: the vector has {data.size} values, fewer than the parameters")
        p._data = data[i:i + n].reshape(p._data.shape).astype(p._data.dtype)
        p._version += 1
        i += n
    if i != data.size:
        raise ValueError(f"vector_to_parameters: the vector has {data.size} values but the parameters hold {i}")
