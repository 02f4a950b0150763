"""`paddle.base.data_feeder`: `convert_dtype` and the argument checks model code calls."""
from ..core import dtype as _D


def convert_dtype(dtype):
    """The dtype's name as Paddle's ``convert_dtype`` gives it (``'float32'``), from an oar dtype, a NumPy dtype
    or a name.

    Example:
        >>> from oar.base.data_feeder import convert_dtype
        >>> convert_dtype(np.float64), convert_dtype('int32')
        ('float64', 'int32')
    """
    return _D.convert_dtype(dtype).name


def check_type(input, input_name, expected_type, op_name, extra_message=""):
    """Raises TypeError when `input` is not of `expected_type` (a type or tuple of types), as Paddle's check.

    Example:
        >>> from oar.base.data_feeder import check_type
        >>> check_type(3, 'x', int, 'my_op')
    """
    if not isinstance(input, expected_type):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be {expected_type}, but received "
                        f"{type(input)}. {extra_message}")


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    """Raises TypeError when `input_dtype` is not among `expected_dtype` (names).

    Example:
        >>> from oar.base.data_feeder import check_dtype
        >>> check_dtype(oar.float32, 'x', ['float32', 'float64'], 'my_op')
    """
    name = convert_dtype(input_dtype)
    if name not in expected_dtype:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be {expected_dtype}, but received "
                        f"{name}. {extra_message}")


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):
    """`check_dtype` of a Tensor's (or static Variable's) dtype; raises TypeError for anything else.

    Example:
        >>> from oar.base.data_feeder import check_variable_and_dtype
        >>> check_variable_and_dtype(oar.ones([2]), 'x', ['float32'], 'my_op')
    """
    if not hasattr(input, "dtype") or not hasattr(input, "shape"):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be a Tensor, but received {type(input)}")
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)
