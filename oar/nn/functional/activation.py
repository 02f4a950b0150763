"""`paddle.nn.functional.activation`: the activation functions (ops in `oar/ops/nn/activation.py`)."""
from ...ops.nn.activation import (relu, relu_, relu6, leaky_relu, prelu, elu, selu, gelu, silu, swish, mish,  # noqa: F401
                                  sigmoid, tanh, hardswish, hardsigmoid, hardtanh, hardshrink, softshrink, softplus,
                                  softsign, log_sigmoid, tanhshrink, thresholded_relu, softmax, log_softmax, glu,
                                  swiglu)
