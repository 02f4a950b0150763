"""Fused recurrent ops exported to ONNX in their composed form: onnxruntime equals eager, several batch sizes."""
import numpy as np
import pytest

from onnx_helpers import check  # noqa: E402  (skips without onnx/onnxruntime)

import oar  # noqa: E402
import oar.nn as nn  # noqa: E402

LAYERS = [(nn.LSTM, nn.LSTMCell, "lstm"), (nn.GRU, nn.GRUCell, "gru"), (nn.SimpleRNN, nn.SimpleRNNCell, "simple_rnn")]


@pytest.mark.parametrize("layer, cell_cls, name", LAYERS)
def test_layers_and_cells_export(layer, cell_cls, name):
    oar.seed(0)
    net = layer(4, 8, num_layers=2, direction="bidirect")
    net.eval()
    x = np.random.default_rng(0).standard_normal((3, 5, 4)).astype("float32")
    lengths = np.array([5, 2, 4], "int64")

    def seq(x, lengths):
        y, final = net(x, sequence_length=lengths)
        return [y] + (list(final) if isinstance(final, tuple) else [final])
    check(seq, x, lengths, op=f"{name}_seq", dynamic=True, more=[(x[:2], lengths[:2])])
    cell = cell_cls(4, 8)

    def step(x):
        return cell(x)[0]
    check(step, x[:, 0], op=f"{name}_cell", dynamic=True, more=[(x[:2, 0],)])
