"""A function that cannot be converted runs eagerly, and the conversion is not retried on every call."""
import numpy as np

import oar
from oar.jit import static_function


def test_unconvertible_function_is_tried_once(monkeypatch):
    ns = {}
    exec("def f(x):\n    return x * 2\n", {"oar": oar}, ns)  # no source file: cannot be converted
    calls = []
    real = static_function.convert_function

    def counting(fn):
        calls.append(fn)
        return real(fn)
    monkeypatch.setattr(static_function, "convert_function", counting)
    sf = oar.jit.to_static(ns["f"])
    x = oar.to_tensor(np.array([1.0, 2.0], "float32"))
    for _ in range(3):
        np.testing.assert_allclose(sf(x).numpy(), [2.0, 4.0])
    assert len(calls) == 1
