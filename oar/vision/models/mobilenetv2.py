"""MobileNetV2 (Sandler et al.) as in Paddle's model zoo."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import with_pretrained


def _make_divisible(v, divisor, min_value=None):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBNReLU(nn.Sequential):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1, norm_layer=None):
        norm_layer = norm_layer or nn.BatchNorm2D
        padding = (kernel_size - 1) // 2
        super().__init__(nn.Conv2D(in_planes, out_planes, kernel_size, stride, padding, groups=groups,
                                   bias_attr=False),
                         norm_layer(out_planes), nn.ReLU6())


class InvertedResidual(nn.Layer):
    """1x1 expand, 3x3 depthwise, 1x1 linear projection; residual when shapes allow."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden, kernel_size=1, norm_layer=norm_layer))
        layers.extend([ConvBNReLU(hidden, hidden, stride=stride, groups=hidden, norm_layer=norm_layer),
                       nn.Conv2D(hidden, oup, 1, 1, 0, bias_attr=False), norm_layer(oup)])
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2.

    Args:
        scale: channel multiplier.
        num_classes: classifier size; <= 0 leaves it out.
        with_pool: end with global average pooling.

    Example:
        >>> model = oar.vision.models.MobileNetV2(scale=0.5, num_classes=10)
    """

    _SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
                [6, 320, 1, 1]]

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        norm_layer = nn.BatchNorm2D
        input_channel = _make_divisible(32 * scale, 8)
        self.last_channel = _make_divisible(1280 * max(1.0, scale), 8)
        features = [ConvBNReLU(3, input_channel, stride=2, norm_layer=norm_layer)]
        for t, c, n, s in self._SETTING:
            output_channel = _make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(ConvBNReLU(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.classifier(x)
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2 (width `scale`).

    Example:
        >>> model = oar.vision.models.mobilenet_v2()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        3538984
    """
    return with_pretrained(MobileNetV2(scale=scale, **kwargs), f"mobilenetv2_{scale}", pretrained)
