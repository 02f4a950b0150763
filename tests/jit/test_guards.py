"""Guards: a cached program runs only while the Python values its trace read (globals, closure cells,
attributes of `self` and of arguments) are what they were; otherwise the function is traced again, with the
reason logged and listed in `retrace_reasons`."""
import numpy as np
import pytest

import oar as paddle
from oar import nn

g = 1
SCALE = 2.0
TABLE = [1.0, 2.0]


def T(*v):
    return paddle.to_tensor(np.array(v, "float32"))


def bump():
    global g
    g = g + 1
    return g


def test_global_read_and_written_follows_python():
    global g
    g = 1
    sf = paddle.jit.to_static(bump)
    assert [sf(), sf(), sf()] == [2, 3, 4]
    assert g == 4
    assert sf.retrace_reasons == ["global 'g' changed from 1 to 2", "global 'g' changed from 2 to 3"]


def scaled(x):
    return x * SCALE


def test_global_read_changed_between_calls_retraces():
    global SCALE
    SCALE = 2.0
    sf = paddle.jit.to_static(scaled)
    assert sf(T(1.0)).numpy().tolist() == [2.0]
    assert sf(T(1.0)).numpy().tolist() == [2.0]
    assert sf.retrace_reasons == []
    SCALE = 5.0
    assert sf(T(1.0)).numpy().tolist() == [5.0]
    assert sf.retrace_reasons == ["global 'SCALE' changed from 2.0 to 5.0"]
    assert len(sf.program_cache) == 1   # the stale program was replaced, not kept beside


def from_table(x):
    return x * TABLE[1]


def test_global_list_contents_are_guarded():
    TABLE[:] = [1.0, 2.0]
    sf = paddle.jit.to_static(from_table)
    assert sf(T(1.0)).numpy().tolist() == [2.0]
    TABLE[1] = 3.0
    assert sf(T(1.0)).numpy().tolist() == [3.0]
    assert "global 'TABLE' changed" in sf.retrace_reasons[0]


def test_closure_cell_changed_retraces():
    k = 2

    def f(x):
        return x * k
    sf = paddle.jit.to_static(f)
    assert sf(T(1.0)).numpy().tolist() == [2.0]
    k = 7
    assert sf(T(1.0)).numpy().tolist() == [7.0]
    assert sf.retrace_reasons == ["closure variable 'k' changed from 2 to 7"]


def test_global_function_replaced_is_called():
    ns = {}
    exec("def helper(x):\n    return x + 1\n", ns)
    src = "def f(x):\n    return helper(x)\n"
    import linecache
    linecache.cache["<guards-test>"] = (len(src), None, src.splitlines(True), "<guards-test>")
    exec(compile(src, "<guards-test>", "exec"), ns)
    sf = paddle.jit.to_static(ns["f"])
    assert sf(T(1.0)).numpy().tolist() == [2.0]
    exec("def helper(x):\n    return x * 10\n", ns)
    assert sf(T(1.0)).numpy().tolist() == [10.0]
    assert sf.retrace_reasons == ["global 'helper' changed from another function object to another function "
                                  "object"]


class Scaled(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.factor = 1.0
        self.use_relu = False

    def forward(self, x):
        y = self.fc(x) * self.factor
        if self.use_relu:
            y = paddle.nn.functional.relu(y)
        return y


def test_attributes_of_self_are_guarded():
    net = Scaled()
    sf = paddle.jit.to_static(net)
    x = T(1.0, -2.0)
    np.testing.assert_allclose(sf(x).numpy(), net.fc(x).numpy(), rtol=1e-6)
    net.factor = 3.0
    np.testing.assert_allclose(sf(x).numpy(), net.fc(x).numpy() * 3, rtol=1e-6)
    net.use_relu = True
    np.testing.assert_allclose(sf(x).numpy(), np.maximum(net.fc(x).numpy() * 3, 0), rtol=1e-6)
    assert net.forward.retrace_reasons == ["self.factor changed from 1.0 to 3.0",
                                           "self.use_relu changed from False to True"]


def test_replaced_sublayer_and_parameter_are_used():
    net = Scaled()
    sf = paddle.jit.to_static(net)
    x = T(1.0, -2.0)
    sf(x)
    net.fc = nn.Linear(2, 2)
    np.testing.assert_allclose(sf(x).numpy(), net.fc(x).numpy(), rtol=1e-6)
    net.fc.weight = paddle.create_parameter([2, 2], "float32")
    np.testing.assert_allclose(sf(x).numpy(), net.fc(x).numpy(), rtol=1e-6)
    assert net.forward.retrace_reasons == ["a Layer's parameter, sublayer or buffer was replaced or removed"] * 2


class Config:
    def __init__(self, n):
        self.n = n


def repeat(x, cfg):
    for _ in range(cfg.n):
        x = x * 2
    return x


def test_attributes_of_arguments_are_guarded():
    sf = paddle.jit.to_static(repeat)
    cfg = Config(1)
    assert sf(T(1.0), cfg).numpy().tolist() == [2.0]
    cfg.n = 3
    assert sf(T(1.0), cfg).numpy().tolist() == [8.0]
    assert sf.retrace_reasons == ["cfg.n changed from 1 to 3"]


def test_no_retrace_while_nothing_changes_and_the_reason_is_logged(capsys):
    global SCALE
    SCALE = 2.0
    sf = paddle.jit.to_static(scaled)
    for _ in range(3):
        sf(T(1.0))
    assert sf.retrace_reasons == [] and len(sf.program_cache) == 1
    SCALE = 4.0
    paddle.jit.set_verbosity(1)
    try:
        sf(T(1.0))
    finally:
        paddle.jit.set_verbosity(0)
    assert "tracing 'scaled' again: global 'SCALE' changed from 2.0 to 4.0" in capsys.readouterr().out


@pytest.mark.parametrize("value, other", [(1, 1.0), (True, 1), ("a", "b"), ((1, 2), (1, 3))])
def test_immutables_are_compared_by_value_and_type(value, other):
    from oar.jit.guards import signature
    assert signature(value) == signature(value) and signature(value) != signature(other)


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.gain = 1.0

    def forward(self, x):
        return x * self.gain


class Outer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.shift = 0.0

    def helper(self, x):
        return x + self.shift

    def forward(self, x):
        return self.helper(self.block(x))


def test_attributes_read_by_sublayers_and_methods_are_guarded():
    net = Outer()
    sf = paddle.jit.to_static(net)
    assert sf(T(1.0)).numpy().tolist() == [1.0]
    net.block.gain = 3.0
    assert sf(T(1.0)).numpy().tolist() == [3.0]
    net.shift = 10.0
    assert sf(T(1.0)).numpy().tolist() == [13.0]
    assert [r.split(" changed")[0] for r in net.forward.retrace_reasons] == ["self.gain", "self.shift"]


def test_a_method_of_a_container_attribute_does_not_retrace():
    """`self.seen.append` is a new bound object at every read: it is guarded by its receiver and name, not its
    identity (which retraced every call), and the append is still replayed on every call."""
    class Appender(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.seen = []

        def forward(self, x):
            y = self.fc(x)
            self.seen.append(1)
            return y

    layer = paddle.jit.to_static(Appender())
    for _ in range(5):
        layer(paddle.ones([3, 4]))
    assert layer.seen == [1] * 5
    assert layer.forward.retrace_reasons == []
