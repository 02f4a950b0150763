"""DenseNet 121/161/169/201/264 (Huang et al.) with Paddle's layer names (``conv1_func``, dense blocks
``db_conv_2`` ... with layers ``conv2_1`` ..., transitions ``tr_conv2_blk`` ..., ``batch_norm``, ``out``)."""
import math

from ... import nn
from ...ops import manipulation as S
from ._utils import with_pretrained

# layers -> (initial features, growth rate, layers per dense block)
_SPEC = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]), 169: (64, 32, [6, 12, 32, 32]),
         201: (64, 32, [6, 12, 48, 32]), 264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(nn.Layer):
    """BatchNorm with ReLU, then a bias-free Conv2D (pre-activation)."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride, pad, groups=groups, bias_attr=False)

    def forward(self, x):
        return self._conv(self._batch_norm(x))


class DenseLayer(nn.Layer):
    """A 1x1 bottleneck and a 3x3 conv whose `growth_rate` new channels are appended to the input."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, x):
        y = self.bn_ac_func2(self.bn_ac_func1(x))
        if self.dropout:
            y = self.dropout_func(y)
        return S.concat([x, y], axis=1)


class DenseBlock(nn.Layer):
    """`num_layers` dense layers named ``{name}_1``, ``{name}_2``, ..."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = [
            self.add_sublayer(f"{name}_{i + 1}", DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size,
                                                            dropout))
            for i in range(num_layers)]

    def forward(self, x):
        for layer in self.dense_layer_func:
            x = layer(x)
        return x


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv to `num_output_features`, then a 2x2 average pool."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, x):
        return self.pool2d_avg(self.conv_ac_func(x))


class ConvBNLayer(nn.Layer):
    """A bias-free Conv2D, then BatchNorm with ReLU."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride, pad, groups=groups, bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, x):
        return self._batch_norm(self._conv(x))


class DenseNet(nn.Layer):
    """DenseNet with `layers` in 121, 161, 169, 201, 264. Without `with_pool` the classifier sees the flattened
    feature map (Paddle's forward fails there instead).

    Example:
        >>> oar.vision.models.DenseNet(121, num_classes=10)(oar.ones([1, 3, 32, 32])).shape
        [1, 10]
    """

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        if layers not in _SPEC:
            raise ValueError(f"DenseNet: layers must be one of {sorted(_SPEC)}, got {layers}")
        self.num_classes, self.with_pool = num_classes, with_pool
        features, growth, self.block_config = _SPEC[layers]
        self.conv1_func = ConvBNLayer(3, features, 7, stride=2, pad=3)
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list, self.transition_func_list = [], []
        for i, num_layers in enumerate(self.block_config):
            self.dense_block_func_list.append(self.add_sublayer(
                f"db_conv_{i + 2}", DenseBlock(features, num_layers, bn_size, growth, dropout, name=f"conv{i + 2}")))
            features += num_layers * growth
            if i != len(self.block_config) - 1:
                self.transition_func_list.append(self.add_sublayer(
                    f"tr_conv{i + 2}_blk", TransitionLayer(features, features // 2)))
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(features)
            self.out = nn.Linear(features, num_classes,
                                 weight_attr=nn.ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.pool2d_max(self.conv1_func(x))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(S.flatten(x, 1))
        return x


def _variant(layers, paddle_size):
    arch = f"densenet{layers}"

    def build(pretrained=False, **kwargs):
        return with_pretrained(DenseNet(layers=layers, **kwargs), arch, pretrained)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = (f"DenseNet-{layers}, as Paddle's `{arch}`.\n\n    Example:\n"
                     f"        >>> model = oar.vision.models.{arch}()\n"
                     f"        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1\n"
                     f"        {paddle_size}\n    ")
    return build


densenet121 = _variant(121, 8062504)
densenet161 = _variant(161, 28900936)
densenet169 = _variant(169, 14307880)
densenet201 = _variant(201, 20242984)
densenet264 = _variant(264, 33736232)
