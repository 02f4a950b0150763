"""Graph breaks (`to_static(fn, full_graph=False)`): statements that need a tensor's value in Python run
between programs; `full_graph=True` keeps the clear error; saving a function with breaks names them."""
import numpy as np
import pytest

import oar as paddle
from conv_helpers import T, assert_same


def needs_value(x):
    y = x * 2
    n = len(y.tolist())
    if y.sum() > 0:
        y = y + n
    return y * 3


def try_around_tensor_if(x):
    y = x * 2
    try:
        if y.sum() > 0:
            y = y + 1
    except ValueError:
        y = y * 0
    z = y * 3
    if z.mean() > 100:
        return z
    return z - 1


def several_breaks(x):
    a = x + 1
    k = int(np.sum(a.numpy() > 1))   # NumPy on the value
    b = a * k
    m = b.tolist()
    return b + len(m)


@pytest.mark.parametrize("fn,lines", [(needs_value, 1), (try_around_tensor_if, 1), (several_breaks, 2)])
@pytest.mark.parametrize("x", [[1.0, 2.0], [-1.0, -3.0]])
def test_pieces_around_breaks_match_eager(fn, lines, x):
    sf = paddle.jit.to_static(fn, full_graph=False)
    xe, xs = T(x), T(x)
    xe.stop_gradient = xs.stop_gradient = False
    want, got = fn(xe), sf(xs)
    assert_same(want, got)
    assert len(sf.graph_breaks) == lines
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())
    again = sf(T(x))  # the pieces' programs are cached
    assert_same(fn(T(x)), again)


def test_breaks_are_reported_with_their_lines(capsys):
    paddle.jit.set_verbosity(1)
    try:
        sf = paddle.jit.to_static(needs_value, full_graph=False)
        sf(T([1.0]))
    finally:
        paddle.jit.set_verbosity(0)
    err = capsys.readouterr()
    text = err.out + err.err
    assert "graph break at" in text and "n = len(y.tolist())" in text
    assert sf.graph_breaks[0][1] == "n = len(y.tolist())"


def test_full_graph_keeps_the_clear_error():
    with pytest.raises(TypeError, match=r"\.tolist\(\)` on the static value"):
        paddle.jit.to_static(needs_value)(T([1.0]))


def test_saving_a_function_with_breaks_names_the_line(tmp_path):
    sf = paddle.jit.to_static(needs_value, full_graph=False)
    sf(T([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"graph breaks \(line \d+: n = len\(y.tolist\(\)\)\)"):
        paddle.jit.save(sf, str(tmp_path / "m"), input_spec=[paddle.static.InputSpec([2])])


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)

    def forward(self, x):
        h = self.fc(x)
        scale = float(np.abs(h.numpy()).max()) + 1.0   # NumPy on the value: a break
        return self.fc(h / scale)


def test_layer_method_with_a_break_trains():
    net = Net()
    sf_net = paddle.jit.to_static(Net(), full_graph=False)
    sf_net.set_state_dict(net.state_dict())
    x = T([[1.0, -2.0]])
    assert_same(net(x), sf_net(x))
    sf_net(x).sum().backward()
    net(x).sum().backward()
    np.testing.assert_allclose(sf_net.fc.weight.grad.numpy(), net.fc.weight.grad.numpy(), rtol=1e-5)
