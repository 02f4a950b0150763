"""paddle.static.auc in a Program run batch after batch by the Executor, and inside @to_static: the accumulated and
sliding-window AUC against a per-sample loop written from Paddle's definition, and against the eager metric.Auc."""
import numpy as np
import pytest

import oar as paddle


def _loop_auc(batches, num_thresholds):
    """Histogram by bin int(p * T) with plain loops, then trapezoids from the highest bin down."""
    pos, neg = [0] * (num_thresholds + 1), [0] * (num_thresholds + 1)
    for probs, labels in batches:
        for p, lab in zip(probs[:, -1], labels.reshape(-1)):
            b = int(p * num_thresholds)
            if lab > 0:
                pos[b] += 1
            elif lab == 0:
                neg[b] += 1
    area = tp = fp = 0.0
    for b in range(num_thresholds, -1, -1):
        tp2, fp2 = tp + pos[b], fp + neg[b]
        area += abs(fp2 - fp) * (tp2 + tp) / 2.0
        tp, fp = tp2, fp2
    return area / tp / fp if tp > 0 and fp > 0 else 0.0


def _batches(n_batches, size, seed=0, dtype="float32"):
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n_batches):
        labels = rng.randint(0, 2, size).astype("int64")
        p1 = np.clip(rng.rand(size) * 0.7 + labels * 0.25, 0, 1).astype(dtype)
        out.append((np.stack([1 - p1, p1], 1), labels))
    return out


def _build(num_thresholds=4095, slide_steps=1, with_tag=False, dtype="float32"):
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            prob = paddle.static.data("prob", [None, 2], dtype)
            label = paddle.static.data("label", [None], "int64")
            tag = paddle.static.data("tag", [1, 1], "float32") if with_tag else None
            result = paddle.static.auc(prob, label, num_thresholds=num_thresholds, slide_steps=slide_steps,
                                       ins_tag_weight=tag)
    finally:
        paddle.disable_static()
    return main, startup, result


@pytest.mark.parametrize("num_thresholds,slide_steps,dtype", [(4095, 1, "float32"), (200, 3, "float64"),
                                                              (50, 0, "float32")])
def test_static_auc_accumulates_like_eager_auc_and_the_loop(num_thresholds, slide_steps, dtype):
    main, startup, (auc_out, batch_auc, states) = _build(num_thresholds, slide_steps, dtype=dtype)
    assert [v.persistable for v in states] == [True] * 4 and auc_out.dtype == paddle.float64
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    eager = paddle.metric.Auc(num_thresholds=num_thresholds)
    batches = _batches(6, 32, seed=slide_steps, dtype=dtype)
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for i, (p, y) in enumerate(batches):
            got, got_batch = exe.run(main, feed={"prob": p, "label": y}, fetch_list=[auc_out, batch_auc])
            eager.update(p, y)
            window = batches[max(0, i + 1 - slide_steps):i + 1] if slide_steps else batches[:i + 1]
            assert got.shape == () and got.dtype == np.float64
            np.testing.assert_allclose(float(got), eager.accumulate(), rtol=1e-12)
            np.testing.assert_allclose(float(got), _loop_auc(batches[:i + 1], num_thresholds), rtol=1e-12)
            np.testing.assert_allclose(float(got_batch), _loop_auc(window, num_thresholds), rtol=1e-12)
    assert 0.6 < eager.accumulate() < 1.0   # the data carry signal, so the comparisons above are not trivial
    # the global statistics live in the scope, as the eager metric's histograms
    np.testing.assert_array_equal(np.array(scope.find_var(states[2].name).get_tensor()).reshape(-1), eager._stat_pos)
    np.testing.assert_array_equal(np.array(scope.find_var(states[3].name).get_tensor()).reshape(-1), eager._stat_neg)


def test_static_auc_restarts_when_the_statistics_are_zeroed():
    main, startup, (auc_out, batch_auc, states) = _build(num_thresholds=100)
    exe = paddle.static.Executor()
    scope = paddle.static.Scope()
    b = _batches(3, 16, seed=3)
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for p, y in b[:2]:
            exe.run(main, feed={"prob": p, "label": y}, fetch_list=[auc_out])
        for v in states:   # Paddle's way to reset: write zeros into the scope
            t = scope.find_var(v.name).get_tensor()
            t.set(np.zeros_like(np.array(t)))
        got, = exe.run(main, feed={"prob": b[2][0], "label": b[2][1]}, fetch_list=[auc_out])
        np.testing.assert_allclose(float(got), _loop_auc(b[2:], 100), rtol=1e-12)
        exe.run(startup)   # running the startup program again zeroes them too
        got, = exe.run(main, feed={"prob": b[0][0], "label": b[0][1]}, fetch_list=[auc_out])
        np.testing.assert_allclose(float(got), _loop_auc(b[:1], 100), rtol=1e-12)


def test_static_auc_updates_even_when_only_another_value_is_fetched():
    """The auc ops write persistable variables, so the executor keeps them however the fetch list prunes."""
    main, startup, (auc_out, batch_auc, states) = _build(num_thresholds=100)
    exe = paddle.static.Executor()
    b = _batches(3, 16, seed=4)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for p, y in b[:2]:
            exe.run(main, feed={"prob": p, "label": y}, fetch_list=[batch_auc])
        got, = exe.run(main, feed={"prob": b[2][0], "label": b[2][1]}, fetch_list=[auc_out])
    np.testing.assert_allclose(float(got), _loop_auc(b, 100), rtol=1e-12)


def test_static_auc_skips_fake_batches():
    main, startup, (auc_out, batch_auc, _) = _build(num_thresholds=100, slide_steps=2, with_tag=True)
    exe = paddle.static.Executor()
    b = _batches(3, 16, seed=5)
    real, fake = np.ones([1, 1], "float32"), np.zeros([1, 1], "float32")
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for (p, y), tag in zip(b, [real, fake, real]):
            got, got_batch = exe.run(main, feed={"prob": p, "label": y, "tag": tag}, fetch_list=[auc_out, batch_auc])
    np.testing.assert_allclose(float(got), _loop_auc([b[0], b[2]], 100), rtol=1e-12)
    np.testing.assert_allclose(float(got_batch), _loop_auc([b[2]], 100), rtol=1e-12)   # window: fake, b[2]


def test_static_auc_inside_to_static_accumulates_across_calls():
    @paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 2], "float32"),
                                      paddle.static.InputSpec([None], "int64")])
    def evaluate(prob, label):
        auc_out, batch_auc, _ = paddle.static.auc(prob, label, num_thresholds=255)
        return auc_out, batch_auc

    eager = paddle.metric.Auc(num_thresholds=255)
    batches = _batches(4, 24, seed=6)
    for i, (p, y) in enumerate(batches):
        got, got_batch = evaluate(paddle.to_tensor(p), paddle.to_tensor(y))
        eager.update(p, y)
        np.testing.assert_allclose(float(got), eager.accumulate(), rtol=1e-12)
        np.testing.assert_allclose(float(got_batch), _loop_auc(batches[i:i + 1], 255), rtol=1e-12)


def test_static_auc_errors():
    with pytest.raises(RuntimeError, match="paddle.metric.Auc"):
        paddle.static.auc(paddle.to_tensor([[0.5, 0.5]]), paddle.to_tensor([1]))
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            prob = paddle.static.data("prob", [None, 2], "float32")
            with pytest.raises(TypeError, match="label must be int32 or int64"):
                paddle.static.auc(prob, paddle.static.data("y", [None], "float32"))
            with pytest.raises(ValueError, match="curve"):
                paddle.static.auc(prob, paddle.static.data("y2", [None], "int64"), curve="AP")
    finally:
        paddle.disable_static()
    main, startup, (auc_out, _, _) = _build(num_thresholds=10)
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        with pytest.raises(ValueError, match=r"probabilities in \[0, 1\][\s\S]*test_static_auc.py"):
            exe.run(main, feed={"prob": np.array([[0.2, 1.5]], "float32"), "label": np.array([1])},
                    fetch_list=[auc_out])
        with pytest.raises(ValueError, match="2 predictions but 3 labels"):
            exe.run(main, feed={"prob": np.full([2, 2], 0.5, "float32"), "label": np.array([1, 0, 1])},
                    fetch_list=[auc_out])


def test_program_with_auc_survives_serialization():
    from oar.graph.serialize import program_from_dict, program_to_dict
    main, startup, (auc_out, _, _) = _build(num_thresholds=20)
    again = program_from_dict(program_to_dict(main))
    assert [op.type for op in again.global_block().ops].count("auc") == 2


def test_create_global_var():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            step = paddle.static.create_global_var([1], 0, "int64", persistable=True, name="step")
            from oar.graph.builder import append_assign
            append_assign(step + 1, step)
            const = paddle.static.create_global_var([2], 1.5, "float32")
    finally:
        paddle.disable_static()
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for _ in range(3):
            got, c = exe.run(main, fetch_list=[step, const])
    assert got.tolist() == [3] and c.tolist() == [1.5, 1.5]
    with pytest.raises(RuntimeError, match="enable_static"):
        paddle.static.create_global_var([1], 0, "int64")
