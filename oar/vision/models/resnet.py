"""ResNet 18/34/50/101/152 with Paddle's layer names (conv1, bn1, layer1..4, fc)."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import with_pretrained


class BasicBlock(nn.Layer):
    """Two 3x3 convolutions with a residual connection (ResNet 18/34).

    Example:
        >>> block = oar.vision.models.BasicBlock(8, 8)
        >>> block(oar.ones([1, 8, 5, 5])).shape
        [1, 8, 5, 5]
    """

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        if groups != 1 or base_width != 64:
            raise ValueError(f"BasicBlock supports only groups=1 and width 64 (got groups={groups}, "
                             f"width={base_width}): wide ResNets and ResNeXt use BottleneckBlock (wide_resnet50_2)")
        if dilation > 1:
            raise NotImplementedError("BasicBlock: dilation > 1 is not supported")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3, 1x1 expand (x4) with a residual connection (ResNet 50/101/152).

    Example:
        >>> block = oar.vision.models.BottleneckBlock(16, 4)
        >>> block(oar.ones([1, 16, 5, 5])).shape
        [1, 16, 5, 5]
    """

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups, dilation=dilation,
                               bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet (He et al.) as in Paddle.

    Args:
        block: `BasicBlock` or `BottleneckBlock`.
        depth: 18, 34, 50, 101 or 152.
        width: base width of the bottleneck (64; 128 for wide ResNets).
        num_classes: output size of `fc`; <= 0 leaves it out.
        with_pool: end with global average pooling.
        groups: convolution groups in the bottleneck (ResNeXt).

    Example:
        >>> model = oar.vision.models.ResNet(oar.vision.models.BasicBlock, 18, num_classes=10)
    """

    _CFG = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in self._CFG:
            raise ValueError(f"ResNet: depth must be one of {sorted(self._CFG)}, got {depth}")
        layers = self._CFG[depth]
        self.groups, self.base_width = groups, width
        self.num_classes, self.with_pool = num_classes, with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes, self.dilation = 64, 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer, downsample, previous_dilation = self._norm_layer, None, self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False),
                norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.fc(x)
        return x


def _resnet(arch, block, depth, pretrained, **kwargs):
    return with_pretrained(ResNet(block, depth, **kwargs), arch, pretrained)


def resnet18(pretrained=False, **kwargs):
    """ResNet-18.

    Example:
        >>> model = oar.vision.models.resnet18()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        11699112
    """
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34.

    Example:
        >>> model = oar.vision.models.resnet34()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        21814696
    """
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50.

    Example:
        >>> model = oar.vision.models.resnet50()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        25610152
    """
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101.

    Example:
        >>> model = oar.vision.models.resnet101()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        44654504
    """
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152.

    Example:
        >>> model = oar.vision.models.resnet152()
        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle 3.3.1
        60344232
    """
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


def _variant(arch, depth, groups, width, doc, paddle_size):
    """A ResNeXt / wide ResNet builder; `paddle_size` (the state dict's element count in Paddle 3.3.1) makes its
    docstring example a check of the architecture."""
    def build(pretrained=False, **kwargs):
        kwargs.update(groups=groups, width=width)
        return _resnet(arch, BottleneckBlock, depth, pretrained, **kwargs)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = (f"{doc}: ResNet-{depth} bottlenecks with {groups} groups of base width {width}, as Paddle's "
                     f"`{arch}`.\n\n    Example:\n        >>> model = oar.vision.models.{arch}()\n"
                     f"        >>> sum(v.size for v in model.state_dict().values())   # as in Paddle\n"
                     f"        {paddle_size}\n    ")
    return build


resnext50_32x4d = _variant("resnext50_32x4d", 50, 32, 4, "ResNeXt-50 32x4d", 25097128)
resnext50_64x4d = _variant("resnext50_64x4d", 50, 64, 4, "ResNeXt-50 64x4d", 45290920)
resnext101_32x4d = _variant("resnext101_32x4d", 101, 32, 4, "ResNeXt-101 32x4d", 44315560)
resnext101_64x4d = _variant("resnext101_64x4d", 101, 64, 4, "ResNeXt-101 64x4d", 83658152)
resnext152_32x4d = _variant("resnext152_32x4d", 152, 32, 4, "ResNeXt-152 32x4d", 60150696)
resnext152_64x4d = _variant("resnext152_64x4d", 152, 64, 4, "ResNeXt-152 64x4d", 115266984)
wide_resnet50_2 = _variant("wide_resnet50_2", 50, 1, 128, "Wide ResNet-50-2", 68951464)
wide_resnet101_2 = _variant("wide_resnet101_2", 101, 1, 128, "Wide ResNet-101-2", 127024552)
