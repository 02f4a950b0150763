"""ShuffleNetV2 (Ma et al.) with Paddle's layer names, so Paddle's checkpoints load: ``_conv1``, blocks ``2_1`` ...
``4_4`` (the first of each stage halves the size and doubles the channels), ``_last_conv``, ``_fc``."""
from ... import nn
from ...ops import manipulation as S
from ...ops.nn.common import channel_shuffle
from ..ops import ConvNormActivation
from ._utils import with_pretrained

# output channels of conv1, the three stages and the last conv, per width scale
_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512], 0.5: [24, 48, 96, 192, 1024],
             1.0: [24, 116, 232, 464, 1024], 1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}
_REPEATS = [4, 8, 4]
_ACTS = {"relu": nn.ReLU, "swish": nn.Swish, None: None}


def _cna(cin, cout, k, stride=1, groups=1, act=None):
    return ConvNormActivation(cin, cout, k, stride, (k - 1) // 2, groups=groups, activation_layer=act)


class InvertedResidual(nn.Layer):
    """Half the channels pass through, the other half go 1x1 -> depthwise 3x3 -> 1x1; then a channel shuffle."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _cna(in_channels // 2, half, 1, act=activation_layer)
        self._conv_dw = _cna(half, half, 3, stride, groups=half)
        self._conv_linear = _cna(half, half, 1, act=activation_layer)

    def forward(self, x):
        x1, x2 = S.split(x, 2, axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(S.concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The downsampling block: both branches see the whole input (depthwise stride 2), then a channel shuffle."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _cna(in_channels, in_channels, 3, stride, groups=in_channels)
        self._conv_linear_1 = _cna(in_channels, half, 1, act=activation_layer)
        self._conv_pw_2 = _cna(in_channels, half, 1, act=activation_layer)
        self._conv_dw_2 = _cna(half, half, 3, stride, groups=half)
        self._conv_linear_2 = _cna(half, half, 1, act=activation_layer)

    def forward(self, x):
        x1 = self._conv_linear_1(self._conv_dw_1(x))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(x)))
        return channel_shuffle(S.concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 at width `scale` (0.25, 0.33, 0.5, 1.0, 1.5 or 2.0) with `act` 'relu', 'swish' or None.

    Example:
        >>> model = oar.vision.models.ShuffleNetV2(scale=0.25, num_classes=10)
        >>> model(oar.ones([1, 3, 64, 64])).shape
        [1, 10]
    """

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _CHANNELS:
            raise ValueError(f"ShuffleNetV2: scale must be one of {sorted(_CHANNELS)}, got {scale}")
        if act not in _ACTS:
            raise ValueError(f"ShuffleNetV2: act must be 'relu', 'swish' or None, got {act!r}")
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        channels, act_layer = _CHANNELS[scale], _ACTS[act]
        self._conv1 = _cna(3, channels[0], 3, 2, act=act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate(_REPEATS):
            cin, cout = channels[stage], channels[stage + 1]
            for i in range(repeats):
                block = InvertedResidualDS(cin, cout, 2, act_layer) if i == 0 else \
                    InvertedResidual(cout, cout, 1, act_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = _cna(channels[3], channels[4], 1, act=act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[4]
            self._fc = nn.Linear(channels[4], num_classes)

    def forward(self, x):
        x = self._max_pool(self._conv1(x))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(S.flatten(x, 1))
        return x


def _variant(arch, scale, act, paddle_size):
    def build(pretrained=False, **kwargs):
        return with_pretrained(ShuffleNetV2(scale=scale, act=act, **kwargs), arch, pretrained)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = (f"ShuffleNetV2 at width {scale} with {act} activations, as Paddle's `{arch}`.\n\n    Example:\n"
                     f"        >>> model = oar.vision.models.{arch}()\n"
                     f"        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1\n"
                     f"        {paddle_size}\n    ")
    return build


shufflenet_v2_x0_25 = _variant("shufflenet_v2_x0_25", 0.25, "relu", 607712)
shufflenet_v2_x0_33 = _variant("shufflenet_v2_x0_33", 0.33, "relu", 652264)
shufflenet_v2_x0_5 = _variant("shufflenet_v2_x0_5", 0.5, "relu", 1374744)
shufflenet_v2_x1_0 = _variant("shufflenet_v2_x1_0", 1.0, "relu", 2294784)
shufflenet_v2_x1_5 = _variant("shufflenet_v2_x1_5", 1.5, "relu", 3527064)
shufflenet_v2_x2_0 = _variant("shufflenet_v2_x2_0", 2.0, "relu", 7399952)
shufflenet_v2_swish = _variant("shufflenet_v2_swish", 1.0, "swish", 2294784)
