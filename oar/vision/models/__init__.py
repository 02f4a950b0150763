"""Model zoo (Paddle's `paddle.vision.models`); ``pretrained=True`` fetches Paddle's published weights on request."""
from .lenet import LeNet
from .resnet import (ResNet, BasicBlock, BottleneckBlock, resnet18, resnet34, resnet50, resnet101, resnet152,
                     resnext50_32x4d, resnext50_64x4d, resnext101_32x4d, resnext101_64x4d, resnext152_32x4d,
                     resnext152_64x4d, wide_resnet50_2, wide_resnet101_2)
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19
from .alexnet import AlexNet, alexnet
from .mobilenetv1 import MobileNetV1, mobilenet_v1
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201, densenet264
from .googlenet import GoogLeNet, googlenet
from .inceptionv3 import InceptionV3, inception_v3
from .mobilenetv3 import MobileNetV3Small, MobileNetV3Large, mobilenet_v3_small, mobilenet_v3_large
from .shufflenetv2 import (ShuffleNetV2, shufflenet_v2_x0_25, shufflenet_v2_x0_33, shufflenet_v2_x0_5,
                           shufflenet_v2_x1_0, shufflenet_v2_x1_5, shufflenet_v2_x2_0, shufflenet_v2_swish)

__all__ = ["LeNet", "ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "MobileNetV2", "mobilenet_v2", "VGG", "vgg11", "vgg13", "vgg16", "vgg19", "resnext50_32x4d",
           "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
           "wide_resnet50_2", "wide_resnet101_2", "ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
           "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
           "shufflenet_v2_swish", "AlexNet", "alexnet", "MobileNetV1", "mobilenet_v1",
           "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "MobileNetV3Small", "MobileNetV3Large", "mobilenet_v3_small",
           "mobilenet_v3_large", "DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264",
           "GoogLeNet", "googlenet", "InceptionV3", "inception_v3"]
