"""Executor: feeds, fetches, pruning, persistable variables, errors with user source lines, buffer release."""
import numpy as np
import pytest

import oar
from oar.graph.executor import PlanCache, compile_program


def test_feed_any_variable_and_pruning(prog):
    main, _ = prog
    x = oar.static.data("x", [None, 2])
    h = x * 3
    y = h + 1
    z = oar.static.data("z", [1])  # not needed for y: need not be fed
    w = z * 2
    exe = oar.static.Executor()
    xv = np.ones([2, 2], "float32")
    np.testing.assert_allclose(exe.run(main, feed={"x": xv}, fetch_list=[y])[0], xv * 3 + 1)
    # feeding the intermediate h skips its producer
    np.testing.assert_allclose(exe.run(main, feed={h.name: xv * 10}, fetch_list=[h.name, y.name])[1], xv * 10 + 1)
    assert exe.run(main, feed={"z": np.ones([1], "float32")}, fetch_list=[w])[0].tolist() == [2.0]


def test_feed_errors_name_the_variable(prog):
    main, _ = prog
    x = oar.static.data("img", [None, 3])
    y = x + 1
    exe = oar.static.Executor()
    with pytest.raises(ValueError, match="shape of fed variable 'img'"):
        exe.run(main, feed={"img": np.ones([2, 4], "float32")}, fetch_list=[y])
    with pytest.raises(TypeError, match="img.*float32.*float64"):
        exe.run(main, feed={"img": np.ones([2, 3])}, fetch_list=[y])
    with pytest.raises(ValueError, match="img"):
        exe.run(main, feed={}, fetch_list=[y])


def test_kernel_error_names_op_and_user_line(prog):
    main, _ = prog
    a = oar.static.data("a", [None, 3])
    b = oar.static.data("b", [None, None])
    c = oar.matmul(a, b, transpose_y=True)  # the line the error must name
    exe = oar.static.Executor()
    with pytest.raises(ValueError) as e:
        exe.run(main, feed={"a": np.ones([2, 3], "float32"), "b": np.ones([4, 2], "float32")}, fetch_list=[c])
    msg = str(e.value)
    assert "matmul(x=a, y=b)" in msg
    assert f"{__file__}:{c.block.ops[-1].loc[1]}" in msg
    assert "c = oar.matmul(a, b, transpose_y=True)" in msg


def test_persistable_scope_and_bound(prog):
    main, startup = prog
    w = oar.static.create_parameter([2], "float32", name="w_param")
    x = oar.static.data("x", [2])
    y = x * w
    exe = oar.static.Executor()
    scope = oar.static.Scope()
    with oar.static.scope_guard(scope):
        with pytest.raises(RuntimeError, match="startup"):
            exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
        exe.run(startup)
        got = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])[0]
        np.testing.assert_allclose(got, np.array(scope.find_var("w_param").get_tensor()))
    # a scope may hold a live eager Tensor: its current array is read at every run
    t = oar.Tensor(np.array([5.0, 6.0], "float32"))
    scope.vars["w_param"] = t
    got = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y], scope=scope)[0]
    np.testing.assert_allclose(got, [5.0, 6.0])
    t._data = np.array([7.0, 8.0], "float32")
    got = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y], scope=scope)[0]
    np.testing.assert_allclose(got, [7.0, 8.0])


def test_persistable_write_back(prog):
    main, startup = prog
    counter = oar.static.create_parameter([1], "float32", name="counter",
                                          default_initializer=oar.nn.initializer.Constant(0.0))
    oar.assign(counter + 1, counter)
    exe = oar.static.Executor()
    scope = oar.static.Scope()
    exe.run(startup, scope=scope)
    for _ in range(3):
        exe.run(main, scope=scope)  # no fetch: the write is a side effect and still runs
    assert np.array(scope.find_var("counter").get_tensor()).tolist() == [3.0]


def test_plan_cached_per_version_and_dead_buffers_released(prog):
    main, _ = prog
    x = oar.static.data("x", [1000])
    h = x
    for _ in range(20):
        h = h * 1.0001 + 1.0
    plans = PlanCache()
    c1 = compile_program(main, ("x",), (h.name,), plans)
    assert compile_program(main, ("x",), (h.name,), plans) is c1
    assert c1.fn.source.count("del ") >= 20  # every intermediate is released after its last use
    _ = h + 1
    assert compile_program(main, ("x",), (h.name,), plans) is not c1  # the program changed: recompiled
    assert "_plans" not in vars(main)  # the caller owns its plans, not the program
    out = oar.static.Executor().run(main, feed={"x": np.zeros(1000, "float32")}, fetch_list=[h])[0]
    ref = np.zeros(1000, "float32")
    for _ in range(20):
        ref = ref * np.float32(1.0001) + np.float32(1.0)
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_peak_memory_below_sum_of_intermediates(prog):
    import tracemalloc
    main, _ = prog
    x = oar.static.data("x", [1 << 18])
    h = x
    for _ in range(30):
        h = oar.exp(h * 0.0)
    exe = oar.static.Executor()
    feed = {"x": np.zeros(1 << 18, "float32")}
    exe.run(main, feed=feed, fetch_list=[h])
    tracemalloc.start()
    exe.run(main, feed=feed, fetch_list=[h])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    total = 60 * (1 << 18) * 4
    assert peak < total / 5


def test_return_numpy_false_gives_tensors(prog):
    main, _ = prog
    x = oar.static.data("x", [2])
    y = x + 1
    out = oar.static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y], return_numpy=False)
    assert isinstance(out[0], oar.Tensor)


def test_constant_ops_are_folded_and_fetches_stay_writable(prog):
    main, _ = prog
    c = oar.full([2, 3], 2.0)
    d = c * 3                      # all inputs constant: computed once, when the plan is compiled
    x = oar.static.data("x", [None, 3])
    y = x + d
    exe = oar.static.Executor()
    xv = np.ones([2, 3], "float32")
    plan = compile_program(main, ("x",), (d.name, y.name, c.name)).fn.source
    assert plan.count("(") == 3 and "k2(" not in plan  # def plan(...), return (...), and the one add kernel call
    got_d, got_y, got_c = exe.run(main, feed={"x": xv}, fetch_list=[d, y, c])
    np.testing.assert_array_equal(got_d, np.full([2, 3], 6.0))
    np.testing.assert_array_equal(got_y, np.full([2, 3], 7.0))
    assert got_d.flags.writeable and got_c.flags.writeable  # a fetched constant is the caller's to modify
    got_d[...] = -1
    got_c[...] = -1
    again = exe.run(main, feed={"x": xv}, fetch_list=[d, y])
    np.testing.assert_array_equal(again[0], np.full([2, 3], 6.0))  # the folded value was not changed
    np.testing.assert_array_equal(again[1], np.full([2, 3], 7.0))


def test_folding_stops_at_a_redefined_name_and_random_ops(prog):
    main, _ = prog
    x = oar.static.data("x", [3])
    a = oar.full([3], 1.0)
    before = a + 1                 # reads the constant a
    oar.assign(x, a)               # a is overwritten by a run-time value: no longer a constant
    after = a * 2
    r = oar.rand([4]) + 1.0        # random: drawn on every run, never folded
    exe = oar.static.Executor()
    xv = np.array([5.0, 6.0, 7.0], "float32")
    b, c, r1 = exe.run(main, feed={"x": xv}, fetch_list=[before, after, r])
    np.testing.assert_array_equal(b, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(c, xv * 2)
    r2 = exe.run(main, feed={"x": xv}, fetch_list=[r])[0]
    assert not np.array_equal(r1, r2)


def test_run_defaults_fetch_by_name_and_tensors(prog):
    main, startup = prog
    assert oar.static.default_main_program() is main and oar.static.default_startup_program() is startup
    x = oar.static.data("x", [2])
    y = x * 2 + 1
    exe = oar.static.Executor(oar.CPUPlace())
    xv = np.array([1.0, 2.0], "float32")
    by_var, by_name = exe.run(feed={"x": xv}, fetch_list=[y, y.name])  # program=None: the default main program
    np.testing.assert_array_equal(by_var, [3.0, 5.0])
    np.testing.assert_array_equal(by_name, by_var)
    assert exe.run(main, feed={"x": xv}, fetch_list=y)[0].tolist() == [3.0, 5.0]  # a single Variable
    assert exe.run(main, feed={"x": xv}) == []
    t, = exe.run(main, feed={"x": xv}, fetch_list=[y], return_numpy=False)
    assert isinstance(t, oar.Tensor) and t.tolist() == [3.0, 5.0] and t.dtype == oar.float32
    with pytest.raises(ValueError, match="fetch 'nope' is not a variable"):
        exe.run(main, feed={"x": xv}, fetch_list=["nope"])
    with pytest.raises(TypeError, match="fetch_list items"):
        exe.run(main, feed={"x": xv}, fetch_list=[3])


def test_kernel_error_inside_a_loop_body_names_the_inner_op(prog):
    main, _ = prog
    a = oar.static.data("a", [None, 3])
    b = oar.static.data("b", [None, None])
    i0 = oar.zeros([1], "int64")
    _, out = oar.static.nn.while_loop(
        lambda i, s: i < 2,
        lambda i, s: [i + 1, oar.static.nn.cond(s.sum() > 0, lambda: oar.matmul(s, b), lambda: s)],  # failing line
        [i0, a])
    exe = oar.static.Executor()
    with pytest.raises(ValueError) as e:
        exe.run(main, feed={"a": np.ones([2, 3], "float32"), "b": np.ones([4, 2], "float32")}, fetch_list=[out])
    msg = str(e.value)
    assert "inner dimensions" in msg and "= matmul(x=while.x_" in msg
    assert "lambda: oar.matmul(s, b)" in msg and f"{__file__}:" in msg


def test_an_executor_owns_its_plans_and_dropping_the_program_frees_them(prog):
    import gc
    import weakref
    main, _ = prog
    x = oar.static.data("x", [2])
    y = x * 2.0
    exe = oar.static.Executor()
    exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    assert "_plans" not in vars(main) and len(exe._plans._plans) == 1
    other = oar.static.Program()
    with oar.static.program_guard(other):
        z = oar.static.data("z", [2]) + 1.0
    exe.run(other, feed={"z": np.ones(2, "float32")}, fetch_list=[z])
    ref = weakref.ref(other)
    del other, z
    exe._plans.max_programs = 1   # the next new program evicts the oldest
    third = oar.static.Program()
    with oar.static.program_guard(third):
        w = oar.static.data("w", [2]) + 1.0
    exe.run(third, feed={"w": np.ones(2, "float32")}, fetch_list=[w])
    gc.collect()
    assert ref() is None and len(exe._plans._plans) == 1
