"""Image transforms (Paddle's `paddle.vision.transforms` basics) on NumPy HWC/HW images and CHW Tensors."""
from .transforms import (BaseTransform, Compose, ToTensor, Normalize, Resize, RandomCrop, CenterCrop,
                         RandomHorizontalFlip, RandomVerticalFlip, Transpose)
from . import functional

__all__ = ["BaseTransform", "Compose", "ToTensor", "Normalize", "Resize", "RandomCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "functional"]
