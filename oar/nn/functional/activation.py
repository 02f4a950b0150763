"""`paddle.nn.functional.activation`: the activation functions (ops in `oar/ops/nn/activation.py`, composed ones
and the in-place forms in `oar/ops/nn/activation_composed.py`)."""
from ...ops.nn.activation import (relu, relu_, relu6, leaky_relu, prelu, elu, selu, gelu, silu, swish, mish,  # noqa: F401
                                  sigmoid, tanh, hardswish, hardsigmoid, hardtanh, softplus, softsign, log_sigmoid,
                                  tanhshrink, thresholded_relu, softmax, log_softmax, glu)
from ...ops.nn.activation_composed import (hardshrink, softshrink, swiglu, celu, maxout, tanh_, elu_,  # noqa: F401
                                           softmax_, hardtanh_, leaky_relu_, thresholded_relu_)
from .activation_random import rrelu, gumbel_softmax  # noqa: F401,E402
