"""Image transforms (Paddle's `paddle.vision.transforms`) on NumPy HWC/HW images, PIL images and CHW Tensors."""
from .transforms import (BaseTransform, Compose, ToTensor, Normalize, Resize, RandomCrop, CenterCrop,
                         RandomHorizontalFlip, RandomVerticalFlip, Transpose)
from .random_transforms import (Pad, RandomResizedCrop, BrightnessTransform, ContrastTransform, SaturationTransform,
                                HueTransform, ColorJitter, Grayscale, RandomRotation, RandomAffine, RandomPerspective,
                                RandomErasing)
from . import functional
from .functional import (to_tensor, hflip, vflip, resize, pad, affine, rotate, perspective, to_grayscale, crop,
                         center_crop, adjust_brightness, adjust_contrast, adjust_hue, normalize, erase)

__all__ = ["BaseTransform", "Compose", "ToTensor", "Normalize", "Resize", "RandomCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Pad", "RandomResizedCrop",
           "BrightnessTransform", "ContrastTransform", "SaturationTransform", "HueTransform", "ColorJitter",
           "Grayscale", "RandomRotation", "RandomAffine", "RandomPerspective", "RandomErasing", "functional",
           "to_tensor", "hflip", "vflip", "resize", "pad", "affine", "rotate", "perspective", "to_grayscale", "crop",
           "center_crop", "adjust_brightness", "adjust_contrast", "adjust_hue", "normalize", "erase"]
