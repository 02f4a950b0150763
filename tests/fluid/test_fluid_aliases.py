"""oar.fluid: the 1.x names Paddle 2.x kept as aliases run the seeds' import lines and small examples; the rest
raise an AttributeError naming the 2.x replacement."""
import numpy as np
import pytest

import oar as paddle
import oar.fluid as fluid


def test_seed002_dygraph_if_else():
    inp1 = np.random.rand(4, 3, 3).astype("float32")
    inp2 = np.random.rand(4, 3, 3).astype("float32")
    with fluid.dygraph.guard():
        a, b = fluid.dygraph.to_variable(inp1), fluid.dygraph.to_variable(inp2)
        if np.sum(inp1) < np.sum(inp2):
            x = fluid.layers.elementwise_add(a, b)
        else:
            x = fluid.layers.elementwise_sub(a, b)
        dygraph_result = x.numpy()
    expected = inp1 + inp2 if inp1.sum() < inp2.sum() else inp1 - inp2
    np.testing.assert_allclose(dygraph_result, expected, rtol=1e-6)


def test_seed002_sums_backward_gradient():
    x = np.ones([10, 2, 2], np.float32)
    with fluid.dygraph.guard():
        inputs = []
        for i in range(x.shape[0]):
            v = fluid.dygraph.to_variable(x[i])
            v.stop_gradient = False
            inputs.append(v)
        ret = fluid.layers.sums(inputs)
        np.testing.assert_allclose(ret.numpy(), np.full([2, 2], 10.0))
        loss = fluid.layers.reduce_sum(ret)
        loss.backward()
        np.testing.assert_allclose(inputs[0].gradient(), np.ones([2, 2]))


def test_guard_switches_back_to_static():
    paddle.enable_static()
    try:
        with fluid.dygraph.guard():
            assert paddle.in_dynamic_mode()
            assert float(fluid.layers.mean(paddle.to_tensor([1.0, 3.0]))) == 2.0
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()


def test_seed000_fluid_layer_with_to_static(tmp_path):
    from oar.fluid.dygraph import Layer
    from oar.jit import to_static
    from oar.static import InputSpec

    assert Layer is paddle.nn.Layer

    class SimpleNet(Layer):
        def __init__(self):
            super(SimpleNet, self).__init__()
            self.linear = paddle.nn.Linear(10, 3)

        @to_static(input_spec=[InputSpec(shape=[None, 10], name='x'), InputSpec(shape=[3], name='y')])
        def forward(self, x, y):
            return self.linear(x) + y

    net = SimpleNet()
    x, y = paddle.randn([2, 10]), paddle.randn([3])
    ref = net(x, y).numpy()
    paddle.jit.save(net, str(tmp_path / "simple_net"))
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "simple_net"))(x, y).numpy(), ref, rtol=1e-5)


def test_static_aliases_are_the_2x_objects():
    assert fluid.Executor is paddle.static.Executor and fluid.CPUPlace is paddle.CPUPlace
    assert fluid.default_main_program is paddle.static.default_main_program
    assert fluid.core.is_compiled_with_cuda() is False


def test_elementwise_act_and_axis():
    out = fluid.layers.elementwise_add(paddle.to_tensor([-1.0, 1.0]), paddle.zeros([2]), act="relu")
    np.testing.assert_allclose(out.numpy(), [0.0, 1.0])
    with pytest.raises(ValueError, match="axis"):
        fluid.layers.elementwise_add(paddle.ones([2, 3]), paddle.ones([2]), axis=0)
    with pytest.raises(ValueError, match="unknown act"):
        fluid.layers.elementwise_mul(paddle.ones([2]), paddle.ones([2]), act="nope")


@pytest.mark.parametrize("path, hint", [("fluid.layers.IfElse", "paddle.static.nn.cond"),
                                        ("fluid.dygraph.FC", "paddle.nn.Linear"),
                                        ("fluid.optimizer", "paddle.optimizer.Adam"),
                                        ("fluid.layers.cross_entropy", "paddle.nn.functional.cross_entropy"),
                                        ("fluid.core.VarDesc", "Paddle 1.x API")])
def test_missing_1x_names_point_to_2x(path, hint):
    with pytest.raises(AttributeError, match="1.x API") as e:
        eval(path)
    assert hint in str(e.value)


def test_paddle_data_moved_to_static():
    with pytest.raises(AttributeError, match="paddle.static.data"):
        _ = paddle.data
    assert not hasattr(paddle, "data")
