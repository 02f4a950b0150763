"""Ops whose result depends on a dim size, in a static program where that dim is unknown (-1) until it runs."""
import numpy as np
import pytest

import oar


def _run(fn, a, shape):
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            out = fn(oar.static.data("x", shape, "float32"))
    finally:
        oar.disable_static()
    return oar.static.Executor().run(main, feed={"x": a}, fetch_list=[out])[0]


@pytest.mark.parametrize("axis,unbiased,keepdim", [(0, True, False), (None, True, False), ([0, 1], False, True),
                                                   (1, True, False)])
def test_var_and_std_count_an_unknown_dim_at_run_time(axis, unbiased, keepdim):
    a = (np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5)
    ddof = 1 if unbiased else 0
    ax = tuple(axis) if isinstance(axis, list) else axis
    got = _run(lambda x: oar.var(x, axis=axis, unbiased=unbiased, keepdim=keepdim), a, [-1, 4])
    np.testing.assert_allclose(got, np.var(a, axis=ax, ddof=ddof, keepdims=keepdim), rtol=1e-5)
    got = _run(lambda x: oar.std(x, axis=axis, unbiased=unbiased, keepdim=keepdim), a, [-1, 4])
    np.testing.assert_allclose(got, np.std(a, axis=ax, ddof=ddof, keepdims=keepdim), rtol=1e-5)
