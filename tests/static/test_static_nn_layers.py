"""Paddle's static layer functions (`paddle.static.nn.conv2d`, `batch_norm`, `layer_norm`, `embedding`,
`conv2d_transpose`, `bilinear_tensor_product`, ...): parameter names and shapes as Paddle 3.3.1's static functions
make them (FLAGS_enable_pir_api=0), values equal to the eager functional forms with the same weights."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar.base import unique_name

# Paddle 3.3.1: conv2d(x, 4, 3, act='relu') -> batch_norm -> layer_norm, embedding [10, 4], conv2d_transpose(x, 2,
# filter_size=3), bilinear_tensor_product(a, b, 4), each with fresh unique names
PADDLE_PARAMS = [("conv2d_0.w_0", [4, 3, 3, 3]), ("conv2d_0.b_0", [4]), ("batch_norm_0.w_0", [4]),
                 ("batch_norm_0.b_0", [4]), ("batch_norm_0.w_1", [4]), ("batch_norm_0.w_2", [4]),
                 ("layer_norm_0.w_0", [144]), ("layer_norm_0.b_0", [144]), ("embedding_0.w_0", [10, 4]),
                 ("conv2d_transpose_0.w_0", [3, 2, 3, 3]), ("conv2d_transpose_0.b_0", [2]),
                 ("bilinear_tensor_product_0.w_0", [4, 3, 2]), ("bilinear_tensor_product_0.b_0", [1, 4])]


def test_static_layer_functions_match_paddle_names_and_eager_values():
    snn = oar.static.nn
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with unique_name.guard(), oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None, 3, 8, 8])
            ids = oar.static.data("ids", [None, 1], "int64")
            a, b = oar.static.data("a", [None, 3]), oar.static.data("b", [None, 2])
            y = snn.conv2d(x, 4, 3, act="relu")
            z = snn.batch_norm(y)
            w = snn.layer_norm(z)
            e = snn.embedding(ids, [10, 4])
            t = snn.conv2d_transpose(x, 2, filter_size=3)
            bt = snn.bilinear_tensor_product(a, b, 4)
        assert [(p.name, list(p.shape)) for p in main.all_parameters()] == PADDLE_PARAMS
        assert [list(v.shape) for v in (w, e, t, bt)] == [[-1, 4, 6, 6], [-1, 1, 4], [-1, 2, 10, 10], [-1, 4]]
        exe = oar.static.Executor()
        scope = oar.static.Scope()
        rng = np.random.default_rng(0)
        feed = {"x": rng.standard_normal((2, 3, 8, 8)).astype("float32"), "ids": np.array([[3], [9]]),
                "a": rng.standard_normal((2, 3)).astype("float32"), "b": rng.standard_normal((2, 2)).astype("float32")}
        with oar.static.scope_guard(scope):
            exe.run(startup)
            got = exe.run(main, feed=feed, fetch_list=[w, e, t, bt])
    finally:
        oar.disable_static()
    p = {n: oar.to_tensor(scope.array(n)) for n, _ in PADDLE_PARAMS}
    xt = oar.to_tensor(feed["x"])
    conv = F.relu(F.conv2d(xt, p["conv2d_0.w_0"], p["conv2d_0.b_0"]))
    bn = F.batch_norm(conv, p["batch_norm_0.w_1"], p["batch_norm_0.w_2"], p["batch_norm_0.w_0"],
                      p["batch_norm_0.b_0"], training=True)
    ln = F.layer_norm(bn, [4, 6, 6], p["layer_norm_0.w_0"], p["layer_norm_0.b_0"])
    want = [ln, F.embedding(oar.to_tensor(feed["ids"]), p["embedding_0.w_0"]),
            F.conv2d_transpose(xt, p["conv2d_transpose_0.w_0"], p["conv2d_transpose_0.b_0"]),
            F.bilinear(oar.to_tensor(feed["a"]), oar.to_tensor(feed["b"]), p["bilinear_tensor_product_0.w_0"],
                       p["bilinear_tensor_product_0.b_0"])]
    for g, wt in zip(got, want):
        np.testing.assert_allclose(g, wt.numpy(), rtol=1e-5, atol=1e-5)


def test_static_layer_functions_refuse_what_they_cannot_do():
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            x = oar.static.data("x", [None, 3, 4, 4])
            with pytest.raises(NotImplementedError, match="moving statistics"):
                oar.static.nn.batch_norm(x, moving_mean_name="m")
            with pytest.raises(NotImplementedError, match="parameter server"):
                oar.static.nn.embedding(oar.static.data("i", [None, 1], "int64"), [4, 2], is_distributed=True)
            with pytest.raises(ValueError, match="filter_size"):
                oar.static.nn.conv2d_transpose(x, 2, output_size=[6, 6])
            y = oar.static.nn.conv3d(oar.static.data("v", [None, 2, 4, 4, 4]), 3, 3, groups=None)
            assert list(y.shape) == [-1, 3, 2, 2, 2]
            y = oar.static.nn.conv3d_transpose(oar.static.data("v2", [None, 2, 2, 2, 2]), 4, filter_size=2, stride=2)
            assert list(y.shape) == [-1, 4, 4, 4, 4]
    finally:
        oar.disable_static()
