"""MobileNetV1 (Howard et al.) with Paddle's layer names (``conv1``, ``conv2_1`` ... ``conv6``, ``fc``)."""
from ... import nn
from ...ops import manipulation as S
from ..ops import ConvNormActivation
from ._utils import with_pretrained

# (name, in channels, depthwise channels, out channels, stride) of the depthwise-separable blocks at scale 1
_BLOCKS = [("conv2_1", 32, 32, 64, 1), ("conv2_2", 64, 64, 128, 2), ("conv3_1", 128, 128, 128, 1),
           ("conv3_2", 128, 128, 256, 2), ("conv4_1", 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 2)] + \
    [(f"conv5_{i}", 512, 512, 512, 1) for i in range(1, 6)] + [("conv5_6", 512, 512, 1024, 2),
                                                               ("conv6", 1024, 1024, 1024, 1)]


class DepthwiseSeparable(nn.Layer):
    """A depthwise 3x3 conv-BN-ReLU, then a pointwise 1x1 conv-BN-ReLU (channels times `scale`)."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(in_channels, int(out_channels1 * scale), 3, stride, 1,
                                                  groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(int(out_channels1 * scale), int(out_channels2 * scale), 1, 1, 0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    """MobileNetV1 at width `scale`.

    Example:
        >>> oar.vision.models.MobileNetV1(scale=0.25, num_classes=10)(oar.ones([1, 3, 32, 32])).shape
        [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), 3, 2, 1)
        self.dwsl = [self.add_sublayer(name, DepthwiseSeparable(int(cin * scale), c1, c2, c1, stride, scale))
                     for name, cin, c1, c2, stride in _BLOCKS]
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(S.flatten(x, 1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1 at width `scale`, as Paddle's `mobilenet_v1`.

    Example:
        >>> model = oar.vision.models.mobilenet_v1(scale=0.5)
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        1342536
    """
    return with_pretrained(MobileNetV1(scale=scale, **kwargs), f"mobilenetv1_{scale}", pretrained)
