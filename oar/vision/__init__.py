"""Vision: models (LeNet, ResNet, MobileNetV2, VGG), transforms and datasets (Paddle's `paddle.vision`).

As in Paddle, the models, transforms and datasets are also reachable at this level (`paddle.vision.resnet50`,
`paddle.vision.Compose`, `paddle.vision.MNIST`); the models load on first use.

Example:
    >>> import oar.vision as vision
    >>> vision.resnet18 is vision.models.resnet18, vision.Compose is vision.transforms.Compose
    (True, True)
"""
import importlib

from . import datasets, transforms
from .datasets import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403

del functional  # noqa: F821  (paddle.vision has no `functional`: it is paddle.vision.transforms.functional)

_MODELS = ("LeNet", "ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "MobileNetV2", "mobilenet_v2", "VGG", "vgg11", "vgg13", "vgg16", "vgg19", "resnext50_32x4d",
           "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
           "wide_resnet50_2", "wide_resnet101_2", "ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
           "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
           "shufflenet_v2_swish", "AlexNet", "alexnet", "MobileNetV1", "mobilenet_v1",
           "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "MobileNetV3Small", "MobileNetV3Large", "mobilenet_v3_small",
           "mobilenet_v3_large", "DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264",
           "GoogLeNet", "googlenet", "InceptionV3", "inception_v3")

_PUBLIC = list(_MODELS) + datasets.__all__ + [n for n in transforms.__all__ if n != "functional"]
__all__ = ["datasets", "models", "ops", "transforms"] + _PUBLIC  # noqa: F405  (models and ops load on first use)


def __getattr__(name):
    if name in ("models", "ops"):  # imported on first use: they need oar.nn, which imports after oar.vision
        return importlib.import_module("." + name, __name__)
    if name in _MODELS:
        return getattr(importlib.import_module(".models", __name__), name)
    raise AttributeError(f"module 'oar.vision' has no attribute {name!r}")
