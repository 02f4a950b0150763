"""Vision datasets read from local files (downloaded into Paddle's cache only with ``download=True``); MNIST's test
set ships with oar."""
from .mnist import MNIST, FashionMNIST, read_idx
from .cifar import Cifar10, Cifar100
from .folder import DatasetFolder, ImageFolder
from .archives import Flowers, VOC2012

__all__ = ["MNIST", "FashionMNIST", "read_idx", "Cifar10", "Cifar100", "DatasetFolder", "ImageFolder", "Flowers",
           "VOC2012"]
