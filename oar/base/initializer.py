"""`paddle.base.initializer`: the initializers and `set_global_initializer` (`oar.nn.initializer`)."""
from ..nn.initializer import (Initializer, Constant, Uniform, Normal, TruncatedNormal, XavierUniform,  # noqa: F401
                              XavierNormal, KaimingNormal, KaimingUniform, Assign, set_global_initializer)
