"""AlexNet (Krizhevsky et al.) with Paddle's layer names (``_conv1`` ... ``_conv5``, ``_fc6`` ... ``_fc8``) and its
uniform ``±1/sqrt(fan_in)`` initialization, so Paddle's checkpoints load."""
import math

from ... import nn
from ...nn import functional as F
from ...ops import manipulation as S
from ._utils import with_pretrained


def _bounded(bound):
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound))


def _uniform(fan_in):
    return _bounded(1.0 / math.sqrt(fan_in))


class ConvPoolLayer(nn.Layer):
    """Conv2D (uniform init), ReLU when ``act='relu'``, then a 3x3 / 2 max pool."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv, groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride, padding, groups=groups,
                               weight_attr=_bounded(stdv), bias_attr=_bounded(stdv))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, x):
        x = self._conv(x)
        return self._pool(self.relu(x) if self.relu is not None else x)


class AlexNet(nn.Layer):
    """AlexNet for 224x224 input; ``num_classes <= 0`` ends at the last pooled features. Dropout scales at inference
    (Paddle's ``downscale_in_infer``).

    Example:
        >>> oar.vision.models.AlexNet(num_classes=0)(oar.ones([1, 3, 224, 224])).shape
        [1, 256, 6, 6]
    """

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1 / math.sqrt(64 * 5 * 5), act="relu")
        self._conv3 = nn.Conv2D(192, 384, 3, padding=1, weight_attr=_uniform(192 * 9), bias_attr=_uniform(192 * 9))
        self._conv4 = nn.Conv2D(384, 256, 3, padding=1, weight_attr=_uniform(384 * 9), bias_attr=_uniform(384 * 9))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1 / math.sqrt(256 * 9), act="relu")
        if num_classes > 0:
            fan = 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(fan, 4096, weight_attr=_uniform(fan), bias_attr=_uniform(fan))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform(fan), bias_attr=_uniform(fan))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform(fan), bias_attr=_uniform(fan))

    def forward(self, x):
        x = self._conv2(self._conv1(x))
        x = self._conv5(F.relu(self._conv4(F.relu(self._conv3(x)))))
        if self.num_classes > 0:
            x = F.relu(self._fc6(self._drop1(S.flatten(x, 1))))
            x = self._fc8(F.relu(self._fc7(self._drop2(x))))
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet, as Paddle's `alexnet`.

    Example:
        >>> model = oar.vision.models.alexnet()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        61100840
    """
    return with_pretrained(AlexNet(**kwargs), "alexnet", pretrained)
