"""paddle.metric.accuracy / Accuracy against a NumPy top-k reference, eager and in a static Program."""
import numpy as np
import pytest

import oar as paddle


def _ref_topk_acc(scores, labels, k):
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return float(np.mean([labels[i] in top[i] for i in range(len(labels))]))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_accuracy_matches_numpy(k):
    rng = np.random.RandomState(k)
    scores = rng.rand(20, 5).astype("float32")
    labels = rng.randint(0, 5, (20, 1)).astype("int64")
    acc = paddle.metric.accuracy(paddle.to_tensor(scores), paddle.to_tensor(labels), k=k)
    assert acc.dtype == paddle.float32
    np.testing.assert_allclose(float(acc), _ref_topk_acc(scores, labels[:, 0], k), rtol=1e-6)


def test_accuracy_fills_correct_and_total():
    scores = paddle.to_tensor([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    labels = paddle.to_tensor([[0], [0], [0]])
    correct = paddle.zeros([1], "int64")
    total = paddle.zeros([1], "int64")
    paddle.metric.accuracy(scores, labels, correct=correct, total=total)
    assert int(correct) == 2 and int(total) == 3


def test_accuracy_rejects_non_2d_scores():
    with pytest.raises(ValueError, match=r"\[N, C\]"):
        paddle.metric.accuracy(paddle.ones([2, 3, 4]), paddle.zeros([2, 1], "int64"))


def test_accuracy_in_a_static_program_equals_eager():
    rng = np.random.RandomState(0)
    scores = rng.rand(8, 4).astype("float32")
    labels = rng.randint(0, 4, (8, 1)).astype("int64")
    eager = float(paddle.metric.accuracy(paddle.to_tensor(scores), paddle.to_tensor(labels), k=2))
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 4], "float32")
            y = paddle.static.data("y", [None, 1], "int64")
            acc = paddle.metric.accuracy(x, y, k=2)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={"x": scores, "y": labels}, fetch_list=[acc])[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(float(np.asarray(got)), eager, rtol=1e-6)


def test_accuracy_metric_accumulates_over_batches_with_topk():
    rng = np.random.RandomState(1)
    m = paddle.metric.Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    all_s, all_l = [], []
    for _ in range(3):
        s = rng.rand(6, 4).astype("float32")
        lab = rng.randint(0, 4, (6, 1)).astype("int64")
        batch = m.update(m.compute(paddle.to_tensor(s), paddle.to_tensor(lab)))
        np.testing.assert_allclose(batch, [_ref_topk_acc(s, lab[:, 0], 1), _ref_topk_acc(s, lab[:, 0], 2)])
        all_s.append(s)
        all_l.append(lab[:, 0])
    s, lab = np.concatenate(all_s), np.concatenate(all_l)
    np.testing.assert_allclose(m.accumulate(), [_ref_topk_acc(s, lab, 1), _ref_topk_acc(s, lab, 2)])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_metric_accepts_one_hot_and_flat_labels():
    m = paddle.metric.Accuracy()
    pred = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2]])
    assert m.update(m.compute(pred, paddle.to_tensor([[0.0, 1.0], [0.0, 1.0]]))) == 0.5
    assert m.update(m.compute(pred, paddle.to_tensor([1, 0]))) == 1.0
    assert m.accumulate() == 0.75


def test_metric_base_requires_overrides():
    with pytest.raises(NotImplementedError, match="accumulate"):
        paddle.metric.Metric().accumulate()
