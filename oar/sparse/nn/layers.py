"""Layers of `paddle.sparse.nn`, each a thin wrapper of its functional form."""
from ...nn.layer import Layer
from ...nn import BatchNorm1D
from . import functional as F


class ReLU(Layer):
    """Sparse ReLU layer.

    Example:
        >>> oar.sparse.nn.ReLU()(oar.to_tensor([-1.0, 2.0]).to_sparse_coo(1)).values().numpy().tolist()
        [0.0, 2.0]
    """

    def forward(self, x):
        return F.relu(x)


class ReLU6(Layer):
    """Sparse ReLU6 layer.

    Example:
        >>> oar.sparse.nn.ReLU6()(oar.to_tensor([-1.0, 9.0]).to_sparse_coo(1)).values().numpy().tolist()
        [0.0, 6.0]
    """

    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(Layer):
    """Sparse leaky ReLU layer.

    Example:
        >>> oar.sparse.nn.LeakyReLU(0.5)(oar.to_tensor([-1.0, 2.0]).to_sparse_coo(1)).values().numpy().tolist()
        [-0.5, 2.0]
    """

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._slope)


class Softmax(Layer):
    """Sparse softmax over the stored entries of each row.

    Example:
        >>> x = oar.to_tensor([[1.0, 0.0, 1.0]]).to_sparse_csr()
        >>> oar.sparse.nn.Softmax()(x).values().numpy().tolist()
        [0.5, 0.5]
    """

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)


class BatchNorm(Layer):
    """Batch normalization of a sparse NDHWC tensor's stored values ([nnz, C]) over their channels.

    Example:
        >>> bn = oar.sparse.nn.BatchNorm(2)
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1]], [[1.0, 2.0], [3.0, 6.0]], [1, 2, 2])
        >>> bn(x).values().numpy().round(3).tolist()
        [[-1.0, -1.0], [1.0, 1.0]]
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        super().__init__()
        if data_format not in ("NDHWC", "NHWC", "NC"):
            raise ValueError(f"sparse BatchNorm works on channel-last data, got data_format={data_format!r}")
        self._bn = BatchNorm1D(num_features, momentum=momentum, epsilon=epsilon, weight_attr=weight_attr,
                               bias_attr=bias_attr, use_global_stats=use_global_stats)

    def forward(self, x):
        return x._with_values(self._bn(x.values()))


class SyncBatchNorm(BatchNorm):
    """Sparse batch norm synchronized across devices; on one CPU process it is `BatchNorm`.

    Example:
        >>> bn = oar.sparse.nn.SyncBatchNorm(2)
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1]], [[1.0, 2.0], [3.0, 6.0]], [1, 2, 2])
        >>> bn(x).values().shape
        [2, 2]
    """
