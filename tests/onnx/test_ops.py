"""One exported program per lowered op: onnxruntime equals oar eager (float32, rtol 1e-5)."""
import numpy as np
import pytest

from onnx_helpers import check  # noqa: E402  (skips the module when onnx/onnxruntime are absent)

import oar  # noqa: E402
import oar.nn.functional as F  # noqa: E402

R = np.random.default_rng(0)


def f32(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape).astype(np.float32)


X = f32(3, 4)
Y = f32(3, 4)
P = f32(3, 4, lo=0.1, hi=3.0)
IMG = f32(2, 3, 9, 9)
I32 = R.integers(-7, 8, (3, 4)).astype(np.int32)
J32 = R.integers(1, 5, (3, 4)).astype(np.int32) * np.where(R.random((3, 4)) > 0.5, 1, -1).astype(np.int32)

INFS = np.where(X > 1, np.inf, np.where(X < -1.5, 0, X)).astype(np.float32)

UNARY = {  # op name -> (function, input)
    "neg": (oar.neg, X), "exp": (oar.exp, X), "log": (oar.log, P), "sqrt": (oar.sqrt, P), "abs": (oar.abs, X),
    "sign": (oar.sign, X), "sin": (oar.sin, X), "cos": (oar.cos, X), "tan": (oar.tan, X / 2),
    "asin": (oar.asin, X / 3), "acos": (oar.acos, X / 3), "atan": (oar.atan, X), "sinh": (oar.sinh, X),
    "cosh": (oar.cosh, X), "tanh": (oar.tanh, X), "floor": (oar.floor, X), "ceil": (oar.ceil, X),
    "round": (oar.round, np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 0.49, -0.51], [3.2, -3.7, 0.0, 7.5]],
                                   np.float32)),  # halves: away from zero, as Paddle
    "reciprocal": (oar.reciprocal, P), "sigmoid": (F.sigmoid, X),
    "asinh": (oar.asinh, X), "acosh": (oar.acosh, P + 1), "atanh": (oar.atanh, X / 3),
    "nan_to_num": (lambda x: oar.nan_to_num(oar.log(x)), INFS),  # log gives inf, -inf (at 0) and NaN (< 0)
    "nan_to_num_values": (lambda x: oar.nan_to_num(oar.log(x), nan=2.0, posinf=9.0, neginf=-9.0), INFS),
    "nonzero": (lambda x: oar.nonzero(x > 0), X),
    "logit": (oar.logit, P / 3.5), "logit_eps": (lambda x: oar.logit(x, eps=0.2), P / 3.5),
    "erf": (oar.erf, X), "expm1": (oar.expm1, X), "log1p": (oar.log1p, P), "log2": (oar.log2, P),
    "log10": (oar.log10, P), "square": (oar.square, X), "trunc": (oar.trunc, X * 3), "rsqrt": (oar.rsqrt, P),
    "relu": (F.relu, X), "relu6": (F.relu6, X * 4), "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), X),
    "elu": (lambda x: F.elu(x, 0.7), X), "selu": (F.selu, X), "gelu": (F.gelu, X),
    "gelu_tanh": (lambda x: F.gelu(x, approximate=True), X), "silu": (F.silu, X), "swish": (F.swish, X),
    "mish": (F.mish, X), "hardswish": (F.hardswish, X * 3), "hardsigmoid": (F.hardsigmoid, X * 3),
    "hardtanh": (F.hardtanh, X), "softplus": (lambda x: F.softplus(x, beta=2, threshold=3), X),
    "softsign": (F.softsign, X), "logsigmoid": (F.log_sigmoid, X), "tanhshrink": (F.tanhshrink, X),
    "thresholded_relu": (lambda x: F.thresholded_relu(x, 0.5), X),
    "softmax": (lambda x: F.softmax(x, axis=0), X), "log_softmax": (F.log_softmax, X),
    "scale": (lambda x: oar.scale(x, 2.0, 0.5), X), "scale_before": (lambda x: oar.scale(x, 2.0, 0.5, False), X),
    "clip": (lambda x: oar.clip(x, -0.5, 0.7), X), "cast": (lambda x: oar.cast(x, "int32"), X * 3),
    "isfinite": (oar.isfinite, X), "isnan": (oar.isnan, X), "isinf": (oar.isinf, X),
    "logical_not": (lambda x: oar.logical_not(x > 0), X), "zeros_like": (lambda x: oar.zeros_like(x) + x, X),
    "assign": (lambda x: oar.assign(x), X),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    fn, x = UNARY[name]
    check(fn, x, dynamic=True, more=[(np.concatenate([x, x]),)])


BINARY = {
    "add": (oar.add, X, Y), "subtract": (oar.subtract, X, Y), "multiply": (oar.multiply, X, Y),
    "divide": (oar.divide, X, P), "pow": (oar.pow, P, Y), "maximum": (oar.maximum, X, Y),
    "minimum": (oar.minimum, X, Y), "equal": (oar.equal, I32, J32), "not_equal": (oar.not_equal, I32, J32),
    "less_than": (oar.less_than, X, Y), "less_equal": (oar.less_equal, I32, J32),
    "greater_than": (oar.greater_than, X, Y), "greater_equal": (oar.greater_equal, I32, J32),
    "logical_and": (lambda a, b: oar.logical_and(a > 0, b > 0), X, Y),
    "logical_or": (lambda a, b: oar.logical_or(a > 0, b > 0), X, Y),
    "logical_xor": (lambda a, b: oar.logical_xor(a > 0, b > 0), X, Y),
    "floor_divide_int": (oar.floor_divide, I32, J32), "floor_divide": (oar.floor_divide, X, P),
    "remainder_int": (oar.remainder, I32, J32), "remainder": (oar.remainder, X, Y),
    "divide_int": (oar.divide, I32, J32), "broadcast_add": (oar.add, X, Y[:1, :]),
    "where": (lambda a, b: oar.where(a > b, a, b), X, Y),
    "matmul": (oar.matmul, X, Y.T.copy()), "matmul_tx": (lambda a, b: oar.matmul(a, b, transpose_x=True), X, Y),
    "matmul_ty": (lambda a, b: oar.matmul(a, b, transpose_y=True), X, Y),
    "einsum": (lambda a, b: oar.einsum("ij,kj->ik", a, b), X, Y),
    "heaviside": (oar.heaviside, np.where(np.abs(X) < 0.5, 0, X).astype(np.float32), Y),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    fn, x, y = BINARY[name]
    check(fn, x, y)


T = f32(2, 3, 4)
REDUCE = {
    "sum": lambda x: oar.sum(x), "sum_axis": lambda x: oar.sum(x, axis=[0, 2], keepdim=True),
    "mean": lambda x: oar.mean(x, axis=1), "mean_all": lambda x: oar.mean(x),
    "max": lambda x: oar.max(x, axis=-1), "min": lambda x: oar.min(x, axis=0, keepdim=True),
    "prod": lambda x: oar.prod(x, axis=1), "logsumexp": lambda x: oar.logsumexp(x, axis=2),
    "cumsum": lambda x: oar.cumsum(x, axis=1), "cumsum_flat": lambda x: oar.cumsum(x),
    "argmax": lambda x: oar.argmax(x, axis=1), "argmin_all": lambda x: oar.argmin(x),
    "argmax_keep": lambda x: oar.argmax(x, axis=2, keepdim=True),
    "topk": lambda x: oar.topk(x, 2, axis=1), "sum_int": lambda x: oar.sum(oar.cast(x * 3, "int32"), axis=1),
    "mean_int_like": lambda x: oar.mean(oar.cast(x > 0, "float32"), axis=1),
}


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduce(name):
    check(REDUCE[name], T, dynamic=True, more=[(np.concatenate([T, T]),)])


MANIP = {
    "reshape": lambda x: oar.reshape(x, [0, 4, 3]), "reshape_infer": lambda x: oar.reshape(x, [-1, 6]),
    "flatten": lambda x: oar.flatten(x, 1), "flatten_mid": lambda x: oar.flatten(x, 0, 1),
    "transpose": lambda x: oar.transpose(x, [2, 0, 1]), "unsqueeze": lambda x: oar.unsqueeze(x, [0, 2]),
    "squeeze": lambda x: oar.squeeze(x[:, :1], 1), "broadcast_to": lambda x: oar.broadcast_to(x[:, :1], [2, 5, 4]),
    "tile": lambda x: oar.tile(x, [1, 2, 1]), "tile_more": lambda x: oar.tile(x, [2, 1, 1, 2]),
    "concat": lambda x: oar.concat([x, x * 2], axis=1), "stack": lambda x: oar.stack([x, x], axis=1),
    "stack_neg": lambda x: oar.stack([x, x * 2, x + 1], axis=-1), "stack_one": lambda x: oar.stack([x], axis=0),
    "unstack": lambda x: oar.concat(oar.unstack(x, axis=1), axis=1), "unstack_one": lambda x: oar.unbind(x[:1])[0],
    "split": lambda x: oar.split(x, [1, 3], axis=2), "split_even": lambda x: oar.split(x, 3, axis=1),
    "flip": lambda x: oar.flip(x, [1, 2]), "pad": lambda x: F.pad(x, [1, 2], value=0.5, mode="constant"),
    "shape": lambda x: oar.shape(x), "numel": lambda x: oar.numel(x),
    "slice": lambda x: x[:, 1:3], "slice_neg": lambda x: x[..., ::-2], "index": lambda x: x[0, :, -1],
    "newaxis": lambda x: x[:, None, 1:, 0], "ellipsis": lambda x: x[..., 1], "chunk": lambda x: x[-1:, ::2, 1:3],
    "gather": lambda x: oar.gather(x, oar.to_tensor([2, 0]), axis=1),
    "index_tensor": lambda x: x[:, oar.to_tensor([1, 1, 0])],
    "take_along_axis": lambda x: oar.take_along_axis(x, oar.to_tensor(np.zeros((2, 3, 1), np.int64)), 2),
    "one_hot": lambda x: F.one_hot(oar.argmax(x, axis=2), 4),
    "full": lambda x: x + oar.full([3, 4], 2.0), "arange": lambda x: x * oar.arange(4, dtype="float32"),
    "expand_as": lambda x: oar.expand_as(x[:1], x),
}


@pytest.mark.parametrize("name", sorted(MANIP))
def test_manipulation(name):
    check(MANIP[name], T)


def test_gather_nd_and_embedding():
    w = f32(10, 4)
    ids = np.array([[1, 3, 0], [9, 2, 2]], np.int64)
    check(lambda i: F.embedding(i, oar.to_tensor(w)), ids, op="embedding")
    check(lambda i: F.embedding(i, oar.to_tensor(w), padding_idx=2), ids, op="embedding")
    check(lambda x: oar.gather_nd(x, oar.to_tensor([[0, 1], [1, 2]])), T, op="gather_nd")


# fixed weights: eager and export see the same
W = [oar.to_tensor(a) for a in (f32(4, 3, 3, 3), f32(4), f32(4, 3, 3, 2), f32(6, 1, 3, 3), f32(2, 3, 2, 2),
                                f32(3, 2, 3, 3), f32(3), f32(3, lo=0.5, hi=2), f32(3), f32(3), f32(9, 9), f32(9, 9),
                                f32(3))]
NN = {
    "conv2d": (lambda x: F.conv2d(x, W[0], W[1], padding=1), IMG),
    "conv2d_stride_dil": (lambda x: F.conv2d(x, W[2], stride=2, dilation=[2, 1],
                                             padding=[1, 0]), IMG),
    "conv2d_groups": (lambda x: F.conv2d(x, W[3], groups=3, padding="SAME",
                                         stride=2), IMG),
    "conv2d_valid": (lambda x: F.conv2d(x, W[4], padding="VALID"), IMG),
    "conv2d_transpose": (lambda x: F.conv2d_transpose(x, W[5], stride=2, padding=1,
                                                      output_padding=1), IMG),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), IMG),
    "max_pool2d_pad": (lambda x: F.max_pool2d(x, 3, stride=2, padding=1), IMG),
    "max_pool2d_ceil": (lambda x: F.max_pool2d(x, 2, ceil_mode=True), IMG),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), IMG),
    "avg_pool2d_incl": (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, exclusive=False), IMG),
    "adaptive_avg_pool_1": (lambda x: F.adaptive_avg_pool2d(x, 1), IMG),
    "adaptive_avg_pool_3": (lambda x: F.adaptive_avg_pool2d(x, 3), IMG),
    "adaptive_avg_pool_4": (lambda x: F.adaptive_avg_pool2d(x, [4, 2]), IMG),
    "adaptive_max_pool_3": (lambda x: F.adaptive_max_pool2d(x, 3), IMG),
    "batch_norm": (lambda x: F.batch_norm(x, W[6], W[7],
                                          W[8], W[9]), IMG),
    "dropout": (lambda x: F.dropout(x, 0.3, training=False), IMG),
    "dropout_downscale": (lambda x: F.dropout(x, 0.3, training=False, mode="downscale_in_infer"), IMG),
    "layer_norm": (lambda x: F.layer_norm(x, [9, 9], W[10], W[11]), IMG),
    "prelu": (lambda x: F.prelu(x, W[12]), IMG),
}


@pytest.mark.parametrize("name", sorted(NN))
def test_nn(name):
    fn, x = NN[name]
    check(fn, x, dynamic=True, rtol=1e-5, atol=1e-5, more=[(np.concatenate([x, x, x[:1]]),)])


def test_opset_versions():
    from onnx_helpers import eager, export_model, run, specs_of
    fn = lambda x: oar.mean(F.relu(x) * 2, axis=1)  # noqa: E731
    for v in (11, 17):
        _, model, sess = export_model(fn, specs_of([T]), opset_version=v)
        assert model.opset_import[0].version == v
        np.testing.assert_allclose(run(sess, [T])[0], eager(fn, [T])[0], rtol=1e-5)


MORE = {
    "all": lambda x: oar.all(x > -1.5, axis=1), "any": lambda x: oar.any(x > 1.5),
    "fmax": lambda x: oar.fmax(x, oar.flip(x, [0])), "fmin": lambda x: oar.fmin(x, x * 0.5),
    "interp_nearest": lambda x: F.interpolate(x, scale_factor=2), "interp_size": lambda x: F.interpolate(x, [5, 7]),
    "interp_bilinear": lambda x: F.interpolate(x, [5, 7], mode="bilinear"),
    "interp_bilinear_ac": lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True),
    "interp_linear": lambda x: F.interpolate(x[:, :, 0], [7], mode="linear", data_format="NCW"),
    "interp_linear_one": lambda x: F.interpolate(x[:, :, 0], [1], mode="linear", data_format="NCW"),
    "interp_bicubic": lambda x: F.interpolate(x, [5, 7], mode="bicubic"),
    "interp_bicubic_ac": lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True),
    "interp_area": lambda x: F.interpolate(x, [2, 3], mode="area"),
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_more(name):
    q = f32(2, 3, 4, 5) if name.startswith("interp") else T
    check(MORE[name], q, dynamic=True, more=[(np.concatenate([q, q]),)])


VOL = f32(2, 2, 5, 6, 4)
W3 = [oar.to_tensor(f32(3, 2, 3, 3, 2)), oar.to_tensor(f32(2, 3, 2, 2, 2))]


def test_conv3d_and_transpose():
    check(lambda x: F.conv3d(x, W3[0], padding=1, stride=[1, 2, 1]), VOL, op="conv3d", dynamic=True,
          atol=1e-5, more=[(VOL[:1],)])
    check(lambda x: F.conv3d_transpose(x, W3[1], stride=2), VOL, op="conv3d_transpose", atol=1e-5)


def test_constant_creation_ops():
    """Ops without inputs are evaluated at export time (the export passes fold them before that anyway)."""
    from onnx_helpers import ort
    from oar.onnx.exporter import program_to_onnx
    main = oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main):
            x = oar.static.data("x", [3, 4], "float32")
            y = x + oar.linspace(0, 1, 4, dtype="float32") + oar.eye(3, 4) + oar.full([3, 4], 2.0) + \
                oar.arange(4, dtype="float32")
    finally:
        oar.disable_static()
    assert {"linspace", "eye", "full", "arange"} <= {o.type for o in main.global_block().ops}
    model = program_to_onnx(main, [{"name": "x", "shape": [3, 4], "dtype": "float32"}],
                            [{"name": y.name, "shape": [3, 4], "dtype": "float32"}])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = X + np.linspace(0, 1, 4) + np.eye(3, 4) + 2.0 + np.arange(4)
    np.testing.assert_allclose(sess.run(None, {"x": X})[0], want, rtol=1e-6)


def test_avg_pool_ceil_mode():
    check(lambda x: F.avg_pool2d(x, 2, ceil_mode=True), IMG, op="avg_pool2d")


def test_fused_linear_program():
    """The predictor's fuse_linear pass output (matmul + add + relu in one op) lowers too."""
    from onnx_helpers import ort
    from oar import passes
    from oar.onnx.exporter import inference_program, program_to_onnx
    w, b = oar.to_tensor(f32(4, 5)), oar.to_tensor(f32(5))

    def fn(x):
        return F.relu(oar.matmul(x, w) + b)

    spec = [oar.static.InputSpec([None, 4], "float32", "x")]
    prog, scope, ins, outs = inference_program(oar.jit.to_static(fn, input_spec=spec), spec)
    prog = passes.apply_passes(prog, ["fuse_linear"], keep=[o["name"] for o in outs], scope=scope)
    assert "fused_linear" in {o.type for o in prog.global_block().ops}
    sess = ort.InferenceSession(program_to_onnx(prog, ins, outs, scope=scope).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": X})[0], fn(oar.to_tensor(X)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fuse", [False, True], ids=["sigmoid_op", "fused_add_sigmoid"])
def test_sigmoid_keeps_small_values(fuse):
    """Lowered as the kernel's ``1 / (1 + exp(-x))``: ONNX Runtime's Sigmoid keeps only about 6e-8 of absolute
    precision in float32, which YOLOv3's IoU-aware scores (``sigmoid ** 0.4``, then a log) turned into differences
    of 10."""
    from onnx_helpers import ort
    from oar import passes
    from oar.onnx.exporter import inference_program, program_to_onnx
    w, b = oar.to_tensor(np.array([[1.0, 2.0, 4.0]], np.float32)), oar.to_tensor(np.array([0.0, 0.5, -1.0], "f4"))

    def fn(x):
        return F.sigmoid(oar.matmul(x, w) + b)

    x = np.array([[-4.3], [-7.5], [-9.0], [2.0]], np.float32)
    spec = [oar.static.InputSpec([None, 1], "float32", "x")]
    prog, scope, ins, outs = inference_program(oar.jit.to_static(fn, input_spec=spec), spec)
    if fuse:
        prog = passes.apply_passes(prog, ["fuse_elewise_add_act"], keep=[o["name"] for o in outs], scope=scope)
        assert "fused_elemwise_add_act" in {o.type for o in prog.global_block().ops}
    sess = ort.InferenceSession(program_to_onnx(prog, ins, outs, scope=scope).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    exact = 1 / (1 + np.exp(-(x.astype(np.float64) @ w.numpy().astype(np.float64) + b.numpy())))
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], exact, rtol=3e-7, atol=0)
