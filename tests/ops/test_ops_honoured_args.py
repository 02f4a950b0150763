"""Op arguments that were accepted and ignored (issue 25): put_along_axis(include_self=), out= of logical and
bitwise ops, seed= of random ops."""
import numpy as np
import pytest

import oar


def test_put_along_axis_include_self_false_leaves_the_written_positions_out():
    x = oar.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
    i = oar.to_tensor([[0, 0], [2, 2]])
    v = oar.to_tensor([[10.0, 20.0], [30.0, 40.0]])

    def put(reduce, include_self):
        return oar.put_along_axis(x, i, v, 1, reduce=reduce, include_self=include_self, broadcast=False)
    # the values Paddle 3.3.1 gives
    assert put("add", True).numpy().tolist() == [[31.0, 2.0, 3.0], [4.0, 5.0, 76.0]]
    assert put("add", False).numpy().tolist() == [[30.0, 2.0, 3.0], [4.0, 5.0, 70.0]]
    assert put("mul", False).numpy().tolist() == [[200.0, 2.0, 3.0], [4.0, 5.0, 1200.0]]
    assert put("assign", False).numpy().tolist() == put("assign", True).numpy().tolist()
    put("add", False).sum().backward()  # the overwritten positions of x get no gradient
    assert x.grad.numpy().tolist() == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]


@pytest.mark.parametrize("name, a, b, dtype", [("logical_and", [True, True], [True, False], "bool"),
                                               ("logical_or", [True, False], [False, False], "bool"),
                                               ("logical_xor", [True, False], [True, True], "bool"),
                                               ("bitwise_and", [12, 10], [10, 6], "int64"),
                                               ("bitwise_or", [12, 10], [10, 6], "int64"),
                                               ("bitwise_xor", [12, 10], [10, 6], "int64")])
def test_binary_logic_ops_write_into_out(name, a, b, dtype):
    fn = getattr(oar, name)
    out = oar.zeros([2], dtype)
    res = fn(oar.to_tensor(a), oar.to_tensor(b), out=out)
    assert res is out and out.numpy().tolist() == fn(oar.to_tensor(a), oar.to_tensor(b)).numpy().tolist()


def test_unary_logic_ops_write_into_out_and_check_it():
    out = oar.zeros([2], "bool")
    assert oar.logical_not(oar.to_tensor([True, False]), out=out) is out and out.numpy().tolist() == [False, True]
    out = oar.zeros([2], "int64")
    oar.bitwise_not(oar.to_tensor([0, 5]), out=out)
    assert out.numpy().tolist() == [-1, -6]
    with pytest.raises(ValueError, match=r"logical_and: out is int64\[2\] but the result is bool\[2\]"):
        oar.logical_and(oar.to_tensor([True, True]), oar.to_tensor([True, False]), out=oar.zeros([2], "int64"))
    with pytest.raises(TypeError, match="out must be a Tensor"):
        oar.bitwise_not(oar.to_tensor([1]), out=np.zeros(1))


def test_seed_makes_random_ops_repeat():
    for draw in (lambda s: oar.uniform([4], seed=s), lambda s: oar.gaussian([4], seed=s),
                 lambda s: oar.zeros([4]).uniform_(seed=s)):
        oar.seed(1)
        a = draw(7).numpy()
        oar.seed(2)  # the global generator does not matter to a seeded op
        assert np.array_equal(a, draw(7).numpy())
        assert not np.array_equal(a, draw(8).numpy())
        assert not np.array_equal(draw(0).numpy(), draw(0).numpy())  # 0: the global generator
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        oar.uniform([2], seed=-1)


def test_seeded_random_op_repeats_in_every_program_run():
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            u = oar.uniform([3], seed=5)
        exe = oar.static.Executor()
        first, = exe.run(main, fetch_list=[u])
        second, = exe.run(main, fetch_list=[u])
    finally:
        oar.disable_static()
    assert np.array_equal(first, second)


def test_scale_applies_act_and_unstack_checks_num():
    x = oar.to_tensor([1.0, -2.0])
    assert oar.scale(x, 2.0, act="relu").numpy().tolist() == [2.0, 0.0]
    np.testing.assert_allclose(oar.scale(x, 1.0, 1.0, act="sigmoid").numpy(), 1 / (1 + np.exp(-np.array([2.0, -1.0]))),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="act must be None or the name of an activation"):
        oar.scale(x, act="nope")
    assert len(oar.unstack(oar.ones([3, 2]), num=3)) == 3
    with pytest.raises(ValueError, match="unstack: num=2 but the input has 3 entries"):
        oar.unstack(oar.ones([3, 2]), num=2)


def test_distribution_sample_seed():
    from oar.distribution import Normal, Uniform
    for d in (Normal(oar.zeros([3]), oar.ones([3])), Uniform(0.0, 1.0)):
        assert np.array_equal(d.sample([4], seed=3).numpy(), d.sample([4], seed=3).numpy())
        assert not np.array_equal(d.sample([4]).numpy(), d.sample([4]).numpy())


def test_executor_run_rejects_a_misspelt_keyword():
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            y = oar.static.data("x", [2]) * 2.0
        exe = oar.static.Executor()
        with pytest.raises(TypeError, match="fetch_lists"):
            exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_lists=[y])
        assert exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y], use_prune=True)[0].tolist() == [2, 2]
    finally:
        oar.disable_static()
