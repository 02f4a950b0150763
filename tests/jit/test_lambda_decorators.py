"""to_static on a lambda (its source found on its line) and on functions with user decorators (kept)."""
import functools

import numpy as np
import pytest

import oar
from oar.jit.convert import ConversionError


def T(*v):
    return oar.to_tensor(np.array(v, "float32"))


K = 3


def test_lambda_is_converted():
    g = oar.jit.to_static(lambda x: x * 2 if x.sum() > 0 else x - K)
    np.testing.assert_allclose(g(T(1.0)).numpy(), [2.0])
    np.testing.assert_allclose(g(T(-1.0)).numpy(), [-4.0])
    assert g.code.startswith("def __oar_lambda(x):") and "_jst.convert_ifexp(" in g.code
    assert "cond(" in str(g.concrete_program.main_program)


def test_several_lambdas_on_one_line_and_defaults():
    a, b = oar.jit.to_static(lambda x: x + 1), oar.jit.to_static(lambda x: x * 10)
    np.testing.assert_allclose(a(T(1.0)).numpy(), [2.0])
    np.testing.assert_allclose(b(T(1.0)).numpy(), [10.0])
    m = oar.jit.to_static(lambda x, n=2: x * n if x.sum() > 0 else x)
    np.testing.assert_allclose(m(T(1.0)).numpy(), [2.0])
    np.testing.assert_allclose(m(T(1.0), 5).numpy(), [5.0])


def test_lambda_without_source_runs_eagerly_with_a_logged_reason(capsys):
    f = eval("lambda x: x + 1")
    np.testing.assert_allclose(oar.jit.to_static(f, full_graph=False)(T(1.0)).numpy(), [2.0])
    assert "runs eagerly" in capsys.readouterr().out
    with pytest.raises(ConversionError, match="full_graph=True"):  # never a silent eager run
        oar.jit.to_static(f)(T(1.0))


def scaled(k):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) * k
        return wrapper
    return deco


@oar.jit.to_static
@scaled(3)
def decorated(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def test_user_decorator_is_kept_and_inner_function_converted():
    np.testing.assert_allclose(decorated(T(1.0, 2.0)).numpy(), [6.0, 9.0])
    np.testing.assert_allclose(decorated(T(-1.0, -2.0)).numpy(), [-6.0, -9.0])
    text = str(decorated.concrete_program.main_program)
    assert "cond(" in text and "scale(" in text or "multiply(" in text
    assert decorated.__name__ == "decorated"
    assert "def wrapper(*args, **kwargs):" in decorated.code


class Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(2, 2)

    @oar.jit.to_static
    @scaled(2)
    def forward(self, x):
        return self.fc(x) if x.mean() > 0 else -self.fc(x)


def test_decorated_layer_method_trains():
    oar.seed(0)
    net = Net()
    x = T(1.0, 2.0).reshape([1, 2])
    want = net.fc(x).numpy() * 2
    out = net(x)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(net.fc.bias.grad.numpy(), [2.0, 2.0])
