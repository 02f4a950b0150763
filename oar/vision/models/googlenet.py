"""GoogLeNet (Szegedy et al.) as Paddle's: bias-free convolutions without batch norm, a ReLU after each inception
concat, two auxiliary heads (``out1`` from 4a, ``out2`` from 4d; Paddle's ``out2`` head has no ReLU after its first
linear layer, and oar keeps that so Paddle's checkpoints give Paddle's numbers). Layer names are Paddle's."""
from ... import nn
from ...nn import functional as F
from ...ops import manipulation as S
from ._utils import with_pretrained


def xavier(channels, filter_size):
    """Paddle's uniform ``±sqrt(3 / (k^2 channels))`` weight attribute for this model."""
    stdv = (3.0 / (filter_size ** 2 * channels)) ** 0.5
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    """A bias-free 'same' Conv2D (no norm, no activation)."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride, (filter_size - 1) // 2,
                               groups=groups, bias_attr=False)

    def forward(self, x):
        return self._conv(x)


class Inception(nn.Layer):
    """1x1, 1x1-3x3, 1x1-5x5 and maxpool-1x1 branches concatenated, then ReLU."""

    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R, filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, x):
        branches = [self._conv1(x), self._conv3(self._conv3r(x)), self._conv5(self._conv5r(x)),
                    self._convprj(self._pool(x))]
        return F.relu(S.concat(branches, axis=1))


_INCEPTIONS = {"_ince3a": (192, 64, 96, 128, 16, 32, 32), "_ince3b": (256, 128, 128, 192, 32, 96, 64),
               "_ince4a": (480, 192, 96, 208, 16, 48, 64), "_ince4b": (512, 160, 112, 224, 24, 64, 64),
               "_ince4c": (512, 128, 128, 256, 24, 64, 64), "_ince4d": (512, 112, 144, 288, 32, 64, 64),
               "_ince4e": (528, 256, 160, 320, 32, 128, 128), "_ince5a": (832, 256, 160, 320, 32, 128, 128),
               "_ince5b": (832, 384, 192, 384, 48, 128, 128)}


class GoogLeNet(nn.Layer):
    """GoogLeNet for 224x224 input; returns ``(out, out1, out2)``: the main and the two auxiliary outputs.

    Example:
        >>> out, aux1, aux2 = oar.vision.models.GoogLeNet(num_classes=0)(oar.ones([1, 3, 128, 128]))
        >>> out.shape, aux1.shape
        ([1, 1024, 1, 1], [1, 512, 1, 1])
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, (cin, *rest) in _INCEPTIONS.items():
            setattr(self, name, Inception(cin, cin, *rest))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))

    def forward(self, x):
        x = self._pool(self._conv_2(self._conv_1(self._pool(self._conv(x)))))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        out = self._ince5b(self._ince5a(self._pool(self._ince4e(ince4d))))
        out1, out2 = ince4a, ince4d
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(S.squeeze(self._drop(out), axis=[2, 3]))
            out1 = self._out1(self._drop_o1(F.relu(self._fc_o1(S.flatten(self._conv_o1(out1), 1)))))
            out2 = self._out2(self._drop_o2(self._fc_o2(S.flatten(self._conv_o2(out2), 1))))
        return out, out1, out2


def googlenet(pretrained=False, **kwargs):
    """GoogLeNet, as Paddle's `googlenet`.

    Example:
        >>> model = oar.vision.models.googlenet()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        11535736
    """
    return with_pretrained(GoogLeNet(**kwargs), "googlenet", pretrained)
