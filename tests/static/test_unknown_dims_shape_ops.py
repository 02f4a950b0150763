"""Shape-manipulation ops on dims unknown when the program is built (-1: an `InputSpec([None, ...])` batch).

Each case is a function converted with `oar.jit.to_static` and an InputSpec whose first dim is None, run at two
batch sizes and compared with the eager function: the values, and for differentiable cases the input gradient
from `.backward()` through the converted function (which runs the static backward program, built with the
unknown dims). A second group builds static Programs with `oar.static.data(shape=[-1, ...])` directly.
"""
import numpy as np
import pytest

import oar
from oar.static import InputSpec


def _outs(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _loss(outs):
    total = None
    for o in outs:
        if o.dtype.kind != "f":
            continue
        t = (o * oar.sin(o)).sum()  # nonlinear, so the gradient depends on where each value went
        total = t if total is None else total + t
    return total


def _run(fn, x, grad):
    x = oar.to_tensor(x)
    x.stop_gradient = not grad
    outs = _outs(fn(x))
    vals = [o.numpy() for o in outs]
    g = None
    if grad:
        _loss(outs).backward()
        g = x.grad.numpy()
    return vals, g


def check(fn, feat, batches=(3, 5), grad=True, dtype="float64", spec=None):
    """`fn` converted with a None first dim equals eager `fn` (values and, with `grad`, the input gradient)."""
    static = oar.jit.to_static(fn, input_spec=[spec or InputSpec([None] + list(feat), dtype)])
    rng = np.random.RandomState(0)
    for b in batches:
        x = rng.randn(b, *feat).astype(dtype) if dtype.startswith("float") else \
            rng.randint(0, 5, (b, *feat)).astype(dtype)
        ev, eg = _run(fn, x, grad)
        sv, sg = _run(static, x, grad)
        assert len(ev) == len(sv), f"batch {b}: {len(sv)} outputs, eager gives {len(ev)}"
        for i, (e, s) in enumerate(zip(ev, sv)):
            assert s.shape == e.shape, f"batch {b} output {i}: shape {s.shape}, eager {e.shape}"
            np.testing.assert_allclose(s, e, rtol=1e-10, atol=1e-12, err_msg=f"batch {b} output {i}")
        if grad:
            np.testing.assert_allclose(sg, eg, rtol=1e-10, atol=1e-12, err_msg=f"batch {b} gradient")


# ---- split / chunk / unbind ---------------------------------------------------------------------------------

def split_sections_unknown_axis(x):
    return oar.split(x, [1, -1, 1], axis=0)


def split_num_unknown_axis(x):
    return oar.split(x, 2, axis=0)


def split_minus_one_known_axis(x):
    return oar.split(x, [2, -1], axis=1)


def split_sections_known_axis(x):
    return oar.split(x, [1, 3, 2], axis=1)


def chunk_unknown_axis(x):
    return oar.chunk(x, 2, axis=0)


def chunk_known_axis(x):
    return oar.chunk(x, 3, axis=1)


def unbind_known_axis(x):
    return oar.unbind(x, axis=1)


def unstack_known_axis(x):
    return oar.unstack(x, axis=-1)


def split_then_concat(x):
    a, b = oar.split(x, [-1, 2], axis=0)
    return oar.concat([b * 2.0, a], axis=0)


@pytest.mark.parametrize("fn,feat,batches", [
    (split_sections_unknown_axis, [3], (3, 5)),
    (split_num_unknown_axis, [3], (4, 6)),
    (split_minus_one_known_axis, [6], (3, 5)),
    (split_sections_known_axis, [6], (3, 5)),
    (chunk_unknown_axis, [2], (4, 8)),
    (chunk_known_axis, [6], (3, 5)),
    (unbind_known_axis, [3], (3, 5)),
    (unstack_known_axis, [2, 3], (3, 5)),
    (split_then_concat, [3], (3, 5)),
])
def test_split_family(fn, feat, batches):
    check(fn, feat, batches)


def test_split_num_not_dividing_fails_at_run_time():
    static = oar.jit.to_static(split_num_unknown_axis, input_spec=[InputSpec([None, 3], "float64")])
    assert [o.shape for o in static(oar.ones([4, 3], "float64"))] == [[2, 3], [2, 3]]
    with pytest.raises(ValueError, match="split"):
        static(oar.ones([5, 3], "float64"))


def test_unbind_unknown_axis_is_a_clear_error():
    static = oar.jit.to_static(lambda x: oar.unbind(x, axis=0), input_spec=[InputSpec([None, 3], "float64")])
    with pytest.raises(ValueError, match="unbind"):
        static(oar.ones([2, 3], "float64"))


# ---- reshape family, transpose, expand ------------------------------------------------------------------------

def reshape_zero_minus_one(x):
    return oar.reshape(x, [0, -1, 2])


def reshape_minus_one_first(x):
    return oar.reshape(x, [-1, 3])


def reshape_from_shape(x):
    return oar.reshape(x, [x.shape[0], 2, 3])


def reshape_from_shape_tensor(x):
    return oar.reshape(x, [oar.shape(x)[0] * 3])


def flatten_all(x):
    return oar.flatten(x)


def flatten_tail(x):
    return oar.flatten(x, start_axis=1)


def flatten_head(x):
    return oar.flatten(x, start_axis=0, stop_axis=1)


def squeeze_unsqueeze(x):
    return oar.squeeze(oar.unsqueeze(x, [0, 2]), axis=[0])


def squeeze_known_one(x):
    return oar.squeeze(x, axis=1)


def unsqueeze_many(x):
    return oar.unsqueeze(x, [1, -1])


def transpose_batch(x):
    return oar.transpose(x, [1, 2, 0])


def expand_minus_one(x):
    return oar.expand(oar.unsqueeze(x, 1), [-1, 4, -1])


def broadcast_to_minus_one(x):
    return oar.broadcast_to(x[:, None, :], [-1, 2, 3])


def expand_as_unknown(x):
    return oar.expand_as(x[:, :1], x)


def tile_unknown(x):
    return oar.tile(x, [2, 3])


def tile_more_dims(x):
    return oar.tile(x, [2, 1, 2])


@pytest.mark.parametrize("fn,feat", [
    (reshape_zero_minus_one, [2, 3]),
    (reshape_minus_one_first, [2, 3]),
    (reshape_from_shape, [6]),
    (reshape_from_shape_tensor, [3]),
    (flatten_all, [2, 3]),
    (flatten_tail, [2, 3]),
    (flatten_head, [2, 3]),
    (squeeze_unsqueeze, [3]),
    (squeeze_known_one, [1, 3]),
    (unsqueeze_many, [3]),
    (transpose_batch, [2, 3]),
    (expand_minus_one, [3]),
    (broadcast_to_minus_one, [3]),
    (expand_as_unknown, [3]),
    (tile_unknown, [3]),
    (tile_more_dims, [3]),
])
def test_reshape_family(fn, feat):
    check(fn, feat)


# ---- concat / stack / gather / slicing ---------------------------------------------------------------------------

def concat_batch(x):
    return oar.concat([x, x * 2.0], axis=0)


def concat_features(x):
    return oar.concat([x, x[:, :1]], axis=1)


def stack_unknown(x):
    return oar.stack([x, -x, x * 3.0], axis=1)


def gather_rows(x):
    return oar.gather(x, oar.to_tensor([0, 1, 1]), axis=0)


def gather_cols(x):
    return oar.gather(x, oar.to_tensor([2, 0]), axis=1)


def index_select_cols(x):
    return oar.index_select(x, oar.to_tensor([1, 1, 0]), axis=1)


def gather_by_argmax(x):
    return oar.gather(x, oar.argmax(x[:, 0], axis=0).reshape([1]), axis=0)


def slice_tail(x):
    return x[:, 1:]


def slice_last(x):
    return x[-1]


def slice_negative_step(x):
    return x[::-1, ::-2]


def slice_batch_window(x):
    return x[1:-1]


def slice_op(x):
    return oar.slice(x, axes=[0, 1], starts=[1, 0], ends=[10000, 2])


def strided_slice_op(x):
    return oar.strided_slice(x, axes=[0], starts=[-1], ends=[-10000], strides=[-1])


@pytest.mark.parametrize("fn,feat", [
    (concat_batch, [3]),
    (concat_features, [3]),
    (stack_unknown, [3]),
    (gather_rows, [3]),
    (gather_cols, [3]),
    (index_select_cols, [3]),
    (gather_by_argmax, [3]),
    (slice_tail, [3]),
    (slice_last, [3]),
    (slice_negative_step, [3]),
    (slice_batch_window, [3]),
    (slice_op, [3]),
    (strided_slice_op, [3]),
])
def test_concat_gather_slice(fn, feat):
    check(fn, feat)


# ---- shape-driven creation, repeat_interleave, pad, roll, flip, masked_select -------------------------------

def zeros_from_shape(x):
    return x + oar.zeros([x.shape[0], 3], "float64")


def arange_from_shape(x):
    return x * oar.arange(x.shape[0]).astype("float64").unsqueeze(1)


def full_like_shape(x):
    return oar.full([x.shape[0], 1], 2.0, "float64") * x


def repeat_interleave_batch(x):
    return oar.repeat_interleave(x, 2, axis=0)


def repeat_interleave_feat(x):
    return oar.repeat_interleave(x, 3, axis=1)


def repeat_interleave_flat(x):
    return oar.repeat_interleave(x, 2)


def pad_constant(x):
    return oar.nn.functional.pad(x, [1, 2], value=0.5, data_format="NCL")


def pad_all_dims(x):
    return oar.pad(x, [1, 0, 0, 2, 1, 1], value=1.0)


def pad_reflect(x):
    return oar.nn.functional.pad(x, [1, 1], mode="reflect", data_format="NCL")


def roll_batch(x):
    return oar.roll(x, 1, axis=0)


def roll_flat(x):
    return oar.roll(x, -2)


def flip_both(x):
    return oar.flip(x, [0, 1])


def masked_select_pos(x):
    return oar.masked_select(x, x > 0)


def where_unknown(x):
    return oar.where(x > 0, x, x * 0.1)


@pytest.mark.parametrize("fn,feat", [
    (zeros_from_shape, [3]),
    (arange_from_shape, [3]),
    (full_like_shape, [3]),
    (repeat_interleave_batch, [3]),
    (repeat_interleave_feat, [3]),
    (repeat_interleave_flat, [3]),
    (pad_constant, [2, 3]),
    (pad_all_dims, [2, 3]),
    (pad_reflect, [2, 3]),
    (roll_batch, [3]),
    (roll_flat, [3]),
    (flip_both, [3]),
    (masked_select_pos, [3]),
    (where_unknown, [3]),
])
def test_creation_and_movement(fn, feat):
    check(fn, feat)


# ---- static Programs with oar.static.data(shape=[-1, ...]) ------------------------------------------------------

def _program_run(build, feat, batches=(3, 5)):
    """Builds `build(x)` in a Program on data of shape [-1, *feat] with a static backward, runs it at two
    batch sizes and compares values and gradient with eager."""
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [-1] + list(feat), "float64")
            x.stop_gradient = False
            outs = _outs(build(x))
            loss = _loss(outs)
            (gx,) = oar.static.gradients([loss], [x])
        exe = oar.static.Executor()
        rng = np.random.RandomState(1)
        for b in batches:
            a = rng.randn(b, *feat)
            res = exe.run(main, feed={"x": a}, fetch_list=outs + [gx])
            oar.disable_static()
            try:
                ev, eg = _run(build, a, True)
            finally:
                oar.enable_static()
            for e, s in zip(ev, res[:-1]):
                np.testing.assert_allclose(s, e, rtol=1e-10)
            np.testing.assert_allclose(res[-1], eg, rtol=1e-10)
    finally:
        oar.disable_static()


@pytest.mark.parametrize("build,feat", [
    (lambda x: oar.split(x, [1, -1], axis=0), [3]),
    (lambda x: oar.chunk(x, 2, axis=0), [3]),
    (lambda x: oar.tile(x, [2, 2]), [3]),
    (lambda x: oar.reshape(x, [-1, 6]), [2, 3]),
    (lambda x: oar.repeat_interleave(x, 2, axis=0), [3]),
    (lambda x: x[::-1, 1:], [3]),
])
def test_static_program_unknown_batch(build, feat):
    _program_run(build, feat, batches=(4, 6))


# ---- two unknown dims: InputSpec([None, None, 3]) ---------------------------------------------------------------

def _two_unknown(fn):
    """`fn` on inputs of shapes [b, b + 1, 3] for two batch sizes, converted with InputSpec([None, None, 3])."""
    static = oar.jit.to_static(fn, input_spec=[InputSpec([None, None, 3], "float64")])
    rng = np.random.RandomState(2)
    for b in (2, 4):
        x = rng.randn(b, b + 1, 3)
        ev, eg = _run(fn, x, True)
        sv, sg = _run(static, x, True)
        for i, (e, s) in enumerate(zip(ev, sv)):
            assert s.shape == e.shape, f"batch {b} output {i}: shape {s.shape}, eager {e.shape}"
            np.testing.assert_allclose(s, e, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sg, eg, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda x: oar.tile(x, [2, 1, 2]),
    lambda x: oar.tile(x, [2, 1, 1, 2]),
    lambda x: oar.reshape(x, [-1]),
    lambda x: oar.reshape(x, [0, -1]),
    lambda x: oar.reshape(x, [x.shape[0], -1]),
    lambda x: oar.flatten(x, start_axis=1),
    lambda x: oar.flatten(x, stop_axis=1),
    lambda x: oar.transpose(x, [2, 0, 1]),
    lambda x: oar.squeeze(oar.unsqueeze(x, [1, 3]), axis=[1]),
    lambda x: oar.squeeze(x[:, :, :1], axis=-1),
    lambda x: oar.unsqueeze(x, 0),
    lambda x: oar.expand(x[:, :1], [-1, 4, -1]),
    lambda x: oar.expand_as(x[:1], x),
    lambda x: oar.broadcast_to(x[:, :, None, :], [-1, -1, 2, 3]),
    lambda x: oar.split(x, [1, -1], axis=1),
    lambda x: oar.split(x, [2, 1], axis=2),
    lambda x: oar.concat([x, x[:, :1] * 2.0], axis=1),
    lambda x: oar.stack([x, x * x], axis=-1),
    lambda x: x[:, 1:, ::-1],
    lambda x: x[-1, -1],
    lambda x: oar.gather(x, oar.to_tensor([0, 0]), axis=1),
    lambda x: oar.repeat_interleave(x, 2, axis=1),
    lambda x: oar.pad(x, [0, 0, 1, 1, 2, 0], value=0.0),
    lambda x: oar.roll(x, [1, -1], axis=[0, 1]),
    lambda x: oar.roll(x, 3),
    lambda x: oar.flip(x, [0, 1]),
    lambda x: oar.masked_select(x, x > 0),
    lambda x: x + oar.zeros([x.shape[0], x.shape[1], 1], "float64"),
    lambda x: x * oar.arange(x.shape[1]).astype("float64").reshape([1, -1, 1]),
])
def test_two_unknown_dims(fn):
    _two_unknown(fn)


def split_fixed_sections_unknown_axis(x):
    return oar.split(x, [1, 2], axis=0)


def test_split_fixed_sections_on_unknown_dim_are_checked_at_run_time():
    static = oar.jit.to_static(split_fixed_sections_unknown_axis, input_spec=[InputSpec([None, 2], "float64")])
    a = np.arange(6.0).reshape(3, 2)
    p, q = static(oar.to_tensor(a))
    np.testing.assert_array_equal(p.numpy(), a[:1])
    np.testing.assert_array_equal(q.numpy(), a[1:])
    with pytest.raises(ValueError, match="do not add up"):
        static(oar.ones([4, 2], "float64"))


def test_split_infers_unknown_sizes():
    main = oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, oar.static.Program()):
            x = oar.static.data("x", [-1, 6], "float32")
            assert [p.shape for p in oar.split(x, [1, -1], axis=0)] == [[1, 6], [-1, 6]]
            assert [p.shape for p in oar.split(x, 2, axis=0)] == [[-1, 6], [-1, 6]]
            assert [p.shape for p in oar.split(x, [2, -1], axis=1)] == [[-1, 2], [-1, 4]]
            assert [p.shape for p in oar.chunk(x, 3, axis=1)] == [[-1, 2]] * 3
            with pytest.raises(ValueError, match="do not add up"):
                oar.split(x, [2, 3], axis=1)
            with pytest.raises(ValueError, match="one -1"):
                oar.split(x, [-1, -1], axis=0)
    finally:
        oar.disable_static()


# ---- bounds and sizes computed in the program; in-place writes; broadcasting index ops -------------------------

def slice_to_shape_bound(x):
    return x[: x.shape[0] - 1]


def slice_from_shape_bound(x):
    n = oar.shape(x)[0]
    return x[n // 2:, : n - 1]


def slice_tensor_step(x):
    return x[oar.shape(x)[0] - 1:: -oar.ones([], "int64")]


def split_tensor_sections(x):
    return oar.split(x, [1, x.shape[0] - 1])


def split_tensor_sections_minus_one(x):
    return oar.split(x, [oar.shape(x)[0] - 2, -1, 1], axis=0)


def setitem_then_use(x):
    y = x * 1.0
    y[:, 0] = 0.0
    y[: y.shape[0] - 1, 1] = x[1:, 2] * 2.0
    return y


def take_along_broadcast(x):
    return oar.take_along_axis(x, oar.to_tensor([[2, 0]]), axis=1)


def take_along_argsort(x):
    return oar.take_along_axis(x, oar.argsort(x, axis=1), axis=1)


def put_along_broadcast(x):
    return oar.put_along_axis(x, oar.to_tensor([[1]]), 0.0, axis=1)


@pytest.mark.parametrize("fn", [
    slice_to_shape_bound, slice_from_shape_bound, slice_tensor_step, split_tensor_sections,
    split_tensor_sections_minus_one, setitem_then_use, take_along_broadcast, take_along_argsort,
    put_along_broadcast,
])
def test_runtime_bounds_and_writes(fn):
    check(fn, [3], batches=(3, 5))


def test_tensor_slice_bounds_infer_unknown_dims():
    main = oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, oar.static.Program()):
            x = oar.static.data("x", [4, 5, 6], "float32")
            n = oar.shape(x)[0] - 1
            assert x[:n].shape == [-1, 5, 6]
            assert x[..., 1:n].shape == [4, 5, -1]
            assert x[None, 0, :n, 2].shape == [1, -1]
            assert oar.split(x, [n, -1], axis=1)[0].shape == [4, -1, 6]
    finally:
        oar.disable_static()
