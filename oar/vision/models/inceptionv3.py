"""Inception v3 (Szegedy et al. 2016, "Rethinking the Inception Architecture") as Paddle's: every convolution is a
bias-free Conv2D + BatchNorm2D + ReLU (`ConvNormActivation`, keys ``0.weight``, ``1._mean``, ...), a stem, then
blocks A x3, B, C x4, D, E x2 in one ``inception_block_list``; the average-pool branches count the zero padding
(``exclusive=False``). Layer names and their order are Paddle's, so Paddle's checkpoints load unchanged."""
from ... import nn
from ...ops import manipulation as S
from ..ops import ConvNormActivation
from ._utils import with_pretrained


def conv_bn(in_channels, out_channels, kernel_size, stride=1, padding=0):
    """Conv2D without bias, BatchNorm2D, ReLU (Paddle's padding defaults to 0 throughout this model)."""
    return ConvNormActivation(in_channels, out_channels, kernel_size, stride, padding)


def avg_pool_3x3():
    """The 3x3 stride-1 average pool of the A, C and E blocks; the padded zeros count in the mean, as Paddle's."""
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """Five convolutions and two 3x3 stride-2 max pools: ``[N, 3, 299, 299]`` -> ``[N, 192, 35, 35]``."""

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = conv_bn(3, 32, 3, stride=2)
        self.conv_2a_3x3 = conv_bn(32, 32, 3)
        self.conv_2b_3x3 = conv_bn(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = conv_bn(64, 80, 1)
        self.conv_4a_3x3 = conv_bn(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    """35x35 block: 1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avgpool-1x1 branches, ``224 + pool_features`` channels out."""

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = conv_bn(num_channels, 64, 1)
        self.branch5x5_1 = conv_bn(num_channels, 48, 1)
        self.branch5x5_2 = conv_bn(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = conv_bn(num_channels, 64, 1)
        self.branch3x3dbl_2 = conv_bn(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = conv_bn(96, 96, 3, padding=1)
        self.branch_pool = avg_pool_3x3()
        self.branch_pool_conv = conv_bn(num_channels, pool_features, 1)

    def forward(self, x):
        branches = [self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
                    self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                    self.branch_pool_conv(self.branch_pool(x))]
        return S.concat(branches, axis=1)


class InceptionB(nn.Layer):
    """Grid reduction 35 -> 17: stride-2 3x3 | 1x1-3x3-3x3 (stride 2) | 3x3 stride-2 max pool."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = conv_bn(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = conv_bn(num_channels, 64, 1)
        self.branch3x3dbl_2 = conv_bn(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = conv_bn(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        branches = [self.branch3x3(x), self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                    self.branch_pool(x)]
        return S.concat(branches, axis=1)


class InceptionC(nn.Layer):
    """17x17 block with factorised 7x7 convolutions (1x7 and 7x1 pairs), 768 channels out."""

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c = channels_7x7
        self.branch1x1 = conv_bn(num_channels, 192, 1)
        self.branch7x7_1 = conv_bn(num_channels, c, 1)
        self.branch7x7_2 = conv_bn(c, c, (1, 7), padding=(0, 3))
        self.branch7x7_3 = conv_bn(c, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = conv_bn(num_channels, c, 1)
        self.branch7x7dbl_2 = conv_bn(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = conv_bn(c, c, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = conv_bn(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = conv_bn(c, 192, (1, 7), padding=(0, 3))
        self.branch_pool = avg_pool_3x3()
        self.branch_pool_conv = conv_bn(num_channels, 192, 1)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        b7dbl = self.branch7x7dbl_1(x)
        for conv in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            b7dbl = conv(b7dbl)
        return S.concat([self.branch1x1(x), b7, b7dbl, self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction 17 -> 8: 1x1-3x3 (stride 2) | 1x1-1x7-7x1-3x3 (stride 2) | 3x3 stride-2 max pool."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = conv_bn(num_channels, 192, 1)
        self.branch3x3_2 = conv_bn(192, 320, 3, stride=2)
        self.branch7x7x3_1 = conv_bn(num_channels, 192, 1)
        self.branch7x7x3_2 = conv_bn(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = conv_bn(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = conv_bn(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b7 = self.branch7x7x3_1(x)
        for conv in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            b7 = conv(b7)
        return S.concat([self.branch3x3_2(self.branch3x3_1(x)), b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """8x8 block whose 3x3 branches end in parallel 1x3 and 3x1 convolutions, concatenated; 2048 channels out."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = conv_bn(num_channels, 320, 1)
        self.branch3x3_1 = conv_bn(num_channels, 384, 1)
        self.branch3x3_2a = conv_bn(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = conv_bn(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = conv_bn(num_channels, 448, 1)
        self.branch3x3dbl_2 = conv_bn(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = conv_bn(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = conv_bn(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = avg_pool_3x3()
        self.branch_pool_conv = conv_bn(num_channels, 192, 1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        b3 = S.concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        b3dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        b3dbl = S.concat([self.branch3x3dbl_3a(b3dbl), self.branch3x3dbl_3b(b3dbl)], axis=1)
        return S.concat([self.branch1x1(x), b3, b3dbl, self.branch_pool_conv(self.branch_pool(x))], axis=1)


# the blocks of ``inception_block_list`` in order, with their constructor arguments (Paddle's layers_config)
_BLOCKS = [(InceptionA, 192, 32), (InceptionA, 256, 64), (InceptionA, 288, 64), (InceptionB, 288),
           (InceptionC, 768, 128), (InceptionC, 768, 160), (InceptionC, 768, 160), (InceptionC, 768, 192),
           (InceptionD, 768), (InceptionE, 1280), (InceptionE, 2048)]


class InceptionV3(nn.Layer):
    """Inception v3 for 299x299 input (any side from 75 works); ``[N, num_classes]`` logits.

    Args:
        num_classes: size of the last linear layer; ``<= 0`` leaves out the dropout and the linear layer.
        with_pool: global average pool after the last block.

    With ``num_classes > 0`` the features are reshaped to ``[-1, 2048]`` as Paddle's are, so with
    ``with_pool=False`` every spatial position of a larger input becomes a row of its own.

    Example:
        >>> model = oar.vision.models.InceptionV3(num_classes=10)
        >>> _ = model.eval()
        >>> model(oar.ones([1, 3, 75, 75])).shape
        [1, 10]
        >>> oar.vision.models.InceptionV3(num_classes=0, with_pool=False)(oar.ones([1, 3, 75, 75])).shape
        [1, 2048, 1, 1]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self.inception_stem = InceptionStem()
        self.inception_block_list = nn.LayerList([block(*args) for block, *args in _BLOCKS])
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / 2048 ** 0.5
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=nn.ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(S.reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    """Inception v3, as Paddle's `inception_v3`; `pretrained` fetches Paddle's published ImageNet weights.

    Example:
        >>> model = oar.vision.models.inception_v3()
        >>> sum(v.size for v in model.parameters() if not v.stop_gradient)   # as in Paddle 3.3.1
        23834568
    """
    return with_pretrained(InceptionV3(**kwargs), "inception_v3", pretrained)
