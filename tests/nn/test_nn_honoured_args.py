"""Arguments of nn functions and layers that were accepted and ignored (issue 25): each now acts, or raises."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F


def test_avg_pool3d_divisor_override_divides_each_window_sum():
    x = oar.to_tensor(np.arange(27, dtype="float32").reshape(1, 1, 3, 3, 3))
    out = F.avg_pool3d(x, 2, stride=1, divisor_override=3)
    a = x.numpy()[0, 0]
    sums = np.array([[[a[i:i + 2, j:j + 2, k:k + 2].sum() for k in range(2)] for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(out.numpy()[0, 0], sums / 3, rtol=1e-6)
    layer = oar.nn.AvgPool3D(2, stride=1, divisor_override=3)
    np.testing.assert_allclose(layer(x).numpy(), out.numpy())


def test_avg_pool_divisor_override_with_padding_is_the_sum_over_the_divisor():
    x = oar.to_tensor(np.arange(9, dtype="float32").reshape(1, 1, 3, 3))
    out = F.avg_pool2d(x, 2, stride=1, padding=1, divisor_override=3)  # the corner window holds x[0, 0] only
    padded = np.pad(x.numpy()[0, 0], 1)
    sums = np.array([[padded[i:i + 2, j:j + 2].sum() for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(out.numpy()[0, 0], sums / 3, rtol=1e-6)
    with pytest.raises(ValueError, match="divisor_override must be a positive int"):
        F.avg_pool3d(oar.ones([1, 1, 2, 2, 2]), 2, divisor_override=-2)


def test_instance_norm_refuses_running_statistics():
    x = oar.randn([2, 3, 4])
    with pytest.raises(ValueError, match="running_mean, running_var not supported: instance norm"):
        F.instance_norm(x, running_mean=oar.zeros([3]), running_var=oar.ones([3]))
    with pytest.raises(ValueError, match="use_input_stats=False not supported"):
        F.instance_norm(x, use_input_stats=False)
    with pytest.raises(ValueError, match="momentum=0.5 not supported"):
        F.instance_norm(x, momentum=0.5)
    with pytest.raises(ValueError, match="InstanceNorm1D: momentum=0.1 not supported"):
        oar.nn.InstanceNorm1D(3, momentum=0.1)
    assert F.instance_norm(x).shape == [2, 3, 4]


def test_rnn_cell_initial_states_follow_shape_dtype_and_value():
    cell = oar.nn.LSTMCell(4, 8)
    h, c = cell.get_initial_states(oar.ones([2, 4]))
    assert (h.shape, c.shape, h.dtype) == ([2, 8], [2, 8], oar.float32)
    s = cell.get_initial_states(oar.ones([5, 3, 4]), shape=[[6], [7]], dtype=["float64", "float32"],
                                init_value=1.5, batch_dim_idx=1)
    assert [t.shape for t in s] == [[3, 6], [3, 7]] and [t.dtype for t in s] == [oar.float64, oar.float32]
    assert float(s[0].min()) == float(s[1].max()) == 1.5
    h = oar.nn.GRUCell(4, 8).get_initial_states(oar.ones([3, 4]), shape=[-1, 5], init_value=-2.0)
    assert h.shape == [3, 5] and float(h.sum()) == -30.0


def test_rnn_cell_initial_states_with_a_batch_known_at_run_time():
    cell = oar.nn.GRUCell(4, 8)
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            x = oar.static.data("x", [None, 4])
            h = cell.get_initial_states(x, init_value=3.0)
        out, = oar.static.Executor().run(main, feed={"x": np.ones([2, 4], "float32")}, fetch_list=[h])
    finally:
        oar.disable_static()
    assert out.shape == (2, 8) and (out == 3.0).all()


def test_rnn_runs_in_the_inputs_dtype():
    rnn = oar.nn.RNN(oar.nn.SimpleRNNCell(3, 4))
    rnn.to(dtype="float64")
    y, h = rnn(oar.ones([2, 5, 3], "float64"))
    assert y.dtype == h.dtype == oar.float64


def test_legacy_batch_norm_is_test_uses_running_statistics():
    bn = oar.nn.BatchNorm(3, is_test=True)
    assert not bn.training
    y = bn(oar.ones([2, 3, 2, 2]) * 5.0)  # running mean 0, variance 1: y = 5 / sqrt(1 + eps)
    np.testing.assert_allclose(y.numpy(), 5.0 / np.sqrt(1 + 1e-5), rtol=1e-6)
    assert bn._mean.numpy().tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="trainable_statistics=True not supported"):
        oar.nn.BatchNorm(3, trainable_statistics=True)
    with pytest.raises(ValueError, match="dtype='float64' not supported"):
        oar.nn.BatchNorm(3, dtype="float64")


def test_legacy_batch_norm_names_its_running_statistics():
    # PaddleClas's ConvBNLayer passes moving_mean_name / moving_variance_name (Paddle 3.3.1: the names of the
    # statistics; the state-dict keys are unchanged)
    bn = oar.nn.BatchNorm(3, moving_mean_name="bn_mean", moving_variance_name="bn_variance")
    assert (bn._mean.name, bn._variance.name) == ("bn_mean", "bn_variance")
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]


def test_convert_sync_batchnorm_keeps_the_parameters():
    net = oar.nn.Sequential(oar.nn.Conv2D(2, 3, 1), oar.nn.BatchNorm2D(3))
    x = oar.randn([2, 2, 3, 3])
    expected = net(x).numpy()
    mean = net[1]._mean.numpy().copy()
    net[1]._mean.set_value(np.zeros(3, "float32"))
    converted = oar.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(converted[1], oar.nn.SyncBatchNorm) and converted[1].weight is net[1].weight
    np.testing.assert_allclose(converted(x).numpy(), expected, rtol=1e-5)  # one rank: BatchNorm's numbers
    np.testing.assert_allclose(converted[1]._mean.numpy(), mean, rtol=1e-5)
