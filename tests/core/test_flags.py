"""set_flags: the flags oar honours act; every other flag or value raises (issue 25: FLAGS_check_nan_inf was
stored and nothing read it)."""
import numpy as np
import pytest

import oar


@pytest.fixture
def check_nan_inf():
    oar.set_flags({"FLAGS_check_nan_inf": True})
    yield
    oar.set_flags({"FLAGS_check_nan_inf": False})


def test_check_nan_inf_in_eager_names_the_op(check_nan_inf):
    x = oar.to_tensor([1.0, 4.0])
    assert oar.sqrt(x).numpy().tolist() == [1.0, 2.0]  # finite outputs pass
    with np.errstate(all="ignore"), pytest.raises(RuntimeError, match=r"op 'log' output 0 \(shape \[2\]\) has 1 NaN"):
        oar.log(x - 2.0)


def test_check_nan_inf_in_backward(check_nan_inf):
    x = oar.to_tensor([0.0], stop_gradient=False)
    y = oar.sqrt(x)  # sqrt(0) = 0 is finite; its gradient 1 / (2 sqrt(0)) is not
    with np.errstate(all="ignore"), pytest.raises(RuntimeError, match="FLAGS_check_nan_inf: op"):
        y.backward()


def test_check_nan_inf_in_the_executor_names_the_user_line():
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            x = oar.static.data("x", [None, 2])
            y = oar.sqrt(x) * 2.0  # the line the error must name
        exe = oar.static.Executor()
        feed = {"x": -np.ones([1, 2], "float32")}
        with np.errstate(all="ignore"):
            assert np.isnan(exe.run(main, feed=feed, fetch_list=[y])[0]).all()  # flag off: plan runs unchecked
            oar.set_flags({"FLAGS_check_nan_inf": True})
            try:
                with pytest.raises(RuntimeError, match=r"(?s)op 'sqrt'.*y = oar.sqrt\(x\) \* 2.0"):
                    exe.run(main, feed=feed, fetch_list=[y])
            finally:
                oar.set_flags({"FLAGS_check_nan_inf": False})
            assert np.isnan(exe.run(main, feed=feed, fetch_list=[y])[0]).all()
    finally:
        oar.disable_static()


def test_check_nan_inf_in_a_converted_function(check_nan_inf):
    @oar.jit.to_static
    def f(x):
        return oar.log(x) + 1.0
    with np.errstate(all="ignore"), pytest.raises(RuntimeError, match="op 'log'"):
        f(oar.to_tensor([-1.0]))


def test_flags_oar_cannot_honour_are_refused():
    with pytest.raises(ValueError, match="unknown or unsupported flag 'FLAGS_fraction_of_gpu_memory_to_use'"):
        oar.set_flags({"FLAGS_fraction_of_gpu_memory_to_use": 0.5})
    with pytest.raises(ValueError, match="FLAGS_use_mkldnn=True is not supported: oar has no oneDNN"):
        oar.set_flags({"FLAGS_use_mkldnn": True})
    with pytest.raises(ValueError, match="FLAGS_check_nan_inf takes a bool"):
        oar.set_flags({"FLAGS_check_nan_inf": "yes"})
    with pytest.raises(ValueError, match="unknown or unsupported"):  # nothing of a refused dict is set
        oar.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_nope": 1})
    assert oar.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    oar.set_flags({"FLAGS_use_mkldnn": False, "FLAGS_cudnn_deterministic": True})
    assert oar.get_flags("FLAGS_cudnn_deterministic") == {"FLAGS_cudnn_deterministic": True}
    oar.set_flags({"FLAGS_cudnn_deterministic": False})


def test_num_threads_sets_the_math_library_threads():
    threads = pytest.importorskip("threadpoolctl")  # a third-party optional extra, not oar's own module
    from oar.kernels.threads import blas_threads
    before = blas_threads()
    try:
        oar.set_flags({"FLAGS_paddle_num_threads": 1})
        assert blas_threads() == 1
    finally:
        oar.set_flags({"FLAGS_paddle_num_threads": before or 1})
    assert threads is not None


def test_stride_kernel_flag_states_that_view_ops_share_memory():
    # Paddle's default (True): a view shares its input's memory, which oar's view ops always do
    assert oar.get_flags("FLAGS_use_stride_kernel") == {"FLAGS_use_stride_kernel": True}
    oar.set_flags({"FLAGS_use_stride_kernel": True})
    x = oar.zeros([2, 3])
    y = oar.view(x, [6])
    x[0, 0] = 5.0
    assert y.numpy()[0] == 5.0
    with pytest.raises(ValueError, match="FLAGS_use_stride_kernel=False is not supported: oar's view ops"):
        oar.set_flags({"FLAGS_use_stride_kernel": False})
