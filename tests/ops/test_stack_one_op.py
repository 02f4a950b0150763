"""`stack` is one op (it was an `unsqueeze` per input plus a `concat`: 21 ops for an RNN's 20 steps), its gradient
one `unstack` op; `unbind`/`unstack` in a static program are one `unstack` op. Errors and edge cases as Paddle 3.3.1
(`paddle.stack`: an empty list, a tensor, an axis outside [-(rank+1), rank+1) raise ValueError; one tensor and 0-D
tensors stack)."""
import numpy as np
import pytest

import oar
from oar.jit import lazy as L


def _program(fn, shapes):
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            xs = [oar.static.data(f"x{i}", s, "float32") for i, s in enumerate(shapes)]
            for x in xs:
                x.stop_gradient = False
            out = fn(xs)
    finally:
        oar.disable_static()
    return main, xs, out


def test_a_static_stack_and_its_gradient_are_one_op_each():
    def fn(xs):
        y = oar.stack(xs, axis=1)
        grads = oar.static.gradients([(y * y).sum()], xs)
        return y, grads
    main, xs, (y, grads) = _program(fn, [[-1, 3]] * 20)
    types = [op.type for op in main.global_block().ops]
    assert types.count("stack") == 1 and types.count("unstack") == 1
    assert "unsqueeze" not in types and "concat" not in types
    assert y.shape == [-1, 20, 3]
    feed = {f"x{i}": np.full((2, 3), i, np.float32) for i in range(20)}
    got = oar.static.Executor().run(main, feed=feed, fetch_list=[y] + list(grads))
    np.testing.assert_array_equal(got[0], np.stack([feed[f"x{i}"] for i in range(20)], 1))
    for i in range(20):
        np.testing.assert_array_equal(got[1 + i], 2 * feed[f"x{i}"])


def test_static_unbind_is_one_op():
    main, _, outs = _program(lambda xs: oar.unbind(xs[0], axis=-1), [[-1, 4]])
    assert [op.type for op in main.global_block().ops].count("unstack") == 1 and len(outs) == 4
    assert all(o.shape == [-1] for o in outs)
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    got = oar.static.Executor().run(main, feed={"x0": a}, fetch_list=outs)
    for i in range(4):
        np.testing.assert_array_equal(got[i], a[:, i])


def test_static_stack_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match=r"tensor 1 has shape \[-1, 4\], tensor 0 has \[-1, 3\]"):
        _program(lambda xs: oar.stack(xs), [[-1, 3], [-1, 4]])


def test_lazy_mode_records_one_op():
    xs = [oar.full([2, 3], float(i)) for i in range(20)]
    with oar.lazy():
        g = L._STATE.graphs[-1][0]
        before = g.n_ops
        y = oar.stack(xs, axis=-1)
        assert g.n_ops - before == 1
    np.testing.assert_array_equal(y.numpy(), np.stack([x.numpy() for x in xs], -1))


@pytest.mark.parametrize("axis, shape", [(0, [2, 2, 3]), (1, [2, 2, 3]), (2, [2, 3, 2]), (-1, [2, 3, 2]),
                                         (-3, [2, 2, 3])])
def test_axis_normalization(axis, shape):
    a, b = oar.ones([2, 3]), oar.zeros([2, 3])
    out = oar.stack([a, b], axis=axis)
    assert out.shape == shape
    np.testing.assert_array_equal(out.numpy(), np.stack([a.numpy(), b.numpy()], axis))


@pytest.mark.parametrize("axis, rank", [(3, 2), (-4, 2), (1, 0), (-2, 0)])
def test_axis_out_of_range_raises(axis, rank):
    # the old composition took axis modulo rank+1: axis 3 on rank 2 silently stacked along axis 0
    x = oar.ones([2] * rank)
    with pytest.raises(ValueError, match=rf"stack: axis {axis} is out of range \[{-rank - 1}, {rank + 1}\)"):
        oar.stack([x, x], axis=axis)


def test_empty_list_and_a_tensor_raise():
    with pytest.raises(ValueError, match="stack needs at least one tensor"):
        oar.stack([])
    with pytest.raises(ValueError, match="must be a list or tuple of tensors, got a tensor"):
        oar.stack(oar.ones([2, 3]))
    with pytest.raises(ValueError, match="concat needs at least one tensor"):
        oar.concat([])


def test_eager_shape_mismatch_raises():
    with pytest.raises(ValueError, match="same shape"):
        oar.stack([oar.ones([2, 3]), oar.ones([3, 3])])


def test_one_tensor_and_0d_tensors():
    assert oar.stack([oar.ones([2, 3])], axis=-1).shape == [2, 3, 1]
    out = oar.stack((oar.to_tensor(1.0), oar.to_tensor(2.0)), axis=-1)
    assert out.shape == [2] and out.numpy().tolist() == [1.0, 2.0]


def test_stop_gradient_mix_and_gradient():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    c = oar.to_tensor([5.0, 6.0])
    y = oar.stack([x, c, x * 3], axis=1)
    assert not y.stop_gradient and oar.stack([c, c]).stop_gradient
    (y * oar.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert x.grad.numpy().tolist() == [1.0 + 9.0, 4.0 + 18.0] and c.grad is None


def test_unstack_gradient_with_unused_parts():
    main, xs, out = _program(lambda xs: oar.static.gradients([oar.unstack(xs[0], axis=1)[1].sum()], xs)[0],
                             [[-1, 3]])
    got = oar.static.Executor().run(main, feed={"x0": np.ones((2, 3), np.float32)}, fetch_list=[out])[0]
    np.testing.assert_array_equal(got, [[0, 1, 0], [0, 1, 0]])


def test_unstack_parts_are_copies_unbinds_are_views():
    # Paddle 3.3.1: unstack copies, unbind gives views (oar's unstack was unbind: a write reached the input)
    x = oar.zeros([2, 3])
    oar.unstack(x)[0].add_(oar.ones([3]))
    assert x.numpy().tolist() == [[0.0] * 3] * 2
    oar.unbind(x)[0].add_(oar.ones([3]))
    assert x.numpy().tolist() == [[1.0] * 3, [0.0] * 3]


def test_unstack_errors_and_empty():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match=r"axis 2 is out of range \[-2, 2\)"):
        oar.unstack(x, axis=2)
    with pytest.raises(ValueError, match="num=3 but the input has 2 entries"):
        oar.unstack(x, num=3)
    assert oar.unstack(oar.ones([0, 3])) == []


def test_static_unstack_of_an_unknown_dim_takes_num():
    main, _, outs = _program(lambda xs: oar.unstack(xs[0], axis=0, num=2), [[-1, 3]])
    assert len(outs) == 2 and outs[0].shape == [3]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = oar.static.Executor().run(main, feed={"x0": a}, fetch_list=outs)
    np.testing.assert_array_equal(got[1], a[1])
    with pytest.raises(ValueError, match="built for 2 parts"):
        oar.static.Executor().run(main, feed={"x0": np.ones((3, 3), np.float32)}, fetch_list=outs)
    with pytest.raises(ValueError, match="give num"):
        _program(lambda xs: oar.unstack(xs[0]), [[-1, 3]])
