"""Building a static program runs the argument checks eager ops run (`OpDef.check`), on Variables' metas: an
integer `relu` input and an out-of-range `topk` k raise while building, naming the user's line; a size the program
does not know yet (-1) is left to the run."""
import numpy as np
import pytest

import oar


@pytest.fixture
def static():
    oar.enable_static()
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        yield main
    oar.disable_static()


def test_int_relu_is_refused_while_building(static):
    x = oar.static.data("x", [2, 3], "int32")
    with pytest.raises(TypeError, match="relu of a int32 tensor") as e:
        oar.nn.functional.relu(x)
    assert "test_static_arg_checks.py" in str(e.value)


def test_topk_k_checked_where_the_size_is_known(static):
    y = oar.static.data("y", [-1, 3], "float32")
    with pytest.raises(ValueError, match="k=4 is out of range for axis 1 of size 3"):
        oar.topk(y, 4, axis=1)
    out = oar.topk(y, 2, axis=0)[0]  # axis 0 is unknown here: not refused while building
    got = oar.static.Executor().run(static, feed={"y": np.arange(9, dtype=np.float32).reshape(3, 3)},
                                    fetch_list=[out])[0]
    np.testing.assert_array_equal(got, [[6, 7, 8], [3, 4, 5]])
