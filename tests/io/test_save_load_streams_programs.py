"""oar.save / oar.load of binary streams, static Programs and a static variable's value in a scope (Paddle's
``paddle.save`` examples 3-5)."""
import io

import ml_dtypes
import numpy as np
import pytest

import oar


def test_objects_saved_one_after_another_to_a_stream_load_in_order():
    buf = io.BytesIO()
    oar.save({"w": oar.ones([2, 3]), "step": 4}, buf)
    oar.save(oar.to_tensor(np.ones(3, ml_dtypes.bfloat16)), buf)
    oar.save([np.arange(2), None], buf)
    end = buf.tell()
    buf.seek(0)
    first = oar.load(buf)
    assert first["step"] == 4 and first["w"].numpy().tolist() == [[1.0] * 3] * 2
    assert oar.load(buf).numpy().dtype == ml_dtypes.bfloat16
    third = oar.load(buf)
    assert third[0].tolist() == [0, 1] and third[1] is None and buf.tell() == end
    with pytest.raises(ValueError, match="ends before a header"):
        oar.load(buf)


def test_a_stream_holding_something_else_is_refused():
    with pytest.raises(ValueError, match="does not hold an object written by oar.save"):
        oar.load(io.BytesIO(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\": 1}       "))
    whole = io.BytesIO()
    oar.save({"w": oar.ones([4])}, whole)
    with pytest.raises(ValueError, match="ends inside its tensors"):
        oar.load(io.BytesIO(whole.getvalue()[:-3]))


def _fc_program():
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        x = oar.static.data("x_saved", [None, 4], "float32")
        y = oar.static.nn.fc(x, 3)
    return main, startup, y


def test_a_program_saves_and_loads_as_a_program(tmp_path):
    oar.enable_static()
    try:
        main, startup, y = _fc_program()
        oar.save(main, str(tmp_path / "main.pdmodel"))
        got = oar.load(str(tmp_path / "main.pdmodel"))
        assert isinstance(got, oar.static.Program) and str(got) == str(main)
        buf = io.BytesIO()
        oar.save(main, buf)
        buf.seek(0)
        assert str(oar.load(buf)) == str(main)
        # the loaded program runs with the parameters the startup program made
        exe = oar.static.Executor()
        exe.run(startup)
        feed = {"x_saved": np.ones((2, 4), np.float32)}
        want, = exe.run(main, feed=feed, fetch_list=[y])
        out, = exe.run(got, feed=feed, fetch_list=[got.global_block().var(y.name)])
        np.testing.assert_array_equal(out, want)
    finally:
        oar.disable_static()


def test_a_variable_value_in_the_scope_saves_as_a_tensor(tmp_path):
    oar.enable_static()
    try:
        main, startup, _ = _fc_program()
        oar.static.Executor().run(startup)
        w = next(v for v in main.list_vars() if list(v.shape) == [4, 3])
        value = np.array(w.get_value())
        oar.save(w.get_value(), str(tmp_path / "w.pdtensor"))
        oar.save(oar.static.global_scope().find_var(w.name).get_tensor(), str(tmp_path / "w2.pdtensor"))
        for name in ("w.pdtensor", "w2.pdtensor"):
            np.testing.assert_array_equal(oar.load(str(tmp_path / name)).numpy(), value)
        w.set_value(np.full((4, 3), 2.0, np.float32))
        assert np.array(w.get_value()).tolist() == [[2.0] * 3] * 4
        with pytest.raises(ValueError, match=r"has shape \[4, 3\], got a value of shape \[2\]"):
            w.set_value(np.zeros(2, np.float32))
        x = main.global_block().var("x_saved")
        with pytest.raises(ValueError, match="'x_saved' has no value in the scope"):
            x.get_value()
    finally:
        oar.disable_static()


def test_paddle_pickles_in_a_stream_load_through_the_restricted_unpickler():
    import pickle
    buf = io.BytesIO()
    # the layout Paddle's paddle.save(state_dict, BytesIO()) writes, then a second object after it
    pickle.dump({"fc.weight": np.ones([2, 3], "float32"), "StructuredToParameterName@@": {"fc.weight": "w_0"}},
                buf, protocol=4)
    oar.save({"b": oar.zeros([2])}, buf, protocol="paddle")
    buf.seek(0)
    state = oar.load(buf)
    assert list(state) == ["fc.weight"] and state["fc.weight"].shape == [2, 3]
    assert oar.load(buf)["b"].numpy().tolist() == [0.0, 0.0]
    hostile = io.BytesIO(b"\x80\x04cos\nsystem\n(S'echo pwned'\ntR.")
    with pytest.raises(pickle.UnpicklingError, match="the stream"):
        oar.load(hostile)

