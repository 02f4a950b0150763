from .tensor import Tensor, Parameter, to_tensor, is_tensor
from .methods import TensorMethods
from .array import create_array, array_write, array_read, array_length, array_to_tensor, tensor_array_to_tensor
