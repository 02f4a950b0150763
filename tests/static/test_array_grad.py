"""Gradients through tensor arrays (array_write / array_read / array_to_tensor), through `while_loop` bodies that
append to arrays or assign outer variables, and through lists that dy2static turns into tensor arrays: static
gradients equal eager gradients of the same Python code."""
import numpy as np
import pytest

import oar

R = np.random.default_rng(1)


def run(main, feed, fetch):
    return oar.static.Executor().run(main, feed=feed, fetch_list=fetch)


def eager_grad(fn, *arrays):
    ts = [oar.to_tensor(a, stop_gradient=False) for a in arrays]
    loss = fn(*ts)
    loss.backward()
    return float(loss.numpy()), [t.grad.numpy() for t in ts]


def test_top_level_array_ops_gradient(prog):
    main, _ = prog
    a_np, b_np = R.random((2, 3)).astype("float32"), R.random((2, 3)).astype("float32")
    a = oar.static.data("a", [2, 3])
    b = oar.static.data("b", [2, 3])
    a.stop_gradient = b.stop_gradient = False
    arr = oar.tensor.create_array("float32", [a])
    oar.tensor.array_write(b * 2.0, 1, arr)
    oar.tensor.array_write(a * b, 2, arr)
    oar.tensor.array_write(b, 0, arr)                  # overwrites a: a only reaches the loss through a * b
    r = oar.tensor.array_read(arr, 1)
    cat = oar.tensor.array_to_tensor(arr, axis=1, use_stack=False)
    st = oar.tensor.array_to_tensor(arr, axis=0, use_stack=True)
    loss = (cat * cat).sum() + (st.sum(0) * r).sum()
    ga, gb = oar.static.gradients([loss], [a, b])
    lv, gav, gbv = run(main, {"a": a_np, "b": b_np}, [loss, ga, gb])

    def ref(a, b):
        xs = [b, b * 2.0, a * b]
        cat = oar.concat(xs, axis=1)
        return (cat * cat).sum() + (oar.stack(xs).sum(0) * xs[1]).sum()
    oar.disable_static()
    try:
        le, (gae, gbe) = eager_grad(ref, a_np, b_np)
    finally:
        oar.enable_static()
    np.testing.assert_allclose(lv, le, rtol=1e-5)
    np.testing.assert_allclose(gav, gae, rtol=1e-5)
    np.testing.assert_allclose(gbv, gbe, rtol=1e-5)


def _loop_ref(x, n):
    xs, s = [], oar.zeros([2])
    for k in range(n):
        s = s * 0.5 + x * float(k + 1)
        xs.append(s * x)
    st = oar.stack(xs)
    return (st * st).sum() + xs[1].sum()


@pytest.mark.parametrize("n", [2, 3, 5])
def test_while_loop_appends_then_stack(prog, n):
    main, _ = prog
    x_np = R.random(2).astype("float32") + 0.5
    x = oar.static.data("x", [2])
    x.stop_gradient = False
    nv = oar.static.data("n", [1], "int64")

    def body(i, s, arr):
        s = s * 0.5 + x * (oar.cast(i, "float32") + 1.0)
        oar.tensor.array_write(s * x, i, arr)
        return [i + 1, s, arr]
    # s starts as a constant (stop_gradient): it needs a gradient from the first iteration on
    _, _, arr = oar.static.nn.while_loop(lambda i, s, a: i < nv, body,
                                         [oar.zeros([1], "int64"), oar.zeros([2]), oar.tensor.create_array("float32")])
    st = oar.tensor.array_to_tensor(arr)
    loss = (st * st).sum() + oar.tensor.array_read(arr, oar.full([1], 1, "int64")).sum()
    gx, = oar.static.gradients([loss], [x])
    lv, gv = run(main, {"x": x_np, "n": np.array([n])}, [loss, gx])
    oar.disable_static()
    try:
        le, (ge,) = eager_grad(lambda t: _loop_ref(t, n), x_np)
    finally:
        oar.enable_static()
    np.testing.assert_allclose(lv, le, rtol=1e-5)
    np.testing.assert_allclose(gv, ge, rtol=1e-5)


def test_while_body_assigns_outer_variables(prog):
    """Carried outer variables (assigned in the body, not loop vars) flow backwards through the iterations."""
    main, _ = prog
    x_np = R.random(3).astype("float32") + 0.5
    x = oar.static.data("x", [3])
    x.stop_gradient = False
    acc = oar.assign(x * 1.0)                  # an outer variable the body overwrites
    arr = oar.tensor.create_array("float32")   # an outer array the body appends to

    def body(i):
        oar.assign(acc * acc * 0.5 + x, output=acc)   # reads the old value, then overwrites it
        oar.tensor.array_write(acc * 2.0, i, arr)
        return [i + 1]
    oar.static.nn.while_loop(lambda i: i < 3, body, [oar.zeros([1], "int64")])
    loss = acc.sum() + (oar.tensor.array_to_tensor(arr) ** 2).sum()
    gx, = oar.static.gradients([loss], [x])
    lv, gv = run(main, {"x": x_np}, [loss, gx])

    def ref(x):
        acc, xs = x * 1.0, []
        for _ in range(3):
            acc = acc * acc * 0.5 + x
            xs.append(acc * 2.0)
        return acc.sum() + (oar.stack(xs) ** 2).sum()
    oar.disable_static()
    try:
        le, (ge,) = eager_grad(ref, x_np)
    finally:
        oar.enable_static()
    np.testing.assert_allclose(lv, le, rtol=1e-5)
    np.testing.assert_allclose(gv, ge, rtol=1e-5)


def test_zero_iteration_loop_gradient(prog):
    main, _ = prog
    x = oar.static.data("x", [2])
    x.stop_gradient = False
    acc = oar.assign(x * 3.0)
    oar.static.nn.while_loop(lambda i: i < 0, lambda i: [oar.assign(acc * acc, output=acc), i + 1][1:],
                             [oar.zeros([1], "int64")])
    gx, = oar.static.gradients([acc.sum()], [x])
    np.testing.assert_allclose(run(main, {"x": np.ones(2, "float32")}, [gx])[0], [3.0, 3.0])


# ---- dy2static: lists in tensor loops become tensor arrays -------------------------------------------------------

def _list_in_while(x, n):
    xs = []
    i = oar.zeros([1], "int64")
    while i < n:
        xs.append(x * (i.astype("float32") + 1.0))
        i = i + 1
    return (oar.stack(xs) ** 2).sum()


def _list_in_for_with_if(x, n):
    xs = [x]
    for k in range(n):
        y = xs[-1] * 0.5 if (xs[-1].sum() > 2.0) else xs[-1] * 1.5
        xs.append(y + x)
    return oar.stack(xs).sum() + xs[2].sum()


def _append_then_conditional_append(x, n):
    xs = [x]
    i = oar.zeros([1], "int64")
    while i < n:
        xs.append(xs[-1] * 0.5 + x)
        if xs[-1].sum() > 1.0:           # reads the array after this iteration's first write
            xs.append(xs[-1] * xs[-2])
        i = i + 1
    return oar.stack(xs).sum() + xs[-1].sum()


def _nested_loops(x, n):
    s = x * 1.0
    for k in range(n):
        j = oar.zeros([1], "int64")
        while j < k:
            s = s * 0.9 + x
            j = j + 1
    return s.sum()


@pytest.mark.parametrize("fn", [_list_in_while, _list_in_for_with_if, _append_then_conditional_append,
                                _nested_loops])
def test_dy2static_list_gradient_equals_eager(fn):
    x_np = np.array([0.3, 1.2], "float32")
    for n in (3, 4):
        le, (ge,) = eager_grad(lambda t: fn(t, oar.to_tensor([n])), x_np)
        st = oar.jit.to_static(fn)
        ls, (gs,) = eager_grad(lambda t: st(t, oar.to_tensor([n])), x_np)
        np.testing.assert_allclose(ls, le, rtol=1e-5)
        np.testing.assert_allclose(gs, ge, rtol=1e-5)
