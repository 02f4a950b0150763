"""`oar.callbacks` (Paddle's `paddle.callbacks`): the public callback classes."""
from .hapi.callbacks import Callback, ProgBarLogger, ModelCheckpoint, LRScheduler
from .hapi.callbacks_more import EarlyStopping, ReduceLROnPlateau, VisualDL, CSVLogger, WandbCallback

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping", "ReduceLROnPlateau",
           "VisualDL", "CSVLogger", "WandbCallback"]
