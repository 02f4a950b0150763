"""The formulas the model zoo's reference script (tools/paddle_refs/zoo.py, under Paddle) and its test (under oar)
share: weights from each state-dict entry's name and shape, inputs, the loss whose gradients are compared, and the
digest that stands for a parameter's gradient. Plain NumPy: no framework imported."""
import zlib

import numpy as np


def seed(name):
    return zlib.crc32(name.encode()) % 997


def weight(name, shape):
    """``s = sin(0.7 i + seed(name))``: matrices and filters ``s sqrt(3 / fan_in)`` (activations keep their size
    through deep nets), running variances ``1 + 0.5 |s|``, running means ``0.05 s``, other vectors named like scales
    ``1 + 0.1 s``, the rest (biases) ``0.05 s``."""
    s = np.sin(np.arange(int(np.prod(shape))) * 0.7 + seed(name)).reshape(shape)
    last = name.rsplit(".", 1)[-1]
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 2 else shape[0]
        return s * np.sqrt(3.0 / fan_in)
    if last.endswith("variance"):
        return 1 + 0.5 * np.abs(s)
    if last.endswith("mean"):
        return 0.05 * s
    if last in ("weight", "scale", "gamma", "alpha") or last.endswith("_scale"):
        return 1 + 0.1 * s
    return 0.05 * s


def is_set(key, parameters):
    """Whether the formula sets a state-dict entry: parameters and running statistics, not the other buffers a model
    computes (masks, index tables)."""
    return key in parameters or key.endswith(("_mean", "_variance"))


# Paddle's RNN kernels keep nothing for the backward pass in eval mode ("Tensor holds no memory"): the gradient
# stage runs these layers in train mode, the same function where their dropout is 0
RNN_LAYERS = ("LSTM", "GRU", "SimpleRNN")


def rnns_to_train(net):
    for layer in net.sublayers():
        if type(layer).__name__ in RNN_LAYERS:
            layer.train()


def weights(state):
    """name -> float32 array for the floating entries of ``state`` (name -> (shape, dtype name)); integer buffers keep
    the values the model made."""
    return {k: weight(k, shape).astype(np.float32) for k, (shape, dtype) in state.items() if "float" in dtype}


def make_input(spec, k):
    """One model input from its spec: ``("float32", shape)`` a sine wave, ``("int64", shape, high)`` token ids in
    ``[1, high)``, ``("const", dtype, nested_list)`` the literal value."""
    if spec[0] == "const":
        return np.asarray(spec[2], dtype=spec[1])
    dtype, shape = spec[0], spec[1]
    n = int(np.prod(shape))
    if "int" in dtype:
        return (1 + (np.arange(n) * 7 + 3 * k) % (spec[2] - 1)).reshape(shape).astype(dtype)
    return np.sin(np.arange(n) * 0.1 + k).reshape(shape).astype(dtype)


def loss_weight(n, j):
    """The weights of output ``j`` (``n`` elements) in the loss ``sum_j sum(out_j * loss_weight)``."""
    return np.cos(np.arange(n) * 0.37 + j)


def grad_digest(name, grad):
    """(sum(grad * r), sum|grad|) with ``r = cos(0.53 i + seed(name))``: one number that moves with every element of
    the gradient, and its scale."""
    g = np.asarray(grad, np.float64).reshape(-1)
    r = np.cos(np.arange(g.size) * 0.53 + seed(name))
    return float((g * r).sum()), float(np.abs(g).sum())
