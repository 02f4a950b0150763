"""Mistakes users make with layers get errors that name the layer and the shapes involved."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F


@pytest.mark.parametrize("call,pattern", [
    (lambda: F.cross_entropy(oar.ones([3, 4]), oar.to_tensor(np.array([0, 1]))),
     r"needs hard labels of shape \[3\], got label shape \[2\]"),
    (lambda: F.cross_entropy(oar.ones([3, 4]), oar.ones([3, 5]), soft_label=True),
     r"soft labels of shape \[3, 4\], got label shape \[3, 5\]"),
    (lambda: nn.CrossEntropyLoss(axis=1)(oar.ones([2, 4, 3]), oar.to_tensor(np.zeros([2, 4], np.int64))),
     r"needs hard labels of shape \[2, 3\]"),
    (lambda: nn.LSTM(3, 2)(oar.ones([2, 4, 5])), r"LSTM: expected inputs of shape \[batch, time, input_size\] "
                                                 r"with input_size=3, got shape \[2, 4, 5\]"),
    (lambda: nn.GRU(3, 2, time_major=True)(oar.ones([4, 3])), r"\[time, batch, input_size\]"),
    (lambda: nn.BatchNorm2D(3)(oar.ones([2, 4, 5, 5])), r"BatchNorm2D\(3\): the input has 4 channels"),
    (lambda: nn.BatchNorm2D(3, data_format="NHWC")(oar.ones([2, 5, 5, 4])), r"4 channels .*NHWC"),
    (lambda: nn.BatchNorm1D(3)(oar.ones([2, 4, 5])), r"the input has 4 channels"),
    (lambda: nn.LayerNorm(8)(oar.ones([2, 3, 6])), r"normalized_shape \[8\] .* input shape \[2, 3, 6\]"),
    (lambda: nn.GroupNorm(2, 4)(oar.ones([2, 3, 6, 6])), r"3 channels cannot be split into 2 groups"),
    (lambda: nn.Conv2D(3, 4, 3)(oar.ones([1, 2, 5, 5])), r"input has 2 channels"),
    (lambda: nn.Conv2DTranspose(4, 2, 3)(oar.ones([1, 3, 5, 5])), r"input has 3 channels"),
    (lambda: nn.MaxPool2D(2)(oar.ones([2, 4, 5])), r"4-D input"),
    (lambda: nn.Embedding(5, 2)(oar.to_tensor(np.array([7]))), r"\[0, 5\), got values in \[7, 7\]"),
    (lambda: nn.Linear(4, 2)(oar.ones([3, 5])), r"\[3, 5\].*\[4, 2\]"),
])
def test_errors_name_shapes(call, pattern):
    with pytest.raises((ValueError, IndexError), match=pattern):
        call()


def test_layers_still_accept_good_inputs():
    assert nn.BatchNorm1D(3)(oar.ones([4, 3])).shape == [4, 3]
    assert nn.BatchNorm1D(3, data_format="NLC")(oar.ones([4, 5, 3])).shape == [4, 5, 3]
    assert nn.LayerNorm([2, 3])(oar.ones([4, 2, 3])).shape == [4, 2, 3]
    assert F.cross_entropy(oar.ones([2, 4, 3]), oar.to_tensor(np.zeros([2, 1, 3], np.int64)), axis=1,
                           reduction="none").shape == [2, 1, 3]
