"""VGG 11/13/16/19 (Simonyan & Zisserman) as in Paddle's model zoo."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import with_pretrained

_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


class VGG(nn.Layer):
    """VGG: `features` (convolutions) then a three-layer classifier on 7x7 pooled features.

    Example:
        >>> features = oar.vision.models.vgg.make_layers([8, "M", 512, "M"])
        >>> oar.vision.models.VGG(features, num_classes=0)(oar.ones([1, 3, 16, 16])).shape
        [1, 512, 7, 7]
    """

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features, self.num_classes, self.with_pool = features, num_classes, with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.classifier(x)
        return x


def make_layers(cfg, batch_norm=False):
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
        else:
            conv = nn.Conv2D(in_channels, v, kernel_size=3, padding=1)
            layers.extend([conv, nn.BatchNorm2D(v), nn.ReLU()] if batch_norm else [conv, nn.ReLU()])
            in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch, cfg, batch_norm, pretrained, **kwargs):
    return with_pretrained(VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs),
                           arch + ("_bn" if batch_norm else ""), pretrained)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11; ``num_classes=0`` leaves out the classifier.

    Example:
        >>> model = oar.vision.models.vgg11(num_classes=0)
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        9220480
    """
    return _vgg("vgg11", "A", batch_norm, pretrained, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13; ``num_classes=0`` leaves out the classifier.

    Example:
        >>> model = oar.vision.models.vgg13(num_classes=0)
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        9404992
    """
    return _vgg("vgg13", "B", batch_norm, pretrained, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16; ``num_classes=0`` leaves out the classifier, ``batch_norm=True`` adds batch norms.

    Example:
        >>> model = oar.vision.models.vgg16(batch_norm=True, num_classes=0)
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        14731584
    """
    return _vgg("vgg16", "D", batch_norm, pretrained, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19; ``num_classes=0`` leaves out the classifier.

    Example:
        >>> model = oar.vision.models.vgg19(num_classes=0)
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        20024384
    """
    return _vgg("vgg19", "E", batch_norm, pretrained, **kwargs)
