"""Detection ops of Paddle's `paddle.vision.ops`: RoI pooling, NMS, box coding, prior boxes, YOLO box decoding and
deformable convolution, plus their Layer forms. Kernels live in `oar.vision.detection`."""
import numpy as np

from ..nn.initializer import Normal
from ..nn.layer import Layer
from ..nn.layer.activation import ReLU
from ..nn.layer.container import Sequential
from ..nn.layer.conv import Conv2D
from ..nn.layer.norm import BatchNorm2D
from .detection.boxes import box_coder, nms, prior_box
from .detection.deform import deform_conv2d
from .detection.image_io import decode_jpeg, read_file
from .detection.proposals import distribute_fpn_proposals, generate_proposals, matrix_nms
from .detection.roi import psroi_pool, roi_align, roi_pool
from .detection.yolo import yolo_box, yolo_loss

__all__ = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D", "roi_pool", "RoIPool",
           "psroi_pool", "PSRoIPool", "roi_align", "RoIAlign", "nms", "matrix_nms", "generate_proposals",
           "distribute_fpn_proposals", "read_file", "decode_jpeg", "ConvNormActivation"]


class RoIAlign(Layer):
    """Layer form of `roi_align`.

    Example:
        >>> layer = oar.vision.ops.RoIAlign(output_size=2)
        >>> layer(oar.ones([1, 3, 8, 8]), oar.to_tensor([[0.0, 0.0, 4.0, 4.0]]), oar.to_tensor([1])).shape
        [1, 3, 2, 2]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned)


class RoIPool(Layer):
    """Layer form of `roi_pool`.

    Example:
        >>> layer = oar.vision.ops.RoIPool(output_size=2)
        >>> layer(oar.ones([1, 3, 8, 8]), oar.to_tensor([[0.0, 0.0, 4.0, 4.0]]), oar.to_tensor([1])).shape
        [1, 3, 2, 2]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(Layer):
    """Layer form of `psroi_pool`.

    Example:
        >>> layer = oar.vision.ops.PSRoIPool(output_size=2)
        >>> layer(oar.ones([1, 8, 8, 8]), oar.to_tensor([[0.0, 0.0, 4.0, 4.0]]), oar.to_tensor([1])).shape
        [1, 2, 2, 2]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class DeformConv2D(Layer):
    """Layer form of `deform_conv2d` (weight [out, in/groups, kh, kw]; offset and mask are forward inputs).

    Example:
        >>> conv = oar.vision.ops.DeformConv2D(2, 4, kernel_size=3, padding=1)
        >>> conv(oar.ones([1, 2, 5, 5]), oar.zeros([1, 18, 5, 5])).shape
        [1, 4, 5, 5]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, deformable_groups=1,
                 groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        k = [int(kernel_size)] * 2 if isinstance(kernel_size, int) else [int(v) for v in kernel_size]
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = deformable_groups, groups
        fan_in = in_channels * int(np.prod(k))
        self.weight = self.create_parameter([out_channels, in_channels // groups] + k, attr=weight_attr,
                                            default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding, self._dilation,
                             self._deformable_groups, self._groups, mask)


class ConvNormActivation(Sequential):
    """Conv2D, then a norm layer, then an activation, as one `Sequential` (state-dict keys ``0.weight``,
    ``1._mean``, ... as Paddle's). `padding` None keeps the spatial size for stride 1; `bias` None gives the
    convolution a bias only when there is no norm layer; `norm_layer` / `activation_layer` None leave it out.

    Example:
        >>> from oar.vision.ops import ConvNormActivation
        >>> m = ConvNormActivation(3, 4)
        >>> list(m.state_dict().keys()), m(oar.ones([1, 3, 8, 8])).shape
        (['0.weight', '1.weight', '1.bias', '1._mean', '1._variance'], [1, 4, 8, 8])
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=BatchNorm2D, activation_layer=ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation, groups=groups,
                         bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
