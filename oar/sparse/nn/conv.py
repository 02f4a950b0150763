"""Sparse convolution and max pooling (`paddle.sparse.nn.functional.conv2d/conv3d/subm_conv2d/subm_conv3d/
max_pool3d` and their layers) on channel-last COO tensors: indices [1 + nd, nnz] (batch, spatial...), values
[nnz, C].

The output's active sites are computed in NumPy: every site whose receptive field holds an active input site
(conv, pooling), or exactly the input's sites (submanifold conv). The values come from the dense convolution /
pooling op of oar applied to the scattered input and gathered at those sites, so the gradients are the dense
ops' gradients restricted to the active sites. Costs are those of the dense op: fine for the small grids a
CPU framework handles, not a replacement for a gather-GEMM sparse kernel.
"""
import math

import numpy as np

from ...kernels import sparse as K
from ...nn import functional as F
from ...nn.initializer import Normal
from ...nn.layer import Layer
from ...ops.creation import ones
from ...ops.indexing import gather_nd
from ...ops.logic import logical_not
from ...ops.manipulation import transpose
from ...ops.math import where
from ...eager.tensor import Tensor
from ..ops import _coo, _index
from ..tensor import SparseCooTensor

_DENSE = {2: (F.conv2d, F.max_pool2d), 3: (F.conv3d, F.max_pool3d)}
_FORMAT = {2: "NHWC", 3: "NDHWC"}


def _channels_first(t, nd):
    return transpose(t, [0, nd + 1] + list(range(1, nd + 1)))


def _channels_last(t, nd):
    return transpose(t, [0] + list(range(2, nd + 2)) + [1])


def _check(x, nd, data_format, what):
    if data_format != _FORMAT[nd]:
        raise ValueError(f"sparse {what} works on {_FORMAT[nd]} data, got data_format={data_format!r}")
    c = _coo(x, what)
    if c.ndim != nd + 2 or c.sparse_dim() != nd + 1:
        raise ValueError(f"sparse {what} expects a COO tensor of shape [N, {'D, ' if nd == 3 else ''}H, W, C] with "
                         f"sparse_dim {nd + 1} (values [nnz, C]), got shape {c.shape}, sparse_dim {c.sparse_dim()}")
    return c


def _active(c, nd):
    """The active-site indicator [N, 1, *spatial] (channels first), as a constant tensor."""
    return Tensor._wrap(K.active_indicator(c._indices, [c.shape[0]] + c.shape[1:nd + 1], c.values().dtype.np))


def _sites(indicator):
    """Indices [1 + nd, nnz] of the positive entries of a [N, 1, *spatial] indicator."""
    return K.nonzero_index(indicator._data[:, 0] > 0.5)


def _centred_padding(weight, padding, dilation, nd, what):
    """A submanifold conv is centred on each active site: padding (k - 1) // 2 * dilation per dim. Paddle takes
    padding 0 (its default) to mean that too; any other value than the centred one is refused."""
    k = [int(d) for d in weight.shape[:nd]]
    dil = [int(dilation)] * nd if isinstance(dilation, int) else [int(d) for d in dilation]
    centred = [(kk - 1) // 2 * dd for kk, dd in zip(k, dil)]
    given = [int(padding)] * nd if isinstance(padding, int) else [int(p) for p in padding] \
        if not isinstance(padding, str) else None
    if given is not None and given != [0] * nd and given != centred:
        raise ValueError(f"{what}: a submanifold conv is centred on each site (padding {centred} for kernel {k}); "
                         f"got padding={padding}")
    return centred


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, nd, subm, what):
    c = _check(x, nd, data_format, what)
    conv = _DENSE[nd][0]
    if subm:
        padding = _centred_padding(weight, padding, dilation, nd, what)
    w = transpose(weight, [nd + 1, nd] + list(range(nd)))  # [k..., C/g, M] -> [M, C/g, k...]
    out = conv(_channels_first(c.to_dense(), nd), w, None, stride, padding, dilation, groups)
    out = _channels_last(out, nd)
    if subm:
        if out.shape[1:nd + 1] != c.shape[1:nd + 1]:
            raise ValueError(f"submanifold conv keeps the spatial shape: input {c.shape[1:nd + 1]}, output "
                             f"{out.shape[1:nd + 1]} (use stride 1 and padding = kernel_size // 2)")
        sites = c._indices
    else:
        k = [int(d) for d in weight.shape[:nd]]
        probe = conv(_active(c, nd), ones([1, 1] + k, c.values().dtype), None, stride, padding,
                     dilation)
        sites = _sites(probe)
    values = gather_nd(out, _index(sites.T))
    if bias is not None:
        values = values + bias
    return SparseCooTensor(sites, values, out.shape, coalesced=True)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    """Sparse 3-D convolution; `weight` is [kD, kH, kW, C/groups, M]; output sites are those whose window
    holds an active input site.

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2], [1, 0]], [[1.0], [2.0]], [1, 2, 3, 3, 1])
        >>> y = oar.sparse.nn.functional.conv3d(x, oar.ones([1, 2, 2, 1, 1]))
        >>> y.shape, y.values().numpy().ravel().tolist()
        ([1, 2, 2, 2, 1], [1.0, 1.0, 1.0, 1.0, 2.0])
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, False, "conv3d")


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    """Submanifold sparse 3-D convolution: output only at the input's active sites (stride 1, 'same' padding).

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [0, 1]], [[1.0], [2.0]], [1, 1, 2, 2, 1])
        >>> y = oar.sparse.nn.functional.subm_conv3d(x, oar.ones([1, 3, 3, 1, 1]), padding=[0, 1, 1])
        >>> y.indices().numpy().tolist(), y.values().numpy().ravel().tolist()
        ([[0, 0], [0, 0], [0, 1], [0, 1]], [3.0, 3.0])
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, True, "subm_conv3d")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", name=None):
    """Sparse 2-D convolution of NHWC COO input; `weight` is [kH, kW, C/groups, M].

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0], [1], [1]], [[2.0]], [1, 3, 3, 1])
        >>> oar.sparse.nn.functional.conv2d(x, oar.ones([2, 2, 1, 1])).to_dense().numpy()[0, :, :, 0].tolist()
        [[2.0, 2.0], [2.0, 2.0]]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, False, "conv2d")


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                name=None):
    """Submanifold sparse 2-D convolution: output only at the input's active sites.

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1]], [[1.0], [2.0]], [1, 2, 2, 1])
        >>> oar.sparse.nn.functional.subm_conv2d(x, oar.ones([3, 3, 1, 1]), padding=1).values().numpy().ravel().tolist()
        [3.0, 3.0]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, True, "subm_conv2d")


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC", name=None):
    """Sparse 3-D max pooling: the maximum over each window's active sites (absent sites are not zeros).

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [0, 1]], [[-1.0], [-3.0]], [1, 1, 2, 2, 1])
        >>> oar.sparse.nn.functional.max_pool3d(x, [1, 2, 2]).values().numpy().ravel().tolist()
        [-1.0]
    """
    nd = 3
    c = _check(x, nd, data_format, "max_pool3d")
    pool = _DENSE[nd][1]
    dense = _channels_first(c.to_dense(), nd)
    active = _active(c, nd)
    filled = where(logical_not(active > 0.5), Tensor._wrap(np.asarray(-np.inf, dense.dtype.np)), dense)
    out = _channels_last(pool(filled, kernel_size, stride, padding, ceil_mode=ceil_mode), nd)
    sites = _sites(pool(active, kernel_size, stride, padding, ceil_mode=ceil_mode))
    return SparseCooTensor(sites, gather_nd(out, _index(sites.T)), out.shape, coalesced=True)


# ---- layers ----------------------------------------------------------------------------------------------------------
class _SparseConv(Layer):
    _nd, _subm = 3, False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        nd = self._nd
        if padding_mode != "zeros":
            raise ValueError(f"sparse convolutions pad with zeros only, got padding_mode={padding_mode!r}")
        k = [int(v) for v in kernel_size] if isinstance(kernel_size, (list, tuple)) else [int(kernel_size)] * nd
        self._args = (stride, padding, dilation, groups, data_format or _FORMAT[nd])
        fan_in = math.prod(k) * in_channels
        self.weight = self.create_parameter(k + [in_channels // groups, out_channels], attr=weight_attr,
                                            default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        stride, padding, dilation, groups, fmt = self._args
        return _conv(x, self.weight, self.bias, stride, padding, dilation, groups, fmt, self._nd, self._subm,
                     type(self).__name__)


class Conv3D(_SparseConv):
    """Sparse 3-D convolution layer (weight [kD, kH, kW, C/groups, M]).

    Example:
        >>> conv = oar.sparse.nn.Conv3D(1, 4, kernel_size=3, padding=1)
        >>> x = oar.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
        >>> conv(x).shape
        [1, 3, 3, 3, 4]
    """


class SubmConv3D(_SparseConv):
    """Submanifold sparse 3-D convolution layer: output at the input's sites only.

    Example:
        >>> conv = oar.sparse.nn.SubmConv3D(1, 4, kernel_size=3, padding=1)
        >>> x = oar.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
        >>> conv(x).nnz()
        1
    """
    _subm = True


class Conv2D(_SparseConv):
    """Sparse 2-D convolution layer on NHWC COO input (weight [kH, kW, C/groups, M]).

    Example:
        >>> conv = oar.sparse.nn.Conv2D(1, 2, kernel_size=2)
        >>> conv(oar.sparse.sparse_coo_tensor([[0], [1], [1]], [[1.0]], [1, 3, 3, 1])).shape
        [1, 2, 2, 2]
    """
    _nd = 2


class SubmConv2D(_SparseConv):
    """Submanifold sparse 2-D convolution layer.

    Example:
        >>> conv = oar.sparse.nn.SubmConv2D(1, 2, kernel_size=3, padding=1)
        >>> conv(oar.sparse.sparse_coo_tensor([[0], [1], [1]], [[1.0]], [1, 3, 3, 1])).nnz()
        1
    """
    _nd, _subm = 2, True


class MaxPool3D(Layer):
    """Sparse 3-D max pooling layer.

    Example:
        >>> pool = oar.sparse.nn.MaxPool3D(kernel_size=2)
        >>> pool(oar.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[5.0]], [1, 2, 2, 2, 1])).values().numpy().tolist()
        [[5.0]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NDHWC",
                 name=None):
        super().__init__()
        if return_mask:
            raise NotImplementedError("sparse MaxPool3D with return_mask is not supported")
        self._args = (kernel_size, stride, padding, ceil_mode, data_format)

    def forward(self, x):
        return max_pool3d(x, *self._args)
