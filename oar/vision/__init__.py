"""Vision: models (LeNet, ResNet, MobileNetV2, VGG), transforms and datasets (Paddle's `paddle.vision`)."""
import importlib

from . import datasets, transforms

__all__ = ["datasets", "models", "ops", "transforms"]


def __getattr__(name):
    if name in ("models", "ops"):  # imported on first use: they need oar.nn, which imports after oar.vision
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'oar.vision' has no attribute {name!r}")
