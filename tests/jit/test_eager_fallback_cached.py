"""A function that cannot be converted: with full_graph=False it runs eagerly (the reason logged) and the
conversion is not retried on every call; with full_graph=True (the default) it never runs eagerly in silence:
the call raises, naming the function's file and line."""
import numpy as np
import pytest

import oar
from oar.jit import static_function
from oar.jit.convert import ConversionError


def _no_source():
    ns = {}
    exec("def f(x):\n    return x * 2\n", {"oar": oar}, ns)  # no source file: cannot be converted
    return ns["f"]


def test_unconvertible_function_is_tried_once(monkeypatch):
    f = _no_source()
    calls = []
    real = static_function.convert_function

    def counting(fn):
        calls.append(fn)
        return real(fn)
    monkeypatch.setattr(static_function, "convert_function", counting)
    sf = oar.jit.to_static(f, full_graph=False)
    x = oar.to_tensor(np.array([1.0, 2.0], "float32"))
    for _ in range(3):
        np.testing.assert_allclose(sf(x).numpy(), [2.0, 4.0])
    assert len(calls) == 1


def test_full_graph_never_falls_back_to_eager():
    sf = oar.jit.to_static(_no_source())
    with pytest.raises(ConversionError, match=r"full_graph=True.*'f' \(<string>:1\).*no source code"):
        sf(oar.to_tensor(np.array([1.0], "float32")))
