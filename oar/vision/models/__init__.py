"""Model zoo (Paddle's `paddle.vision.models`); ``pretrained=True`` fetches Paddle's published weights on request."""
from .lenet import LeNet
from .resnet import (ResNet, BasicBlock, BottleneckBlock, resnet18, resnet34, resnet50, resnet101, resnet152,
                     wide_resnet50_2, wide_resnet101_2)
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["LeNet", "ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "wide_resnet50_2", "wide_resnet101_2", "MobileNetV2", "mobilenet_v2", "VGG", "vgg11", "vgg13",
           "vgg16", "vgg19"]
