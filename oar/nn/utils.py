"""`oar.nn.utils`: flattening parameters to a vector and back, clipping gradients in place."""
import numpy as np

from ..kernels import backend
from ..ops import manipulation as S
from ..eager.tensor import Tensor


def parameters_to_vector(parameters, name=None):
    """Concatenates the flattened parameters into one 1-D tensor.

    Example:
        >>> oar.nn.utils.parameters_to_vector(oar.nn.Linear(2, 3).parameters()).shape
        [9]
    """
    return S.concat([S.reshape(p, [-1]) for p in parameters])


def vector_to_parameters(vec, parameters, name=None):
    """Copies consecutive slices of the 1-D `vec` into `parameters` (in place).

    Example:
        >>> layer = oar.nn.Linear(2, 1)
        >>> oar.nn.utils.vector_to_parameters(oar.to_tensor([1.0, 2.0, 3.0]), layer.parameters())
        >>> layer.weight.numpy().tolist(), layer.bias.numpy().tolist()
        ([[1.0], [2.0]], [3.0])
    """
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


def _with_grads(parameters):
    ps = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in ps if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients of `parameters` in place so that their joint `norm_type`-norm is at most `max_norm`
    (by ``max_norm / (norm + 1e-6)`` when larger, as Paddle's); returns the norm before clipping.

    Example:
        >>> layer = oar.nn.Linear(3, 2)
        >>> layer(oar.arange(6, dtype='float32').reshape([2, 3])).sum().backward()
        >>> round(oar.nn.utils.clip_grad_norm_(layer.parameters(), 1.0).item(), 4)
        13.1909
        >>> round(float(oar.nn.utils.parameters_to_vector([p.grad for p in layer.parameters()]).norm()), 4)
        1.0
    """
    norm_type = float(norm_type)
    if not norm_type > 0:
        raise ValueError(f"clip_grad_norm_: norm_type must be positive or inf, got {norm_type}")
    grads = [p.grad for p in _with_grads(parameters)]
    if not grads:
        return Tensor(np.asarray(0.0, np.float32))
    xp = backend.array_module(*[g._data for g in grads])  # CuPy on a GPU: only the norm comes to the host
    arrays = [g._data.astype(np.float64) for g in grads]
    if norm_type == float("inf"):
        total = max(float(xp.abs(a).max()) if a.size else 0.0 for a in arrays)
    else:
        total = float(sum(float((xp.abs(a) ** norm_type).sum()) for a in arrays) ** (1.0 / norm_type))
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"clip_grad_norm_: the total {norm_type}-norm of the gradients is not finite ({total}); "
                           "pass error_if_nonfinite=False to scale by it anyway")
    coef = min(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        g._data = (g._data * coef).astype(g._data.dtype, copy=False)
        g._version += 1
    return Tensor(np.asarray(total, grads[0]._data.dtype))


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient of `parameters` in place into ``[-clip_value, clip_value]``.

    Example:
        >>> layer = oar.nn.Linear(3, 2)
        >>> layer(oar.arange(6, dtype='float32').reshape([2, 3])).sum().backward()
        >>> oar.nn.utils.clip_grad_value_(layer.parameters(), 0.1)
        >>> layer.bias.grad.numpy().tolist()
        [0.10000000149011612, 0.10000000149011612]
    """
    c = float(clip_value)
    for p in _with_grads(parameters):
        xp = backend.array_module(p.grad._data)
        p.grad._data = xp.clip(p.grad._data, -c, c).astype(p.grad._data.dtype, copy=False)
        p.grad._version += 1


from .reparam import weight_norm, remove_weight_norm, spectral_norm  # noqa: E402,F401
