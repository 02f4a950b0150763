"""Weight reparametrisations applied to a layer by a forward pre-hook (Paddle's `paddle.nn.utils.weight_norm`,
`remove_weight_norm`, `spectral_norm`): the layer's parameter is replaced by new parameters, and the weight is
recomputed from them before every forward."""
import numpy as np

from ..ops import linalg as LA
from ..ops import manipulation as S
from ..ops import math as M
from ..ops import reduction as R
from .initializer import Assign, Normal, create_parameter
from .param_attr import ParamAttr


def _norm_except_dim(w, dim):
    """The 2-norm over every dim but `dim` ([w.shape[dim]]), or over all (a 0-D tensor) when dim is None."""
    if dim is None:
        return M.sqrt(R.sum(M.square(w)))
    return M.sqrt(R.sum(M.square(w), axis=[i for i in range(w.ndim) if i != dim]))


def _along(t, dim, ndim):
    """`t` ([n] or 0-D) shaped to broadcast along `dim` of an `ndim`-D tensor."""
    if dim is None:
        return t
    shape = [1] * ndim
    shape[dim] = -1
    return S.reshape(t, shape)


def _new_param(value, name, trainable=True):
    value = np.asarray(value)
    p = create_parameter(list(value.shape), value.dtype.name, name=name,
                         attr=ParamAttr(initializer=Assign(value), trainable=trainable))
    return p


class WeightNorm:
    """The hook of `weight_norm`: weight = g * v / ||v|| (norms over every dim but `dim`)."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, layer):
        g, v = getattr(layer, self.name + "_g"), getattr(layer, self.name + "_v")
        return v * _along(g / _norm_except_dim(v, self.dim), self.dim, v.ndim)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def _hooks_of(layer, kind, name):
    return [(k, h) for k, h in layer._forward_pre_hooks.items() if isinstance(h, kind) and h.name == name]


def weight_norm(layer, name="weight", dim=0):
    """Replaces `layer.<name>` by the parameters `<name>_g` (its norm over every dim but `dim`; over all when dim
    is None) and `<name>_v` (its direction); the weight is ``g * v / ||v||``, recomputed before each forward.

    Example:
        >>> layer = oar.nn.utils.weight_norm(oar.nn.Linear(3, 4), dim=1)
        >>> sorted(n for n, _ in layer.named_parameters()), layer.weight_g.shape
        (['bias', 'weight_g', 'weight_v'], [4])
    """
    if _hooks_of(layer, WeightNorm, name):
        raise RuntimeError(f"weight_norm: {type(layer).__name__}.{name} already has weight norm")
    w = getattr(layer, name)
    if dim is not None:
        if not -w.ndim <= dim < w.ndim:
            raise ValueError(f"weight_norm: dim {dim} is out of range for {name} of shape {w.shape}")
        dim %= w.ndim
    hook = WeightNorm(name, dim)
    g = _norm_except_dim(w.detach(), dim).numpy()
    del layer._parameters[name]
    layer.add_parameter(name + "_g", _new_param(g.astype(w.numpy().dtype), f"{w.name}_g"))
    layer.add_parameter(name + "_v", _new_param(w.numpy(), f"{w.name}_v"))
    setattr(layer, name, hook.compute_weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undoes `weight_norm`: `<name>` becomes a parameter again holding ``g * v / ||v||``.

    Example:
        >>> layer = oar.nn.utils.weight_norm(oar.nn.Linear(3, 4))
        >>> layer = oar.nn.utils.remove_weight_norm(layer)
        >>> sorted(n for n, _ in layer.named_parameters())
        ['bias', 'weight']
    """
    found = _hooks_of(layer, WeightNorm, name)
    if not found:
        raise ValueError(f"remove_weight_norm: weight_norm of {name!r} not found in {type(layer).__name__}")
    key, hook = found[0]
    w = hook.compute_weight(layer).numpy()
    del layer._forward_pre_hooks[key]
    del layer._parameters[name + "_g"], layer._parameters[name + "_v"]
    layer._buffers.pop(name, None)
    layer.__dict__.pop(name, None)
    layer.add_parameter(name, _new_param(w, name))
    return layer


class SpectralNormHook:
    """The hook of `spectral_norm`: weight = weight_orig / sigma, sigma by power iteration on the persistent
    buffers `<name>_u`, `<name>_v`, updated in place in training (without gradient)."""

    def __init__(self, name, dim, n_power_iterations, eps):
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def _matrix(self, w):
        perm = [self.dim] + [i for i in range(w.ndim) if i != self.dim]
        return S.reshape(S.transpose(w, perm), [w.shape[self.dim], -1])

    def _normalize(self, x):
        """x / max(||x||, eps), as Paddle's F.normalize."""
        return x / M.clip(M.sqrt(R.sum(M.square(x))), min=self.eps)

    def compute_weight(self, layer, do_power_iteration):
        w = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        mat = self._matrix(w)
        if do_power_iteration and self.n_power_iterations > 0:
            fixed = mat.detach()
            for _ in range(self.n_power_iterations):
                v.set_value(self._normalize(LA.matmul(fixed, u.detach(), transpose_x=True)).numpy())
                u.set_value(self._normalize(LA.matmul(fixed, v.detach())).numpy())
        sigma = R.sum(u.detach() * LA.matmul(mat, v.detach()))
        return w / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides `layer.<name>` by its largest singular value before each forward: the parameter becomes
    `<name>_orig`, the vectors `<name>_u`, `<name>_v` (normalised N(0, 1) draws) persistent buffers that
    `n_power_iterations` power iterations update in training; `dim` (default 1 for Linear and transposed convs,
    else 0) is the dim the matrix's rows run along.

    Example:
        >>> layer = oar.nn.utils.spectral_norm(oar.nn.Linear(3, 4))
        >>> [n for n, _ in layer.named_parameters()], layer.weight_u.shape, layer.weight_v.shape
        (['bias', 'weight_orig'], [4], [3])
    """
    from .layer.common import Linear
    from .layer.conv import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
    if _hooks_of(layer, SpectralNormHook, name):
        raise RuntimeError(f"spectral_norm: {type(layer).__name__}.{name} already has spectral norm")
    if dim is None:
        dim = 1 if isinstance(layer, (Linear, Conv1DTranspose, Conv2DTranspose, Conv3DTranspose)) else 0
    w = getattr(layer, name)
    hook = SpectralNormHook(name, dim % w.ndim, n_power_iterations, eps)
    h = w.shape[hook.dim]
    cols = int(np.prod(w.shape)) // h
    dtype = w.numpy().dtype.name
    u, v = (create_parameter([n], dtype, attr=ParamAttr(initializer=Normal(0.0, 1.0))) for n in (h, cols))
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", _new_param(w.numpy(), f"{w.name}_orig"))
    layer.register_buffer(name + "_u", hook._normalize(u.detach()))
    layer.register_buffer(name + "_v", hook._normalize(v.detach()))
    layer.register_buffer(name, hook.compute_weight(layer, do_power_iteration=False), persistable=False)
    layer.register_forward_pre_hook(hook)
    return layer
