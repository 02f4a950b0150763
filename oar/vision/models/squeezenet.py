"""SqueezeNet 1.0 / 1.1 (Iandola et al.) with Paddle's layer names (``_conv``, fire modules ``_conv1`` ...
``_conv8``, classifier ``_conv9``)."""
from ... import nn
from ...nn import functional as F
from ...ops import manipulation as S
from ._utils import with_pretrained

# (in, squeeze, expand 1x1, expand 3x3) of the eight fire modules (the same in both versions)
_FIRES = [(96, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128), (256, 48, 192, 192),
          (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}  # the fire modules followed by a max pool


class MakeFireConv(nn.Layer):
    """Conv2D then ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expands concatenated."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, x):
        x = self._conv(x)
        return S.concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """SqueezeNet `version` '1.0' or '1.1'. With ``num_classes <= 0`` the classifier conv is left out (Paddle
    builds one with 0 output channels and skips it).

    Example:
        >>> oar.vision.models.SqueezeNet('1.1', num_classes=10)(oar.ones([1, 3, 64, 64])).shape
        [1, 10]
    """

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in _POOL_AFTER:
            raise ValueError(f"SqueezeNet: version must be '1.0' or '1.1', got {version!r}")
        self.version, self.num_classes, self.with_pool = version, num_classes, with_pool
        self._conv = nn.Conv2D(3, 96, 7, stride=2) if version == "1.0" else nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, (cin, sq, e1, e3) in enumerate(_FIRES):
            cin = 64 if i == 0 and version == "1.1" else cin
            setattr(self, f"_conv{i + 1}", MakeFire(cin, sq, e1, e3))
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        if num_classes > 0:
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, x):
        x = self._pool(F.relu(self._conv(x)))
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in _POOL_AFTER[self.version]:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = S.squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0, as Paddle's `squeezenet1_0`.

    Example:
        >>> model = oar.vision.models.squeezenet1_0()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        1248424
    """
    return with_pretrained(SqueezeNet("1.0", **kwargs), "squeezenet1_0", pretrained)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1 (fewer computations, the same accuracy), as Paddle's `squeezenet1_1`.

    Example:
        >>> model = oar.vision.models.squeezenet1_1()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        1235496
    """
    return with_pretrained(SqueezeNet("1.1", **kwargs), "squeezenet1_1", pretrained)
