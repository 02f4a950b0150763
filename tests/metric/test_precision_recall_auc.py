"""Precision / Recall / Auc against per-sample loops written from Paddle's definitions, and Auc against the exact
pairwise ROC area when scores fall on distinct bins."""
import numpy as np
import pytest

import oar as paddle


def _loop_counts(preds, labels):
    tp = fp = fn = 0
    for p, l in zip(np.rint(preds).astype(int), labels):
        if p == 1:
            tp, fp = (tp + 1, fp) if p == l else (tp, fp + 1)
        elif l == 1:
            fn += 1
    return tp, fp, fn


def test_precision_recall_match_loops_and_accumulate_over_batches():
    rng = np.random.RandomState(0)
    preds, labels = rng.rand(200), rng.randint(0, 2, 200)
    tp, fp, fn = _loop_counts(preds, labels)
    p, r = paddle.metric.Precision(), paddle.metric.Recall()
    for i in range(0, 200, 64):   # in batches, as Model does; Tensors accepted too
        p.update(paddle.to_tensor(preds[i:i + 64].reshape(-1, 1)), labels[i:i + 64].reshape(-1, 1))
        r.update(preds[i:i + 64], paddle.to_tensor(labels[i:i + 64]))
    assert p.accumulate() == tp / (tp + fp) and r.accumulate() == tp / (tp + fn)
    assert (p.name(), r.name()) == ("precision", "recall")
    p.reset()
    assert p.accumulate() == 0.0
    with pytest.raises(ValueError, match="one value per sample"):
        p.update(np.zeros([4, 2]), np.zeros([4]))


def test_auc_equals_exact_roc_area():
    rng = np.random.RandomState(1)
    n = 300
    labels = rng.randint(0, 2, n)
    scores = np.clip(rng.rand(n) * 0.6 + labels * 0.3, 0, 1)
    scores = (np.argsort(np.argsort(scores)) + 0.5) / n   # distinct bins, same order
    m = paddle.metric.Auc(num_thresholds=4095)
    m.update(np.stack([1 - scores, scores], 1), labels.reshape(-1, 1))
    pos, neg = scores[labels == 1], scores[labels == 0]
    exact = np.mean(pos[:, None] > neg[None, :])
    np.testing.assert_allclose(m.accumulate(), exact, rtol=1e-3)
    m.reset()
    assert m.accumulate() == 0.0
    with pytest.raises(ValueError, match="probabilities"):
        m.update(np.array([[0.5, 1.5]]), np.array([1]))


def test_auc_in_model_fit():
    rng = np.random.RandomState(0)
    x = rng.rand(40, 3).astype("float32")
    y = (x[:, :1] > 0.5).astype("int64")
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 2), paddle.nn.Softmax())
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(0.05, parameters=net.parameters()),
                  lambda out, lab: paddle.nn.functional.nll_loss(paddle.log(out), lab.reshape([-1])),
                  [paddle.metric.Auc()])
    ds = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    model.fit(ds, batch_size=10, epochs=20, verbose=0)
    assert model.evaluate(ds, batch_size=10, verbose=0)["auc"] > 0.9


def test_static_accuracy_equals_eager():
    rng = np.random.RandomState(0)
    xs, ys = rng.rand(16, 5).astype("float32"), rng.randint(0, 5, (16, 1)).astype("int64")
    eager = [float(paddle.metric.accuracy(paddle.to_tensor(xs), paddle.to_tensor(ys), k=k)) for k in (1, 2)]
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [None, 5], "float32")
            y = paddle.static.data("y", [None, 1], "int64")
            accs = [paddle.static.accuracy(x, y, k=k) for k in (1, 2)]
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        got = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=accs)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose([float(g) for g in got], eager, rtol=1e-6)
