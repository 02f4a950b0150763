"""`paddle.base.param_attr`: `ParamAttr`."""
from ..nn.param_attr import ParamAttr  # noqa: F401
