"""Paddle Inference Config parity: ir_optim() as a method, mkldnn switches, ir debug, delete_pass, summary() with
the passes applied and op counts; zero-copy handles; enable_memory_optim gives the same results."""
import numpy as np
import pytest

from oar import inference

from test_predictor import conv_bn_model

rng = np.random.default_rng(3)


def test_ir_optim_is_a_method_and_mkldnn_switches(tmp_path):
    prefix, _ = conv_bn_model(tmp_path)
    config = inference.Config(prefix)
    assert config.ir_optim() is True and config.ir_optim_enabled() is True
    config.switch_ir_optim(False)
    assert config.ir_optim() is False and config.pass_names() == []
    assert config.mkldnn_enabled() is False
    with pytest.warns(UserWarning, match="no oneDNN"):
        config.enable_mkldnn()
    assert config.mkldnn_enabled() is False
    with pytest.raises(ValueError, match="unknown pass 'no_such_pass'"):
        config.delete_pass("no_such_pass")


def test_summary_lists_passes_and_op_counts(tmp_path):
    prefix, _ = conv_bn_model(tmp_path)
    config = inference.Config(prefix)
    config.delete_pass("fuse_linear")
    inference.create_predictor(config)
    s = config.summary()
    assert "fuse_linear" not in s.split("passes:")[1].splitlines()[0]
    assert "fold_batch_norm: folded 1 batch_norm ops" in s
    assert "fuse_conv_bias_act: fused 1 convolution chains" in s
    assert "ops: " in s and "batch_norm                       1 ->     0" in s


def test_ir_debug_prints_each_pass(tmp_path, capsys):
    prefix, _ = conv_bn_model(tmp_path)
    config = inference.Config(prefix)
    config.switch_ir_debug()
    inference.create_predictor(config)
    out = capsys.readouterr().out
    assert "--- after fold_batch_norm ---" in out and "fused_conv2d(" in out


@pytest.mark.parametrize("memory_optim", [False, True])
def test_optimized_predictor_matches_unoptimized(tmp_path, memory_optim):
    prefix, ref = conv_bn_model(tmp_path)
    config = inference.Config(prefix)
    if memory_optim:
        config.enable_memory_optim()
    assert config.memory_optim_enabled() is memory_optim
    pred = inference.create_predictor(config)
    ops = [op.type for op in pred.program.global_block().ops]
    assert "fused_conv2d" in ops and ("memory_optimize" in config.summary()) is memory_optim
    outs = []
    for batch in (1, 3, 1):
        x = rng.standard_normal([batch, 3, 4, 4]).astype("float32")
        got = pred.run([x])[0]
        np.testing.assert_allclose(got, ref(x), rtol=1e-4, atol=1e-6)
        outs.append((got, got.copy()))
    for got, copy in outs:
        np.testing.assert_array_equal(got, copy)


def test_zero_copy_handles(tmp_path):
    prefix, ref = conv_bn_model(tmp_path)
    pred = inference.create_predictor(inference.Config(prefix))
    buf = rng.standard_normal([2, 3, 4, 4]).astype("float32")
    h = pred.get_input_handle("image")
    h.share_external_data(buf)
    out_name = pred.get_output_names()[0]
    result = np.empty([2, 5], "float32")
    pred.get_output_handle(out_name).share_external_data(result)
    assert pred.zero_copy_run() is True
    np.testing.assert_allclose(result, ref(buf), rtol=1e-4, atol=1e-6)
    buf *= 2  # the predictor reads the shared buffer itself: no copy_from_cpu needed
    pred.run()
    np.testing.assert_allclose(result, ref(buf), rtol=1e-4, atol=1e-6)
    with pytest.raises(TypeError, match="C-contiguous float32"):
        h.share_external_data(buf.astype("float64"))
    with pytest.raises(ValueError, match="shared buffer"):
        h.share_external_data(rng.standard_normal([3, 3, 4, 4]).astype("float32"))
        pred.run()


def test_clones_own_their_planned_buffers(tmp_path):
    """Each clone compiles its own plan: predictors in two threads never write into each other's buffers."""
    import threading
    prefix, ref = conv_bn_model(tmp_path)
    config = inference.Config(prefix)
    config.enable_memory_optim()
    preds = [inference.create_predictor(config)]
    preds.append(preds[0].clone())
    xs = [rng.standard_normal([2, 3, 4, 4]).astype("float32") for _ in range(2)]
    errors = []

    def work(pred, x):
        for _ in range(50):
            if not np.allclose(pred.run([x])[0], ref(x), rtol=1e-4, atol=1e-6):
                errors.append(1)

    threads = [threading.Thread(target=work, args=(p, x)) for p, x in zip(preds, xs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
