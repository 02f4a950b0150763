"""MobileNetV3 Small / Large (Howard et al. 2019) with Paddle's layer names (``conv``, ``blocks.N``, ``lastconv``,
``classifier``) and its batch norms (momentum 0.99, epsilon 1e-3)."""
import functools

from ... import nn
from ...ops import manipulation as S
from ..ops import ConvNormActivation
from ._utils import with_pretrained
from .mobilenetv2 import _make_divisible

_ACTS = {"relu": nn.ReLU, "hardswish": nn.Hardswish}
# (in, kernel, expanded, out, squeeze-excitation, activation, stride) at scale 1
_SMALL = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2), (24, 3, 88, 24, False, "relu", 1),
          (24, 5, 96, 40, True, "hardswish", 2), (40, 5, 240, 40, True, "hardswish", 1),
          (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 120, 48, True, "hardswish", 1),
          (48, 5, 144, 48, True, "hardswish", 1), (48, 5, 288, 96, True, "hardswish", 2),
          (96, 5, 576, 96, True, "hardswish", 1), (96, 5, 576, 96, True, "hardswish", 1)]
_LARGE = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2), (24, 3, 72, 24, False, "relu", 1),
          (24, 5, 72, 40, True, "relu", 2), (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
          (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
          (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
          (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
          (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
          (160, 5, 960, 160, True, "hardswish", 1)]


class SqueezeExcitation(nn.Layer):
    """Channel weights from the pooled input: 1x1 conv, `activation`, 1x1 conv, `scale_activation`; times the input.

    Example:
        >>> from oar.vision.models.mobilenetv3 import SqueezeExcitation
        >>> SqueezeExcitation(8, 2)(oar.ones([1, 8, 4, 4])).shape
        [1, 8, 4, 4]
    """

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation, self.scale_activation = activation(), scale_activation()

    def forward(self, x):
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x))))) * x


class InvertedResidual(nn.Layer):
    """1x1 expand (when the width changes), depthwise conv, optional squeeze-excitation, 1x1 linear projection;
    a residual connection when the shape is kept."""

    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se, activation_layer,
                 norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se, self.expand = use_se, in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(in_channels, expanded_channels, 1, 1, 0, norm_layer=norm_layer,
                                                  activation_layer=activation_layer)
        self.bottleneck_conv = ConvNormActivation(expanded_channels, expanded_channels, filter_size, stride,
                                                  (filter_size - 1) // 2, groups=expanded_channels,
                                                  norm_layer=norm_layer, activation_layer=activation_layer)
        if use_se:
            self.mid_se = SqueezeExcitation(expanded_channels, _make_divisible(expanded_channels // 4, 8),
                                            scale_activation=nn.Hardsigmoid)
        self.linear_conv = ConvNormActivation(expanded_channels, out_channels, 1, 1, 0, norm_layer=norm_layer,
                                              activation_layer=None)

    def forward(self, x):
        y = self.bottleneck_conv(self.expand_conv(x) if self.expand else x)
        y = self.linear_conv(self.mid_se(y) if self.use_se else y)
        return x + y if self.use_res_connect else y


class MobileNetV3(nn.Layer):
    """MobileNetV3 from a block table (rows of `_SMALL` / `_LARGE`) at width `scale`; see `MobileNetV3Small` and
    `MobileNetV3Large`.

    Example:
        >>> from oar.vision.models.mobilenetv3 import MobileNetV3, _SMALL
        >>> MobileNetV3(_SMALL, last_channel=1024, num_classes=0)(oar.ones([1, 3, 32, 32])).shape
        [1, 576, 1, 1]
    """

    def __init__(self, config, last_channel, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        adj = lambda c: _make_divisible(c * scale, 8)  # noqa: E731
        rows = [(adj(i), k, adj(e), adj(o), se, _ACTS[a], s) for i, k, e, o, se, a, s in config]
        self.scale, self.last_channel, self.num_classes, self.with_pool = scale, last_channel, num_classes, with_pool
        self.lastconv_in_channels = rows[-1][0]
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm = functools.partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(3, rows[0][0], 3, 2, 1, norm_layer=norm, activation_layer=nn.Hardswish)
        self.blocks = nn.Sequential(*[InvertedResidual(i, e, o, k, s, se, a, norm) for i, k, e, o, se, a, s in rows])
        self.lastconv = ConvNormActivation(self.lastconv_in_channels, self.lastconv_out_channels, 1, 1, 0,
                                           norm_layer=norm, activation_layer=nn.Hardswish)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Linear(self.lastconv_out_channels, last_channel), nn.Hardswish(),
                                            nn.Dropout(p=0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(S.flatten(x, 1))
        return x


class MobileNetV3Small(MobileNetV3):
    """MobileNetV3-Small at width `scale`.

    Example:
        >>> oar.vision.models.MobileNetV3Small(scale=0.5, num_classes=10)(oar.ones([1, 3, 32, 32])).shape
        [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__(_SMALL, _make_divisible(1024 * scale, 8), scale, num_classes, with_pool)


class MobileNetV3Large(MobileNetV3):
    """MobileNetV3-Large at width `scale`.

    Example:
        >>> oar.vision.models.MobileNetV3Large(scale=0.5, num_classes=10)(oar.ones([1, 3, 32, 32])).shape
        [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__(_LARGE, _make_divisible(1280 * scale, 8), scale, num_classes, with_pool)


def mobilenet_v3_small(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV3-Small, as Paddle's `mobilenet_v3_small`.

    Example:
        >>> model = oar.vision.models.mobilenet_v3_small()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        2554968
    """
    return with_pretrained(MobileNetV3Small(scale=scale, **kwargs), f"mobilenet_v3_small_x{scale}", pretrained)


def mobilenet_v3_large(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV3-Large, as Paddle's `mobilenet_v3_large`.

    Example:
        >>> model = oar.vision.models.mobilenet_v3_large()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        5507432
    """
    return with_pretrained(MobileNetV3Large(scale=scale, **kwargs), f"mobilenet_v3_large_x{scale}", pretrained)
