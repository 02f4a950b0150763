"""`paddle.sparse.nn`: layers over sparse tensors (activations, softmax, batch norm over the stored values,
convolutions and max pooling of channel-last COO grids)."""
from . import functional
from .layers import ReLU, ReLU6, LeakyReLU, Softmax, BatchNorm, SyncBatchNorm
from .conv import Conv2D, Conv3D, SubmConv2D, SubmConv3D, MaxPool3D

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D", "Conv3D", "SubmConv2D",
           "SubmConv3D", "MaxPool3D"]
