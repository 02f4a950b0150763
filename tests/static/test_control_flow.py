"""cond / while_loop / case / switch_case / tensor arrays: values and gradients against eager and NumPy."""
import numpy as np
import pytest

import oar

R = np.random.default_rng(0)


def run(main, feed, fetch):
    return oar.static.Executor().run(main, feed=feed, fetch_list=fetch)


def test_cond_both_branches_and_nested_outputs(prog):
    main, _ = prog
    a = oar.static.data("a", [None, 3])
    b = oar.static.data("b", [None, 3])
    out = oar.static.nn.cond(a.sum() < b.sum(), lambda: {"s": a + b, "t": (a * 2, 7)},
                             lambda: {"s": a - b, "t": (b * 3, 7)})
    assert out["t"][1] == 7
    x, y = R.random((2, 3)).astype("float32"), R.random((2, 3)).astype("float32")
    for p, q in ((x, y), (y, x)):
        s, t = run(main, {"a": p, "b": q}, [out["s"], out["t"][0]])
        small = p.sum() < q.sum()
        np.testing.assert_allclose(s, p + q if small else p - q, rtol=1e-6)
        np.testing.assert_allclose(t, p * 2 if small else q * 3, rtol=1e-6)


def test_cond_mismatch_errors(prog):
    a = oar.static.data("a", [3])
    with pytest.raises(ValueError, match="same structure"):
        oar.static.nn.cond(a.sum() > 0, lambda: [a, a], lambda: a)
    with pytest.raises(ValueError, match="differs"):
        oar.static.nn.cond(a.sum() > 0, lambda: None, lambda: 2)
    # different Python numbers become constants of one Variable output
    v = oar.static.nn.cond(a.sum() > 0, lambda: 1, lambda: 2)
    got = oar.static.Executor().run(prog[0], feed={"a": -np.ones(3, "float32")}, fetch_list=[v])[0]
    assert got.tolist() == 2


def test_cond_none_branch_and_shape_merge(prog):
    main, _ = prog
    a = oar.static.data("a", [4])
    assert oar.static.nn.cond(a.sum() > 0, lambda: None, None) is None
    out = oar.static.nn.cond(a.sum() > 0, lambda: a[:2], lambda: a[:3])
    assert out.shape == [-1]
    v = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(run(main, {"a": v}, [out])[0], v[:2])
    np.testing.assert_array_equal(run(main, {"a": -v}, [out])[0], -v[:3])


def test_cond_eager():
    x = oar.to_tensor([1.0, 2.0])
    assert oar.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: x).numpy().tolist() == [2.0, 4.0]


def test_cond_gradient(prog):
    main, _ = prog
    x = oar.static.data("x", [None, 3])
    x.stop_gradient = False
    w = oar.static.data("w", [3])
    w.stop_gradient = False
    y = oar.static.nn.cond(x.sum() > 0, lambda: oar.tanh(x * w), lambda: x * x * w)
    loss = y.sum()
    gx, gw = oar.static.gradients([loss], [x, w])
    assert gx.name == "x@GRAD" and gw.name == "w@GRAD"
    for sign in (1, -1):
        xv = (sign * R.random((2, 3))).astype("float32")
        wv = R.random(3).astype("float32")
        got = run(main, {"x": xv, "w": wv}, [gx, gw])
        oar.disable_static()
        X, W = oar.to_tensor(xv, stop_gradient=False), oar.to_tensor(wv, stop_gradient=False)
        Y = oar.tanh(X * W) if sign > 0 else X * X * W
        ex = oar.grad(Y.sum(), [X, W])
        oar.enable_static()
        for g, e in zip(got, ex):
            np.testing.assert_allclose(g, e.numpy(), rtol=1e-5)


def test_case_and_switch_case(prog):
    main, _ = prog
    i = oar.static.data("i", [1], "int64")
    x = oar.static.data("x", [2])
    sw = oar.static.nn.switch_case(i, {0: lambda: x + 1, 2: lambda: x * 10}, default=lambda: x - 1)
    cs = oar.static.nn.case([(i == 0, lambda: x + 100), (i == 1, lambda: x + 200)], default=lambda: x)
    xv = np.array([1.0, 2.0], "float32")
    for k, want_sw, want_cs in ((0, xv + 1, xv + 100), (1, xv - 1, xv + 200), (2, xv * 10, xv), (5, xv - 1, xv)):
        a, b = run(main, {"i": np.array([k]), "x": xv}, [sw, cs])
        np.testing.assert_allclose(a, want_sw)
        np.testing.assert_allclose(b, want_cs)


def test_while_loop_values_and_gradient(prog):
    main, _ = prog
    x = oar.static.data("x", [None, 3])
    x.stop_gradient = False
    n = oar.static.data("n", [1], "int64")
    i0 = oar.zeros([1], "int64")
    i, s = oar.static.nn.while_loop(lambda i, s: i < n, lambda i, s: [i + 1, oar.sin(s) * x], [i0, x])
    loss = s.sum()
    gx, = oar.static.gradients([loss], [x])
    xv = R.random((2, 3)).astype("float32")
    for k in (0, 1, 4):
        iv, sv, gv = run(main, {"x": xv, "n": np.array([k])}, [i, s, gx])
        oar.disable_static()
        X = oar.to_tensor(xv, stop_gradient=False)
        S = X
        for _ in range(k):
            S = oar.sin(S) * X
        S.sum().backward()
        oar.enable_static()
        assert iv.tolist() == [k]
        np.testing.assert_allclose(sv, S.numpy(), rtol=1e-6)
        np.testing.assert_allclose(gv, X.grad.numpy(), rtol=1e-5)


def test_while_loop_shape_changes(prog):
    main, _ = prog
    x = oar.static.data("x", [1])
    i0 = oar.zeros([1], "int64")
    _, out = oar.static.nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, oar.concat([y, y])], [i0, x])
    assert out.shape == [-1]
    np.testing.assert_allclose(run(main, {"x": np.array([2.0], "float32")}, [out])[0], np.full([8], 2.0))


def test_while_loop_eager():
    i, s = oar.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * 2],
                                    [oar.to_tensor(0), oar.to_tensor(1.0)])
    assert int(i) == 3 and float(s) == 8.0


def test_tensor_array_in_loop(prog):
    main, _ = prog
    x = oar.static.data("x", [2])
    arr = oar.tensor.create_array("float32")
    i0 = oar.zeros([1], "int64")

    def body(i, a):
        oar.tensor.array_write(x * oar.cast(i, "float32"), i, a)
        return [i + 1, a]
    _, arr2 = oar.static.nn.while_loop(lambda i, a: i < 4, body, [i0, arr])
    n = oar.tensor.array_length(arr2)
    third = oar.tensor.array_read(arr2, oar.full([1], 2, "int64"))
    stacked = oar.tensor.array_to_tensor(arr2)
    xv = np.array([1.0, 2.0], "float32")
    nv, tv, sv = run(main, {"x": xv}, [n, third, stacked])
    assert nv.tolist() == [4]
    np.testing.assert_allclose(tv, xv * 2)
    np.testing.assert_allclose(sv, np.stack([xv * k for k in range(4)]))


def test_tensor_array_eager():
    arr = oar.tensor.create_array("float32")
    oar.tensor.array_write(oar.to_tensor([1.0]), oar.to_tensor([0]), arr)
    oar.tensor.array_write(oar.to_tensor([2.0]), 1, arr)
    assert oar.tensor.array_length(arr).tolist() == [2]
    assert oar.tensor.array_read(arr, 1).tolist() == [2.0]


def test_print_and_assert(prog, capsys):
    main, _ = prog
    x = oar.static.data("x", [2])
    oar.static.Print(x, message="hello")
    oar.static.nn.Assert(x.sum() > 0, [x])
    y = x * 2
    out = run(main, {"x": np.array([1.0, 2.0], "float32")}, [y])[0]
    np.testing.assert_allclose(out, [2.0, 4.0])
    assert "hello" in capsys.readouterr().out
    with pytest.raises(ValueError, match="Assert"):
        run(main, {"x": np.array([-1.0, -2.0], "float32")}, [y])


def test_print_first_n_and_format(prog, capsys):
    main, _ = prog
    x = oar.static.data("x", [3])
    oar.static.Print(x, first_n=2, message="seen", summarize=2)
    y = x + 1
    for _ in range(4):
        run(main, {"x": np.array([1.0, 2.0, 3.0], "float32")}, [y])
    out = capsys.readouterr().out
    assert out.count("seen") == 2
    assert "Variable: x" in out and "  - shape: [3]" in out and "  - dtype: float32" in out
    assert "  - data: [1.0 2.0 ...]" in out


def test_assert_eager():
    with pytest.raises(ValueError):
        oar.static.nn.Assert(oar.to_tensor(False))


def test_control_flow_program_round_trips_through_json(prog):
    import json
    from oar.graph.serialize import program_from_dict, program_to_dict
    main, _ = prog
    x = oar.static.data("x", [None, 3])
    x.stop_gradient = False
    y = oar.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: x * 3)
    _, s = oar.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * x], [oar.zeros([1], "int64"), x])
    total = (y + s).sum()
    g, = oar.static.gradients([total], [x])
    p = program_from_dict(json.loads(json.dumps(program_to_dict(main))))
    assert str(p) == str(main)
    xv = np.ones((2, 3), "float32")
    for q in (main, p, main.clone()):
        np.testing.assert_allclose(run(q, {"x": xv}, [g.name])[0], np.full((2, 3), 6.0))
    test = main.clone(for_test=True)  # the forward only: the gradient ops are pruned
    assert "x@GRAD" not in str(test) and test.num_blocks == 5 < main.num_blocks
    assert run(test, {"x": xv}, [total.name])[0] == 18.0  # 6 * (2 + 1)


@pytest.mark.parametrize("form", ["list_of_fns", "list_of_pairs", "dict_no_default"])
def test_switch_case_branch_forms(prog, form):
    main, _ = prog
    i = oar.static.data("i", [1], "int64")
    x = oar.static.data("x", [2])
    fns = [lambda: x + 1, lambda: x * 10, lambda: x - 1]
    branch_fns = {"list_of_fns": fns, "list_of_pairs": [(2, fns[2]), (0, fns[0]), (1, fns[1])],
                  "dict_no_default": {0: fns[0], 1: fns[1], 2: fns[2]}}[form]
    out = oar.static.nn.switch_case(i, branch_fns)  # no default: the largest key's fn
    xv = np.array([1.0, 2.0], "float32")
    for k, want in ((0, xv + 1), (1, xv * 10), (2, xv - 1), (7, xv - 1)):
        np.testing.assert_allclose(run(main, {"i": np.array([k]), "x": xv}, [out])[0], want)


def test_switch_case_and_case_argument_errors(prog):
    i = oar.static.data("i", [1], "int64")
    x = oar.static.data("x", [2])
    with pytest.raises(ValueError, match="key 1 appears more than once"):
        oar.static.nn.switch_case(i, [(1, lambda: x), (1, lambda: x + 1)])
    with pytest.raises(TypeError, match="int key and a callable"):
        oar.static.nn.switch_case(i, {"a": lambda: x})
    with pytest.raises(TypeError, match="branch_fns must be"):
        oar.static.nn.switch_case(i, lambda: x)
    with pytest.raises(TypeError, match="pair"):
        oar.static.nn.case([i == 0], default=lambda: x)
    # case without default: the last pair's fn is the default (its pred is not checked), as Paddle
    c = oar.static.nn.case([(i == 0, lambda: x + 1), (i == 5, lambda: x * 3)])
    got = run(prog[0], {"i": np.array([9]), "x": np.ones(2, "float32")}, [c])[0]
    np.testing.assert_allclose(got, [3.0, 3.0])


def test_cond_none_on_one_side_only_is_an_error(prog):
    a = oar.static.data("a", [3])
    with pytest.raises(ValueError, match="Variable in one branch and None"):
        oar.static.nn.cond(a.sum() > 0, lambda: a * 2, None)
    assert oar.static.nn.cond(a.sum() > 0, None, None) is None


def test_control_flow_kernels_name_their_op_outside_a_program():
    from oar.ops.registry import REGISTRY
    for name, api in (("cond", "cond"), ("while", "while_loop")):
        with pytest.raises(RuntimeError, match=f"the {name} op runs only inside a Program .*{api}"):
            REGISTRY[name].impl()
