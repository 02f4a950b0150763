from .engine import backward, grad
from ..framework.state import no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from .py_layer import PyLayer, PyLayerContext
