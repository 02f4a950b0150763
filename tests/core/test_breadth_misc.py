"""Top-level odds and ends of the Paddle 2.x breadth: summary/flops against Paddle's documented LeNet numbers,
finfo/iinfo, flags, Tensor placement methods, in-place forms and their version checks."""
import numpy as np
import pytest

import oar


def test_summary_and_flops_of_lenet_match_paddle_docs(capsys):
    net = oar.vision.models.LeNet()
    assert oar.summary(net, (1, 1, 28, 28)) == {"total_params": 61610, "trainable_params": 61610}
    text = capsys.readouterr().out
    assert "Conv2D-1" in text and "Linear-3" in text and "Total params: 61,610" in text
    assert oar.flops(net, [1, 1, 28, 28]) == 347560  # Paddle's paddle.flops docstring for LeNet
    assert oar.flops(oar.nn.Sequential(oar.nn.Conv2D(3, 4, 3, bias_attr=False), oar.nn.BatchNorm2D(4)),
                     [2, 3, 6, 6]) == 2 * 4 * 4 * 4 * 27 + 2 * (2 * 4 * 4 * 4)
    with pytest.raises(ValueError, match="input_size"):
        oar.summary(net)


def test_finfo_iinfo():
    for name in ("float16", "float32", "float64"):
        f, ref = oar.finfo(name), np.finfo(name)
        assert (f.eps, f.max, f.min, f.tiny, f.bits) == (float(ref.eps), float(ref.max), float(ref.min),
                                                         float(ref.smallest_normal), ref.bits)
    assert oar.finfo(oar.complex64).dtype == "float32"
    assert (oar.iinfo("int8").min, oar.iinfo("int8").max, oar.iinfo(oar.int16).bits) == (-128, 127, 16)
    with pytest.raises(TypeError, match="iinfo"):
        oar.finfo("int32")


def test_flags():
    assert oar.get_flags("FLAGS_cudnn_deterministic") == {"FLAGS_cudnn_deterministic": False}
    with pytest.raises(ValueError, match="unknown or unsupported flag 'FLAGS_my_custom'"):
        oar.set_flags({"FLAGS_my_custom": 3})
    with pytest.raises(ValueError, match="unknown flags"):
        oar.get_flags("FLAGS_nope")
    with pytest.raises(ValueError, match="FLAGS_"):
        oar.set_flags({"check_nan_inf": True})


def test_tensor_placement_and_memory_methods():
    x = oar.to_tensor(np.arange(6.0).reshape(2, 3))
    assert x.cpu() is x and x.to("cpu") is x and x.to("float32").dtype == oar.float32
    assert x.to(oar.CPUPlace(), "float32").dtype == oar.float32
    assert x.to(oar.ones([1], "int32")).dtype == oar.int32
    with pytest.raises(RuntimeError, match="no GPU backend"):
        x.cuda()
    with pytest.raises(RuntimeError, match="no GPU backend"):
        x.to("gpu:0")
    assert x.strides == [3, 1] and x.element_size() == 8 and x.is_contiguous()
    t = x.T
    assert t.contiguous().is_contiguous()
    assert [r.numpy().tolist() for r in x] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.data is x
    x.data = np.ones((2, 3))
    assert x.numpy().sum() == 6.0
    with pytest.raises(TypeError, match="0-D"):
        iter(oar.to_tensor(1.0)).__next__()


def test_inplace_forms_share_the_tensor_and_check_versions():
    x = oar.to_tensor([0.5, 0.25])
    assert oar.lgamma_(x) is x
    y = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    z = y * 2.0
    w = z * z
    z.tanh_()  # z was used by w's gradient: backward must refuse
    with pytest.raises(RuntimeError, match="version"):
        w.sum().backward()
    leaf = oar.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="in place"):
        leaf.exp_()


def test_static_inplace_rebinds_the_variable():
    def f(x):
        y = x * 1.0
        oar.tril_(y)
        y.add_(oar.ones_like(y))
        return y.digamma_()

    spec = [oar.static.InputSpec([3, 3], "float64")]
    a = np.random.default_rng(0).uniform(0.5, 2.0, (3, 3))
    got = oar.jit.to_static(f, input_spec=spec)(oar.to_tensor(a)).numpy()
    np.testing.assert_allclose(got, f(oar.to_tensor(a)).numpy())
    from scipy.special import digamma
    np.testing.assert_allclose(got, digamma(np.tril(a) + 1), rtol=1e-12)


def test_cast_inplace_changes_dtype_and_keeps_the_gradient_path():
    x = oar.to_tensor([1.5, 2.0], "float32", stop_gradient=False)
    y = x * 2.0
    assert y.cast_("float64") is y and y.dtype == oar.float64
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * np.array([1.5, 2.0]), rtol=1e-6)
    assert x.grad.dtype == oar.float32


def placement_in_program(x):
    return x.cpu().to("float64").contiguous() * 2.0


def test_placement_methods_inside_to_static():
    static = oar.jit.to_static(placement_in_program, input_spec=[oar.static.InputSpec([2], "float32")])
    out = static(oar.to_tensor([1.0, 2.0]))
    assert out.dtype == oar.float64 and out.numpy().tolist() == [2.0, 4.0]


def test_get_device_of_a_tensor_and_the_cuda_rng_state_without_gpus():
    assert oar.get_device(oar.to_tensor([1.0], place=oar.CPUPlace())) == -1
    assert oar.get_device() == "cpu"
    with pytest.raises(TypeError, match="get_device takes a Tensor"):
        oar.get_device("cpu")
    states = oar.get_cuda_rng_state()
    assert states == [oar.get_rng_state() for _ in range(oar.device.cuda.device_count())]
    oar.set_cuda_rng_state(states)
    with pytest.raises(ValueError, match="got 1 states for"):
        oar.set_cuda_rng_state(states + [oar.get_rng_state()])
    assert oar.is_compiled_with_ipu() is False and oar.is_compiled_with_xpu() is False
    oar.disable_signal_handler()
