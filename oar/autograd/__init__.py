from ..eager.engine import backward, grad
from ..core.state import no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from ..eager.py_layer import PyLayer, PyLayerContext
from .functional import jacobian, hessian, Jacobian, Hessian
from .saved_hooks import saved_tensors_hooks
