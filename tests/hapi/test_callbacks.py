"""Model.fit with Paddle's callbacks: progress lines per verbose level, LR schedulers stepped per batch or epoch,
checkpoints, early stopping, plateau LR, CSV log, gradient accumulation, save(training=False) from seen shapes,
summary and flops."""
import os

import numpy as np
import pytest

import oar as paddle


def _setup(lr=0.05, n=40):
    rng = np.random.RandomState(0)
    x = rng.rand(n, 4).astype("float32")
    y = (x[:, :1] + x[:, 1:2] > 1).astype("int64")
    ds = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    model = paddle.Model(net)
    opt = paddle.optimizer.SGD(lr, parameters=net.parameters())
    model.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return ds, net, model, opt


def test_verbose_levels_print_paddles_lines(capsys):
    ds, _, model, _ = _setup()
    model.fit(ds, ds, batch_size=10, epochs=2, verbose=2, log_freq=2)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    lines = [l for l in out.splitlines() if l.startswith("step")]
    assert lines[0].startswith("step 2/4 - loss: ") and " - acc: " in lines[0] and "ETA" not in lines[0]
    assert lines[0].endswith("/step")
    assert out.count("Eval begin...") == 2 and out.count("Eval samples: 40") == 2
    model.fit(ds, batch_size=10, epochs=1, verbose=1, log_freq=1)
    out = capsys.readouterr().out
    assert "step 1/4 [======>" in out and "ETA: " in out and "step 4/4 [==============================]" in out
    model.fit(ds, batch_size=10, epochs=1, verbose=0)
    model.evaluate(ds, batch_size=10, verbose=0)
    model.predict(ds, batch_size=10, verbose=0)
    assert capsys.readouterr().out == ""
    model.predict(ds, batch_size=10)
    out = capsys.readouterr().out
    assert "Predict begin..." in out and "Predict samples: 40" in out


@pytest.mark.parametrize("cb, steps, expected", [(None, 8, 0.1 * 0.5 ** 4),
                                                 ("epoch", 8, 0.1 * 0.5 ** 1)])
def test_fit_steps_lr_schedulers_like_paddle(cb, steps, expected):
    ds, net, model, _ = _setup(n=8)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    model.prepare(paddle.optimizer.SGD(sched, parameters=net.parameters()), paddle.nn.CrossEntropyLoss())
    callbacks = [paddle.callbacks.LRScheduler(by_step=False, by_epoch=True)] if cb == "epoch" else None
    model.fit(ds, batch_size=2, epochs=2, verbose=0, callbacks=callbacks)   # 4 batches x 2 epochs
    assert sched.last_epoch == (steps if cb is None else 2)
    np.testing.assert_allclose(model._optimizer.get_lr(), expected)


def test_custom_callback_sees_every_hook_in_order():
    ds, _, model, _ = _setup(n=20)
    seen = []

    class Rec(paddle.callbacks.Callback):
        def on_train_begin(self, logs=None): seen.append("train_begin")
        def on_epoch_begin(self, epoch, logs=None): seen.append(f"epoch{epoch}")
        def on_train_batch_end(self, step, logs=None): seen.append(("b", step, sorted(logs)))
        def on_eval_end(self, logs=None): seen.append(("eval", sorted(logs)))
        def on_train_end(self, logs=None): seen.append("train_end")
    model.fit(ds, ds, batch_size=10, epochs=1, verbose=0, callbacks=[Rec()])
    assert seen[:2] == ["train_begin", "epoch0"] and seen[-1] == "train_end"
    assert seen[2] == ("b", 0, ["acc", "batch_size", "loss", "step"])
    assert seen[4][0] == "eval" and "loss" in seen[4][1]
    with pytest.raises(TypeError, match="Callback"):
        model.fit(ds, batch_size=10, verbose=0, callbacks=[object()])


def test_checkpoints_early_stopping_and_csv(tmp_path):
    ds, _, model, _ = _setup(lr=0.0, n=20)   # lr 0: the eval loss never improves
    es = paddle.callbacks.EarlyStopping("loss", patience=1, verbose=0, save_best_model=True)
    csv = paddle.callbacks.CSVLogger(str(tmp_path / "log.csv"))
    model.fit(ds, ds, batch_size=10, epochs=10, verbose=0, save_dir=str(tmp_path / "ck"), save_freq=1,
              callbacks=[es, csv])
    assert model.stop_training and es.stopped_epoch == 2
    files = sorted(os.listdir(tmp_path / "ck"))
    assert "0.pdparams" in files and "1.pdparams" in files and "final.pdparams" in files
    assert "best_model.pdparams" in files and "2.pdparams" not in files
    rows = (tmp_path / "log.csv").read_text().splitlines()
    assert rows[0] == "epoch,loss,acc,eval_loss,eval_acc" and len(rows) == 3


def test_reduce_lr_on_plateau_in_fit():
    ds, _, model, opt = _setup(lr=0.0, n=20)
    opt.set_lr(0.0)
    model._optimizer._learning_rate = 1e-9    # effectively frozen: the loss plateaus
    cb = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, verbose=0, min_delta=1e-3)
    model.fit(ds, ds, batch_size=10, epochs=3, verbose=0, callbacks=[cb])
    np.testing.assert_allclose(opt.get_lr(), 1e-9 * 0.25, rtol=1e-6)


def test_accumulate_grad_batches_equals_one_big_batch():
    ds, net, model, _ = _setup(n=8)
    ds2, net2, model2, _ = _setup(n=8)
    model.fit(ds, batch_size=4, epochs=1, verbose=0, shuffle=False, accumulate_grad_batches=2)
    # one step over the summed gradients of two half-batches == one step with loss = sum of the two means
    x = ds2.tensors[0] if hasattr(ds2, "tensors") else paddle.to_tensor(np.stack([ds2[i][0] for i in range(8)]))
    y = paddle.to_tensor(np.stack([np.asarray(ds2[i][1]) for i in range(8)]))
    x = paddle.to_tensor(np.stack([np.asarray(ds2[i][0]) for i in range(8)]))
    f = paddle.nn.CrossEntropyLoss()
    loss = f(net2(x[:4]), y[:4]) + f(net2(x[4:]), y[4:])
    loss.backward()
    model2._optimizer.step()
    for a, b in zip(net.parameters(), net2.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7)


def test_num_iters_and_save_for_inference_from_seen_shapes(tmp_path):
    ds, net, model, _ = _setup(n=40)
    steps = []

    class Count(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None): steps.append(step)
    model.fit(ds, batch_size=10, epochs=5, verbose=0, num_iters=6, callbacks=[Count()])
    assert len(steps) == 6
    model.save(str(tmp_path / "inf"), training=False)
    loaded = paddle.jit.load(str(tmp_path / "inf"))
    x = paddle.to_tensor(np.random.rand(3, 4).astype("float32"))
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)


def test_model_summary_and_flops(capsys):
    from oar.static import InputSpec
    model = paddle.Model(paddle.vision.models.LeNet(), InputSpec([None, 1, 28, 28], "float32", "x"))
    assert model.summary() == {"total_params": 61610, "trainable_params": 61610}
    out = capsys.readouterr().out
    assert "   Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60" in out
    assert "Linear-3" in out and "Total params: 61,610" in out and "Params size (MB): 0.24" in out
    assert paddle.flops(model.network, [1, 1, 28, 28]) == 347560
    bn = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3, groups=1, bias_attr=False), paddle.nn.BatchNorm2D(4))
    # conv: 4*2*2 outputs x 3*9 MACs; bn: 2 per input element (eval)
    assert paddle.flops(bn, [1, 3, 4, 4]) == 16 * 27 + 2 * 16


def test_amp_configs_train():
    ds, _, model, opt = _setup(n=20)
    model.prepare(opt, paddle.nn.CrossEntropyLoss(), amp_configs={"level": "O1", "init_loss_scaling": 128.0})
    model.fit(ds, batch_size=10, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="level"):
        model.prepare(opt, paddle.nn.CrossEntropyLoss(), amp_configs="O3")


def test_load_skip_mismatch_for_a_new_head(tmp_path):
    ds, net, model, _ = _setup(n=8)
    model.save(str(tmp_path / "ck"))
    paddle.seed(3)
    other = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 5))
    m2 = paddle.Model(other)
    with pytest.raises(ValueError, match="skip_mismatch=True"):
        m2.load(str(tmp_path / "ck"))
    with pytest.warns(UserWarning, match="skip loading for '2.weight'"):
        m2.load(str(tmp_path / "ck.pdparams"), skip_mismatch=True)
    np.testing.assert_array_equal(other[0].weight.numpy(), net[0].weight.numpy())


def test_visualdl_writes_scalars_through_logwriter(monkeypatch):
    import sys
    import types
    written = []

    class LogWriter:
        def __init__(self, logdir):
            self.logdir = logdir

        def add_scalar(self, tag, step, value):
            written.append((tag, step, round(value, 6)))

        def close(self):
            written.append("closed")
    monkeypatch.setitem(sys.modules, "visualdl", types.SimpleNamespace(LogWriter=LogWriter))
    ds, _, model, _ = _setup(n=20)
    model.fit(ds, ds, batch_size=10, epochs=1, verbose=0, callbacks=[paddle.callbacks.VisualDL("vdl")])
    tags = [w[0] for w in written if w != "closed"]
    assert tags.count("train/loss") == 2 and tags.count("train/acc") == 2 and "eval/loss" in tags
    assert written[-1] == "closed"
    monkeypatch.setitem(sys.modules, "visualdl", None)
    with pytest.raises(ImportError, match="pip install visualdl"):
        paddle.callbacks.VisualDL("vdl")


def test_flops_custom_ops_in_paddles_style_and_detail_table(capsys):
    def count_leaky_relu(m, x, y):   # Paddle's documented signature: x is the tuple of inputs
        m.total_ops += int(x[0].size)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.LeakyReLU(), paddle.nn.Linear(8, 2))
    assert paddle.flops(net, [1, 4], custom_ops={paddle.nn.LeakyReLU: count_leaky_relu}, print_detail=True) == \
        32 + 8 + 16
    out = capsys.readouterr().out
    assert "|  Layer Name  |" not in out and "| Input Shape | Output Shape | Params | Flops |" in out
    assert "Customize Function has been applied to" in out and "Total Flops: 56     Total Params: 58" in out


def test_wandb_callback_logs_train_and_eval_metrics(monkeypatch):
    import sys
    import types
    calls = []

    class Run:
        def define_metric(self, name, step_metric=None):
            calls.append(("define", name, step_metric))

        def log(self, values):
            calls.append(("log", dict(values)))

        def finish(self):
            calls.append("finish")

    fake = types.SimpleNamespace(run=None, init=lambda **kw: calls.append(("init", kw)) or Run())
    monkeypatch.setitem(sys.modules, "wandb", fake)
    ds, _, model, _ = _setup(n=20)
    model.fit(ds, ds, batch_size=10, epochs=2, verbose=0,
              callbacks=[paddle.callbacks.WandbCallback(project="p", mode="offline", tags=["t"])])
    assert calls[0] == ("init", {"project": "p", "name": None, "entity": None, "dir": None, "mode": "offline",
                                 "job_type": None, "tags": ["t"]})
    assert ("define", "train/*", "train/step") in calls and ("define", "eval/*", "epoch") in calls
    logs = [c[1] for c in calls if c[0] == "log"]
    train = [entry for entry in logs if "train/step" in entry]
    assert [entry["train/step"] for entry in train] == [1, 2, 3, 4]
    assert all({"train/loss", "train/acc"} <= set(entry) for entry in train)
    evals = [entry for entry in logs if "epoch" in entry]
    assert [entry["epoch"] for entry in evals] == [0, 1] and all("eval/loss" in entry for entry in evals)
    assert calls[-1] == "finish"
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(ImportError, match="pip install wandb"):
        paddle.callbacks.WandbCallback()
