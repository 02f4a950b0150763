from .tensor import Tensor, Parameter, to_tensor, is_tensor
from .methods import TensorMethods
