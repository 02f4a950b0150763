"""`range(start, stop, step)` with tensor bounds and a tensor step (negative too) -> one while op."""
import numpy as np
import pytest

import oar


def total(x, a, b, st):
    s = x * 0
    for i in range(a, b, st):
        s = s + i * x
    return s


CASES = [(0, 10, 3), (10, 0, -3), (5, 5, 1), (0, 5, -1), (-3, 7, 2), (7, -3, -2), (3, 2, -5), (1, 2, 7)]


@pytest.mark.parametrize("a,b,st", CASES)
def test_tensor_step_matches_python(a, b, st):
    sf = oar.jit.to_static(total)
    x = oar.to_tensor(np.ones([2], "float32"))
    T = lambda v: oar.to_tensor(np.array(v, "int64"))  # noqa: E731
    want = sum(range(a, b, st)) * np.ones(2)
    np.testing.assert_allclose(sf(x, T(a), T(b), T(st)).numpy(), want)
    np.testing.assert_allclose(sf(x, a, b, T(st)).numpy(), want)      # Python bounds, tensor step
    np.testing.assert_allclose(sf(x, T(a), b, st).numpy(), want)      # tensor start, Python step
    assert "while(" in str(sf.concrete_program.main_program)


def test_zero_tensor_step_raises_at_run_time():
    sf = oar.jit.to_static(total)
    x = oar.to_tensor(np.ones([2], "float32"))
    with pytest.raises(ValueError, match="must not be zero"):
        sf(x, oar.to_tensor(0), oar.to_tensor(3), oar.to_tensor(0))
