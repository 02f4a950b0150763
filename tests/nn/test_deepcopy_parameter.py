"""copy.deepcopy of a Layer keeps its parameters Parameters (a copied model trains and saves like the original)."""
import copy

import numpy as np

import oar


def test_deepcopy_keeps_parameters():
    net = oar.nn.Linear(3, 2)
    net.bias.trainable = False
    net.weight.optimize_attr["learning_rate"] = 0.5
    twin = copy.deepcopy(net)
    assert type(twin.weight) is type(net.weight) and type(twin.bias) is type(net.bias)
    assert twin.bias.stop_gradient and not twin.bias.trainable and not twin.weight.stop_gradient
    assert twin.weight.optimize_attr["learning_rate"] == 0.5
    np.testing.assert_array_equal(twin.weight.numpy(), net.weight.numpy())
    assert twin.weight is not net.weight and twin.weight._data is not net.weight._data
    # a layer made from the copy's parameters registers them as parameters
    holder = oar.nn.Layer()
    holder.w = twin.weight
    assert list(holder._parameters) == ["w"]
