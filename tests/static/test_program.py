"""Program API: blocks, variables, parameters, the version counter, clone / clone(for_test=True)."""
import numpy as np
import pytest

import oar
from oar.graph.executor import PlanCache, compile_program


def run(program, feed, fetch, scope=None):
    return oar.static.Executor().run(program, feed=feed, fetch_list=fetch, scope=scope)


def test_blocks_vars_and_parameters(prog):
    main, startup = prog
    x = oar.static.data("x", [None, 3])
    w = oar.static.create_parameter([3, 2], "float32", name="w")
    y = oar.matmul(x, w)
    assert main.num_blocks == 1 and main.global_block() is main.block(0) is main.blocks[0]
    out = oar.static.nn.cond(y.sum() > 0, lambda: y * 2, lambda: y - 1)
    assert main.num_blocks == 3
    assert main.block(1).parent_idx == 0 and main.block(2).parent.idx == 0 and main.global_block().parent is None
    assert main.current_block() is main.global_block()  # back at the top after tracing the branches
    names = [v.name for v in main.list_vars()]
    assert names[:2] == ["x", "w"] and out.name in names
    assert any(n in main.block(1).vars for n in names)  # sub-block variables are listed too
    assert [p.name for p in main.all_parameters()] == ["w"]
    assert main.global_block().var("w") is w and main.block(1).var("x") is x  # lookup reaches the parent
    with pytest.raises(KeyError, match="'nope'"):
        main.block(1).var("nope")
    assert "w" in startup.global_block().vars  # its initialiser lives in the startup program


def test_version_counter_and_plan_cache(prog):
    main, _ = prog
    x = oar.static.data("x", [2])
    v0 = main.version
    y = oar.scale(x, 2.0)
    v1 = main.version
    assert v1 > v0
    xv = np.array([1.0, 2.0], "float32")
    plans = PlanCache()
    plan = compile_program(main, ("x",), (y.name,), plans)
    np.testing.assert_allclose(run(main, {"x": xv}, [y])[0], xv * 2)
    op = main.global_block().ops[-1]
    assert op.attr("scale") == 2.0 and op.has_attr("bias")
    with pytest.raises(KeyError, match="'scale' has no attribute 'nope'"):
        op.attr("nope")
    op._set_attr("scale", 5.0)  # what passes use: bumps the version, so the cached plan is rebuilt
    assert main.version > v1
    assert compile_program(main, ("x",), (y.name,), plans) is not plan
    np.testing.assert_allclose(run(main, {"x": xv}, [y])[0], xv * 5)
    v2 = main.version
    main.global_block().create_var("extra", [1], "float32")
    assert main.version > v2


def test_clone_is_independent(prog):
    main, _ = prog
    x = oar.static.data("x", [2])
    y = oar.scale(x, 3.0)
    c = main.clone()
    assert str(c) == str(main) and c.global_block().ops[0] is not main.global_block().ops[0]
    c.global_block().ops[0]._set_attr("scale", 7.0)
    xv = np.ones(2, "float32")
    assert run(main, {"x": xv}, [y])[0].tolist() == [3.0, 3.0]
    assert run(c, {"x": xv}, [y.name])[0].tolist() == [7.0, 7.0]


def _eval_reference(lin, bn, scope, xv):
    """The eager eval-mode forward with the parameters the static run holds in `scope`."""
    oar.disable_static()
    try:
        L, B = oar.nn.Linear(4, 3), oar.nn.BatchNorm1D(3)
        for layer, static in ((L, lin), (B, bn)):
            for (_, p), (_, s) in zip(layer.state_dict().items(), static.state_dict().items()):
                p.set_value(np.array(scope.find_var(s.name).get_tensor()))
        B.eval()
        return B(L(oar.to_tensor(xv))).numpy()
    finally:
        oar.enable_static()


def test_clone_for_test_switches_dropout_and_batch_norm_and_prunes_training(prog):
    main, startup = prog
    x = oar.static.data("x", [None, 4])
    lin, drop, bn = oar.nn.Linear(4, 3), oar.nn.Dropout(0.5), oar.nn.BatchNorm1D(3)
    y = bn(drop(lin(x)))
    loss = y.mean()
    oar.optimizer.Adam(0.1).minimize(loss)
    test = main.clone(for_test=True)
    text = str(test)
    assert "training=false" in text and "training=true" not in text
    assert "@GRAD" not in text and "adam_update(" not in text  # backward and optimizer ops are pruned
    assert "training=true" in str(main) and "adam_update(" in str(main)  # the original is untouched
    scope = oar.static.Scope()
    run(startup, {}, [], scope)
    xv = np.random.default_rng(0).standard_normal((6, 4)).astype("float32")
    before = {k: np.array(v) for k, v in scope.vars.items()}
    a = run(test, {"x": xv}, [y.name], scope)[0]
    b = run(test, {"x": xv}, [y.name], scope)[0]
    np.testing.assert_array_equal(a, b)  # no dropout noise, no running-statistics drift
    for k, v in before.items():  # evaluating changes no parameter, accumulator or running statistic
        np.testing.assert_array_equal(scope.vars[k], v, err_msg=k)
    np.testing.assert_allclose(a, _eval_reference(lin, bn, scope, xv), rtol=1e-5, atol=1e-6)
    run(main, {"x": xv}, [loss], scope)  # training still updates the parameters
    assert not np.array_equal(scope.vars[lin.weight.name], before[lin.weight.name])
    with pytest.raises(ValueError, match="not a variable"):
        run(test, {"x": xv}, [lin.weight.name + "@GRAD"], scope)
