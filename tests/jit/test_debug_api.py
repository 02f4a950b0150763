"""Debugging aids and the `paddle.jit` companions of to_static: error locations, unsupported constructs,
`.code`, set_code_level, set_verbosity (retrace reasons, the 8-program warning), debugger fallback, check mode,
not_to_static / ignore_module / enable_to_static / rollback, get_concrete_program and InputSpec structures."""
import contextlib
import importlib.util
import inspect
import io
import sys
import warnings

import numpy as np
import pytest

import oar as paddle
import oar.nn as nn
from oar.jit import runtime
from oar.static import InputSpec

HERE = __file__.rsplit("/", 1)[-1]


def T(*v, dtype="float32"):
    return paddle.to_tensor(np.array(v, dtype))


def line_of(fn, text):
    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(src) if text in s)


def notes(e):
    return str(e) + "\n".join(getattr(e, "__notes__", []))


# ---- errors ----------------------------------------------------------------------------------------------------

def fails_in_branch(x):
    y = paddle.reshape(x, [-1])
    if paddle.sum(y) > 0:
        y = y.reshape([5, 5])
    return y


def fails_with_key_error(x):
    d = {"a": x}
    return d["b"]


@pytest.mark.parametrize("fn,etype,text", [(fails_in_branch, ValueError, "y = y.reshape([5, 5])"),
                                           (fails_with_key_error, KeyError, 'return d["b"]')])
def test_errors_keep_type_and_point_at_the_user_line(fn, etype, text):
    with pytest.raises(etype) as ei:
        paddle.jit.to_static(fn)(paddle.ones([2, 2]))
    msg = notes(ei.value)
    assert f'{HERE}", line {line_of(fn, text)}, in {fn.__name__}' in msg, msg
    assert text in msg
    assert "__true_fn" not in msg and "__oar" not in msg   # no generated names


def test_traceback_frames_carry_user_names():
    with pytest.raises(ValueError) as ei:
        paddle.jit.to_static(fails_in_branch)(paddle.ones([2, 2]))
    names = [f.name for f in __import__("traceback").extract_tb(ei.value.__traceback__) if f.filename == __file__]
    assert "fails_in_branch" in names and not any(n.startswith("__") for n in names), names


def try_around_tensor_if(x):
    try:
        if paddle.sum(x) > 0:
            x = x + 1
    except ValueError:
        pass
    return x


def tolist_on_static(x):
    y = x * 2
    return y.tolist()


@pytest.mark.parametrize("fn,construct,text,instead", [
    (try_around_tensor_if, "tensor-dependent `if` inside `try`", "if paddle.sum(x) > 0:", "Move the `try` out"),
    (tolist_on_static, "`.tolist()` on the static value", "return y.tolist()", "call .numpy() outside"),
])
def test_unsupported_construct_errors_name_construct_place_and_fix(fn, construct, text, instead):
    with pytest.raises(TypeError) as ei:
        paddle.jit.to_static(fn)(T(1.0))
    msg = str(ei.value)
    assert construct in msg and f"{HERE}:{line_of(fn, text)}: {text}" in msg and instead in msg, msg


# ---- .code, set_code_level, set_verbosity ----------------------------------------------------------------------

def branchy(x):
    if x > 0:
        x = x + 1
    return x


def test_code_shows_the_transformed_source():
    code = paddle.jit.to_static(branchy).code
    assert code.startswith("def branchy(x):") and "_jst.convert_ifelse(x > 0" in code


def test_set_code_level_prints_the_code_after_every_step():
    from oar.jit.convert import _CODE_CACHE
    from oar.jit.transformers import STEPS

    def fresh(x):
        while x < 3:
            x = x + 1
        return x
    _CODE_CACHE.pop(fresh.__code__, None)
    buf = io.StringIO()
    paddle.jit.set_code_level(100)
    try:
        with contextlib.redirect_stdout(buf):
            paddle.jit.to_static(fresh)(T(1.0))
    finally:
        paddle.jit.set_code_level(0)
    out = buf.getvalue()
    for i, (name, _) in enumerate(STEPS, 1):
        assert f"code after step {i} ({name})" in out
    assert "_jst.convert_while(" in out.split("(loops)")[1]
    assert "(final)" in out


def test_verbosity_logs_decisions_and_each_retrace_reason(capsys):
    def f(x, k):
        if paddle.sum(x) > 0:
            x = x * k
        return x
    sf = paddle.jit.to_static(f)
    paddle.jit.set_verbosity(2)
    try:
        sf(T(1.0), 2)
        sf(T(1.0), 3)
        sf(T(1.0, 2.0), 3)
        sf(T(1.0, 2.0, dtype="float64"), 3)
    finally:
        paddle.jit.set_verbosity(0)
    out = capsys.readouterr().out
    assert f"{HERE}:{line_of(f, 'if paddle.sum')}: `if` on a static value -> cond op over ['x']" in out
    assert "argument 'k' changed from the Python value 2 to the Python value 3" in out
    assert "argument 'x' changed from a tensor of shape [1] and dtype float32 to a tensor of shape [2]" in out
    assert "dtype float32 to a tensor of shape [2] and dtype float64" in out


def test_verbosity_names_train_eval_retrace(capsys):
    net = paddle.jit.to_static(nn.Linear(2, 2))
    paddle.jit.set_verbosity(1)
    try:
        net(paddle.ones([1, 2]))
        net.eval()
        net(paddle.ones([1, 2]))
    finally:
        paddle.jit.set_verbosity(0)
    assert "train/eval mode changed to eval" in capsys.readouterr().out


def test_warns_once_after_eight_programs_with_reasons():
    def f(x, k):
        return x * k
    sf = paddle.jit.to_static(f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for k in range(8):
            sf(T(1.0), k)
        assert not [x for x in w if "programs" in str(x.message)]
        for k in range(8, 12):
            sf(T(1.0), k)
    msgs = [str(x.message) for x in w if "programs" in str(x.message)]
    assert len(msgs) == 1 and "'f' has been converted into 9 programs" in msgs[0]
    assert "argument 'k' changed from the Python value" in msgs[0] and "input_spec" in msgs[0]


# ---- debugger fallback -----------------------------------------------------------------------------------------

def test_breakpoint_stops_in_eager_code_with_values(monkeypatch):
    seen = {}
    monkeypatch.setattr(sys, "breakpointhook", lambda *a, **k: seen.update(sys._getframe(1).f_locals))

    def f(x):
        y = x * 2
        breakpoint()
        return y + 1
    out = paddle.jit.to_static(f)(T(3.0))
    assert type(seen["y"]) is paddle.Tensor and seen["y"].numpy()[0] == 6.0   # an eager value to inspect
    assert out.numpy()[0] == 7.0


def test_pdb_set_trace_runs_eagerly(monkeypatch):
    import pdb
    seen = {}
    monkeypatch.setattr(pdb, "set_trace", lambda *a, **k: seen.update(sys._getframe(1).f_locals))

    def f(x):
        if paddle.sum(x) > 0:
            pdb.set_trace()
        return x.numpy() + 1   # fine eagerly
    assert paddle.jit.to_static(f)(T(3.0))[0] == 4.0
    assert type(seen["x"]) is paddle.Tensor


# ---- check mode ------------------------------------------------------------------------------------------------

def _drifting():
    calls = []

    @paddle.jit.not_to_static
    def bump():                    # state the trace cannot see (an unconverted helper): its traced value is baked
        calls.append(1)
        return float(len(calls))

    def f(x):
        return x + 0, x * bump()
    return f


def test_check_mode_names_the_differing_output():
    sf = paddle.jit.to_static(_drifting(), check=True)
    with pytest.raises(AssertionError, match=r"output 1 of 'f' differs .*max abs diff 1\.0"):
        sf(T(1.0))


def test_check_mode_from_environment_variable(monkeypatch):
    monkeypatch.setenv("OAR_TO_STATIC_CHECK", "1")
    sf = paddle.jit.to_static(_drifting())
    with pytest.raises(AssertionError, match="output 1 of 'f' differs"):
        sf(T(1.0))
    monkeypatch.setenv("OAR_TO_STATIC_CHECK", "0")
    paddle.jit.to_static(_drifting())(T(1.0))   # off: no comparison


def test_check_mode_passes_faithful_functions_and_stops_after_the_first_calls():
    calls = []

    def f(x):
        return x * 2
    sf = paddle.jit.to_static(f, check=True)
    orig = sf._checked_call
    sf._checked_call = lambda *a: calls.append(1) or orig(*a)
    for _ in range(5):
        np.testing.assert_allclose(sf(T(1.0)).numpy(), [2.0])
    assert len(calls) == 3


# ---- not_to_static, ignore_module, enable_to_static, rollback ---------------------------------------------------

def test_not_to_static_helper_is_not_converted():
    @paddle.jit.not_to_static
    def helper(x):
        return x * 3

    def plain(x):
        return x * 3
    assert runtime.convert_call(helper) is helper
    assert runtime.convert_call(plain) is not plain

    def f(x):
        return helper(x)
    np.testing.assert_allclose(paddle.jit.to_static(f)(T(1.0)).numpy(), [3.0])


def test_ignore_module_functions_are_called_as_they_are(tmp_path):
    path = tmp_path / "oar_test_ignored_mod.py"
    path.write_text("def helper(x):\n    return x + 1\n")
    spec = importlib.util.spec_from_file_location("oar_test_ignored_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert runtime.convert_call(mod.helper) is not mod.helper   # a user module: converted
    paddle.jit.ignore_module([mod])
    try:
        assert runtime.convert_call(mod.helper) is mod.helper

        def f(x):
            return mod.helper(x)
        np.testing.assert_allclose(paddle.jit.to_static(f)(T(1.0)).numpy(), [2.0])
    finally:
        runtime.IGNORED_MODULES.discard("oar_test_ignored_mod")


def test_enable_to_static_switches_conversion_globally():
    def f(x):
        return paddle.to_tensor(x.tolist()) * 2   # works only eagerly
    sf = paddle.jit.to_static(f)
    paddle.jit.enable_to_static(False)
    try:
        assert sf(T(2.0))[0] == 4.0
    finally:
        paddle.jit.enable_to_static(True)
    with pytest.raises(TypeError, match="tolist"):
        sf(T(2.0))
    with pytest.raises(TypeError, match="bool"):
        paddle.jit.enable_to_static(1)


class Doubler(nn.Layer):
    def forward(self, x):
        return paddle.to_tensor(x.tolist()) * 2   # works only eagerly


def test_rollback_restores_function_and_layer_forward():
    def f(x):
        return x + 1
    assert paddle.jit.to_static(f).rollback() is f
    layer = paddle.jit.to_static(Doubler())
    with pytest.raises(TypeError):
        layer(T(1.0))
    eager_forward = layer.forward.rollback()
    assert "forward" not in layer.__dict__ and eager_forward.__func__ is Doubler.forward
    assert layer(T(1.0))[0] == 2.0


# ---- get_concrete_program and InputSpec structures ---------------------------------------------------------------

def nested_args(xs, d, k):
    return xs[0] + xs[1] * d["w"] * k


def test_get_concrete_program_from_nested_specs_and_python_values():
    sf = paddle.jit.to_static(nested_args)
    specs = ([InputSpec([None, 2], "float32", "a"), InputSpec([None, 2], "float32")],
             {"w": InputSpec([1], "float32")}, 2)
    cp = sf.get_concrete_program(*specs)
    assert [(v.name, v.shape) for v in cp.inputs] == [("a", [-1, 2]), ("xs_1", [-1, 2]), ("d_w", [1])]
    assert len(cp.outputs) == 1 and cp.outputs[0].shape == [-1, 2]
    assert sf.get_concrete_program(*specs) is cp                      # cached by signature
    assert sf.get_concrete_program(specs[0], specs[1], 3) is not cp   # another Python value: another program


def test_input_spec_with_none_dims_nested_structures_and_python_values():
    spec = [[InputSpec([None, 2], "float32"), InputSpec([None, 2], "float32")], {"w": InputSpec([1], "float32")}, 3]
    sf = paddle.jit.to_static(nested_args, input_spec=spec)
    assert [v.shape for v in sf.concrete_program.inputs] == [[-1, 2], [-1, 2], [1]]   # built from the specs
    for n in (4, 5):
        xs = [paddle.ones([n, 2]), paddle.ones([n, 2]) * 2]
        out = sf(xs, {"w": T(0.5)}, 3)
        np.testing.assert_allclose(out.numpy(), np.full([n, 2], 4.0))
    assert len(sf.program_cache) == 1   # one program for every batch size


def zeros_of_batch(x):
    return paddle.zeros([x.shape[0]]) + 1


def test_get_concrete_program_of_tensors_uses_the_decorators_input_spec():
    sf = paddle.jit.to_static(zeros_of_batch, input_spec=[InputSpec([None, 3], "float32")])
    cp = sf.get_concrete_program(paddle.ones([2, 3]))   # the spec stands for the tensor, as in a call
    assert cp.inputs[0].shape == [-1, 3]
    assert sf(paddle.ones([5, 3])).shape == [5] and len(sf.program_cache) == 1


def matmul_of_dynamic(x, y):
    z = x + 1
    return paddle.matmul(z, y)


def test_run_time_error_points_at_the_user_line():
    sf = paddle.jit.to_static(matmul_of_dynamic, input_spec=[InputSpec([None, 3], "float32"),
                                                             InputSpec([None, 2], "float32")])
    with pytest.raises(ValueError) as ei:   # only the run knows that 3 != 4
        sf(paddle.ones([2, 3]), paddle.ones([4, 2]))
    msg = notes(ei.value)
    assert f"{HERE}\", line {line_of(matmul_of_dynamic, 'paddle.matmul')}" in msg
    assert "return paddle.matmul(z, y)" in msg and "[2, 3]" in msg and "[4, 2]" in msg
