"""`paddle.base.dygraph`: `guard`, `to_variable`, `Layer` and `no_grad` (the 1.x-era names Paddle still keeps)."""
from ..fluid.dygraph import guard, to_variable  # noqa: F401
from ..nn.layer.layers import Layer  # noqa: F401
from ..core.state import no_grad  # noqa: F401
