"""fuse_optimizer_updates: one multi-tensor update per optimizer group; parameters and state unchanged."""
import numpy as np
import pytest

import oar
from oar.optimizer.multi_tensor import MULTI
from oar.passes import fuse_optimizer_updates
from oar.graph.executor import compile_program


def _static_training_program(make_opt):
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [4, 6])
            h = oar.static.nn.fc(x, size=5, activation="tanh")
            loss = (oar.static.nn.fc(h, size=3) ** 2).mean()
            make_opt().minimize(loss)
    finally:
        oar.disable_static()
    return main, startup, loss.name


@pytest.mark.parametrize("make_opt", [lambda: oar.optimizer.SGD(0.1), lambda: oar.optimizer.Momentum(0.1),
                                      lambda: oar.optimizer.Adam(0.05), lambda: oar.optimizer.AdamW(0.05)])
def test_fused_updates_give_the_same_parameters_and_state(make_opt):
    main, startup, loss = _static_training_program(make_opt)
    fused = fuse_optimizer_updates(main, keep=[loss])
    types = [op.type for op in fused.global_block().ops]
    base = [op.type for op in main.global_block().ops if op.type in MULTI]
    assert len(base) == 4 and types.count(MULTI[base[0]].name) == 1 and base[0] not in types
    assert fused.provenance[-1].startswith("fuse_optimizer_updates: 1 multi-tensor update op(s) for 4 parameters")
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal([4, 6]).astype("float32") for _ in range(5)]
    scopes = []
    for prog in (main, fused):
        scope = oar.static.Scope()
        exe = oar.static.Executor()
        oar.seed(0)
        exe.run(startup, scope=scope)
        for x in xs:
            exe.run(prog, feed={"x": x}, fetch_list=[loss], scope=scope)
        scopes.append(scope)
    names = sorted(scopes[0].vars)
    assert names == sorted(scopes[1].vars)
    for n in names:
        np.testing.assert_array_equal(np.asarray(scopes[1].vars[n]), np.asarray(scopes[0].vars[n]), err_msg=n)


def test_multi_tensor_kernel_packs_once_then_updates_in_place():
    k = MULTI["adam_update"].impl
    rng = np.random.default_rng(1)
    ps = [rng.standard_normal(s).astype("float32") for s in ([3, 2], [4])]
    state = ps + [np.zeros_like(p) for p in ps] * 2 + [np.full([1], b, "float32") for b in (0.9, 0.9, 0.999, 0.999)]
    args = lambda st: st[:2] + [np.ones_like(p) for p in ps] + st[2:] + [np.float32(0.1)]  # noqa: E731
    first = k(*args(state), n=2)
    assert first[0].base is first[1].base is not None       # packed into one flat buffer
    second = k(*args(list(first)), n=2)
    assert all(a is b for a, b in zip(first, second))       # updated in place
    from oar.optimizer.update_ops import ADAM_UPDATE
    ref = [ADAM_UPDATE.impl(ps[j], np.ones_like(ps[j]), *[state[2 + 2 * i + j] for i in range(4)], np.float32(0.1))
           for j in range(2)]
    ref = [ADAM_UPDATE.impl(r[0], np.ones_like(r[0]), *r[1:], np.float32(0.1)) for r in ref]
    for i in range(5):
        for j in range(2):
            np.testing.assert_array_equal(second[2 * i + j], ref[j][i])


def test_gated_or_out_of_place_updates_are_not_fused():
    main, _, loss = _static_training_program(lambda: oar.optimizer.SGD(0.1))
    gb = main.global_block()
    ups = [op for op in gb.ops if op.type == "sgd_update"]
    ups[0].outputs["param_out"] = ["elsewhere"]
    gb.create_var("elsewhere", gb.var(ups[0].inputs["param"][0]).shape, gb.var(ups[0].inputs["param"][0]).dtype)
    fused = fuse_optimizer_updates(main, keep=[loss])
    assert [op.type for op in fused.global_block().ops].count("sgd_update") == 1
    assert compile_program(fused, ["x"], [loss]) is not None


def test_static_minimize_shares_the_pass_through_compiled_program():
    main, startup, loss = _static_training_program(lambda: oar.optimizer.Adam(0.05))
    bs = oar.static.BuildStrategy()
    bs.fuse_all_optimizer_ops = True
    compiled = oar.static.CompiledProgram(main, build_strategy=bs)
    assert "multi_adam_update" in [op.type for op in compiled._program.global_block().ops]
    x = np.ones([4, 6], "float32")
    results = []
    for prog in (main, compiled):
        scope = oar.static.Scope()
        exe = oar.static.Executor()
        oar.seed(0)
        exe.run(startup, scope=scope)
        results.append([float(exe.run(prog, feed={"x": x}, fetch_list=[loss], scope=scope)[0]) for _ in range(3)])
    assert results[0] == results[1]
