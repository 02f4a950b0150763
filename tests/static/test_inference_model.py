"""`paddle.static.save_inference_model` / `load_inference_model` and `Program.state_dict` / `set_state_dict`:
the static-graph deployment and checkpoint calls of Paddle's static training scripts."""
import numpy as np
import pytest

import oar


@pytest.fixture
def static_net():
    """A static fc -> dropout -> fc program, its startup run in a fresh global scope."""
    oar.enable_static()
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        x = oar.static.data("x", [None, 4], "float32")
        h = oar.nn.functional.dropout(oar.static.nn.fc(x, 8, activation="relu"), 0.5)
        y = oar.static.nn.fc(h, 3)
        loss = oar.mean(y)
        oar.optimizer.SGD(0.1).minimize(loss)
    scope = oar.static.Scope()
    with oar.static.scope_guard(scope):
        exe = oar.static.Executor()
        exe.run(startup)
        yield main, x, y, loss, exe
    oar.disable_static()


def test_save_load_inference_model_round_trip(static_net, tmp_path):
    main, x, y, loss, exe = static_net
    data = np.random.default_rng(0).standard_normal((5, 4)).astype("float32")
    want, = exe.run(main.clone(for_test=True), feed={"x": data}, fetch_list=[y])
    oar.static.save_inference_model(str(tmp_path / "net"), [x], [y], exe, program=main)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.pdiparams", "net.pdmodel"]
    with oar.static.scope_guard(oar.static.Scope()):  # a fresh process: nothing in the scope
        prog, feeds, fetches = oar.static.load_inference_model(str(tmp_path / "net"), exe)
        got, = exe.run(prog, feed={feeds[0]: data}, fetch_list=fetches)
    assert feeds == ["x"] and [f.name for f in fetches] == [y.name]
    np.testing.assert_allclose(got, want, rtol=1e-6)  # dropout off: the inference form was saved
    assert not any(op.type.endswith("_grad") or op.type == "sgd" for op in prog.global_block().ops)
    oar.disable_static()
    try:
        loaded = oar.jit.load(str(tmp_path / "net"))  # the same files as jit.save writes
        np.testing.assert_allclose(loaded(oar.to_tensor(data)).numpy(), want, rtol=1e-6)
    finally:
        oar.enable_static()


def test_save_inference_model_errors(static_net, tmp_path):
    main, x, y, loss, exe = static_net
    with pytest.raises(TypeError, match="fetch_vars"):
        oar.static.save_inference_model(str(tmp_path / "m"), [x], ["y"], exe, program=main)
    with oar.static.scope_guard(oar.static.Scope()):
        with pytest.raises(ValueError, match="run the startup program"):
            oar.static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, program=main)
    with pytest.raises(ValueError, match="model file not found"):
        oar.static.load_inference_model(str(tmp_path / "absent"), exe)


def test_program_state_dict_round_trip(static_net, tmp_path):
    main, x, y, loss, exe = static_net
    params = main.state_dict("param")
    everything = main.state_dict()
    assert sorted(params) == sorted(p.name for p in main.all_parameters())
    assert set(main.state_dict("opt")) == set(everything) - set(params)  # the SGD learning rate
    data = np.ones((2, 4), "float32")
    exe.run(main, feed={"x": data}, fetch_list=[loss])  # a training step changes the weights
    changed = main.state_dict("param")
    assert any(not np.array_equal(changed[k].numpy(), params[k].numpy()) for k in params)
    oar.save(params, str(tmp_path / "w.pdparams"))
    main.set_state_dict(oar.load(str(tmp_path / "w.pdparams")))
    for k, v in main.state_dict("param").items():
        np.testing.assert_array_equal(v.numpy(), params[k].numpy())


def test_program_set_state_dict_checks(static_net):
    main, *_ = static_net
    params = main.state_dict("param")
    name = next(iter(params))
    bad = dict(params, **{name: np.zeros([7], "float32")})
    with pytest.raises(ValueError, match="has shape \\[7\\]"):
        main.set_state_dict(bad)
    wrong_dtype = dict(params, **{name: params[name].numpy().astype("float64")})
    with pytest.raises(ValueError, match="dtype float64"):
        main.set_state_dict(wrong_dtype)
    with pytest.warns(UserWarning, match="no persistable variable"):
        main.set_state_dict(dict(main.state_dict(), extra=np.zeros([1], "float32")))
    with pytest.warns(UserWarning, match="skip loading"):
        main.set_state_dict({})
    with pytest.raises(ValueError, match="mode"):
        main.state_dict("weights")


def test_serialize_program_and_persistables_round_trip(static_net, tmp_path):
    main, x, y, loss, exe = static_net
    data = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    want, = exe.run(main.clone(for_test=True), feed={"x": data}, fetch_list=[y])
    prog_bytes = oar.static.serialize_program([x], [y], program=main)
    weights = oar.static.serialize_persistables([x], [y], exe, program=main)
    oar.static.save_to_file(str(tmp_path / "m.pdmodel"), prog_bytes)
    oar.static.save_to_file(str(tmp_path / "m.pdiparams"), weights)
    with oar.static.scope_guard(oar.static.Scope()):
        prog = oar.static.deserialize_program(oar.static.load_from_file(str(tmp_path / "m.pdmodel")))
        oar.static.deserialize_persistables(prog, oar.static.load_from_file(str(tmp_path / "m.pdiparams")), exe)
        got, = exe.run(prog, feed={"x": data}, fetch_list=[y.name])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    normalized = oar.static.normalize_program(main, [x], [y])
    assert {op.type for op in normalized.global_block().ops} == {op.type for op in prog.global_block().ops}
    assert "sgd" not in {op.type for op in normalized.global_block().ops}
    with pytest.raises(ValueError, match="not a persistable variable"):
        oar.static.deserialize_persistables(oar.static.Program(), weights, exe)
    with pytest.raises(ValueError, match="damaged"):
        oar.static.deserialize_persistables(prog, weights[:20], exe)
    with pytest.raises(TypeError, match="bytes"):
        oar.static.save_to_file(str(tmp_path / "s"), "text")


def test_static_save_load_keeps_optimizer_state(static_net, tmp_path):
    main, x, y, loss, exe = static_net
    feed = {"x": np.ones((2, 4), "float32")}
    exe.run(main, feed=feed, fetch_list=[loss])
    before = {k: v.numpy() for k, v in main.state_dict().items()}
    oar.static.save(main, str(tmp_path / "ckpt"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pdmodel", "ckpt.pdopt", "ckpt.pdparams"]
    exe.run(main, feed=feed, fetch_list=[loss])  # moves the weights on
    oar.static.load(main, str(tmp_path / "ckpt"), exe)
    for k, v in main.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    state = oar.static.load_program_state(str(tmp_path / "ckpt"))
    assert set(state) == set(before) and all(isinstance(v, np.ndarray) for v in state.values())
    one = main.all_parameters()[0]
    assert list(oar.static.load_program_state(str(tmp_path / "ckpt"), var_list=[one])) == [one.name]
    with pytest.raises(ValueError, match="not in"):
        oar.static.load_program_state(str(tmp_path / "ckpt"), var_list=["nope"])
    assert oar.static.deserialize_program(oar.static.load_from_file(str(tmp_path / "ckpt.pdmodel"))) \
        .global_block().ops[-1].type == main.global_block().ops[-1].type
