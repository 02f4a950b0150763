"""`paddle.nn.functional.norm`: normalizations (ops in `oar/ops/nn/norm.py`)."""
from ...ops.nn.norm import (batch_norm, layer_norm, group_norm, instance_norm, normalize,  # noqa: F401
                            local_response_norm)
from ...ops import linalg as _LA
from ...ops import manipulation as _S
from ...ops import reduction as _R
from ...ops import math as _M


def _l2_normalize(v, eps):
    return v / (_M.sqrt(_R.sum(v * v)) + eps)


def spectral_normalize(weight, u, v, dim=0, power_iters=1, eps=1e-12):
    """(`weight / sigma`, u, v): sigma the largest singular value of `weight` seen as [weight.shape[dim], -1],
    estimated by `power_iters` power iterations from `u` and `v`, returned iterated; the gradient treats them as
    constants (as Paddle's spectral_norm op does). Used by `nn.SpectralNorm` and `nn.utils.spectral_norm` (not a
    Paddle name, so not in `oar.nn.functional`'s namespace).

    Example:
        >>> from oar.nn.functional.norm import spectral_normalize
        >>> w = oar.to_tensor([[2.0, 0.0], [0.0, 1.0]])
        >>> spectral_normalize(w, oar.to_tensor([1.0, 0.0]), oar.to_tensor([1.0, 0.0]))[0].numpy().tolist()
        [[1.0, 0.0], [0.0, 0.5]]
    """
    perm = [dim] + [i for i in range(weight.ndim) if i != dim]
    mat = _S.reshape(_S.transpose(weight, perm), [weight.shape[dim], -1])
    fixed = mat.detach()
    u, v = u.detach(), v.detach()
    for _ in range(power_iters):
        v = _l2_normalize(_LA.matmul(_S.unsqueeze(u, 0), fixed)[0], eps)
        u = _l2_normalize(_LA.matmul(fixed, _S.unsqueeze(v, 1))[:, 0], eps)
    sigma = _R.sum(u * _LA.matmul(mat, _S.unsqueeze(v, 1))[:, 0])
    return weight / sigma, u, v
