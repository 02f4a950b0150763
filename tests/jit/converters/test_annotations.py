"""Annotated assignments convert like plain ones (an annotated name cannot be `nonlocal`, so the converted
blocks could not share it); a bare annotation keeps the name local. With full_graph=True a function that
fails to convert raises, never running eagerly in silence."""
from typing import List

import pytest

import oar as paddle
from conv_helpers import T, assert_same, check, convert


def annotated_in_tensor_if(x):
    if x.sum() > 0:
        y: List[int] = [x + 1]
    else:
        y = [x - 1]
    return y[0]


def annotated_in_tensor_loop(x):
    s: float = 0.0
    i = paddle.zeros([1], "int64")
    while i < 3:
        s: paddle.Tensor = s + x
        i = i + 1
    return s


def bare_annotation_keeps_the_name_local(x):
    y: int
    if x.sum() > 0:
        y = x + 1
    return y


def test_annotated_assignment_converts_in_tensor_control_flow():
    for fn in (annotated_in_tensor_if, annotated_in_tensor_loop):
        for arg in (T([1.0, 2.0]), T([-3.0, 1.0])):
            sf = check(fn, arg, ops=("while",) if "loop" in fn.__name__ else ("cond",))
            assert_same(fn(arg), sf(arg))  # the cached program again
    code, _ = convert("def f(x):\n    y: int = x\n    z: int\n    return y\n")
    assert ": int" not in code


def test_bare_annotation_is_still_unbound_on_the_path_that_does_not_assign():
    sf = paddle.jit.to_static(bare_annotation_keeps_the_name_local)
    assert_same(bare_annotation_keeps_the_name_local(T([1.0])), sf(T([1.0])))
    with pytest.raises(UnboundLocalError):
        sf(T([-1.0]))


def _helper_with_annotation(x):
    if x.sum() > 0:
        y: int = x + 1
    else:
        y = x - 1
    return y / x.size


def _calls_helper(x):
    return _helper_with_annotation(x) * 2


def _top_with_annotation(x):
    if x.sum() > 0:
        y: int = x + 1
    else:
        y = x - 1
    return y


def test_converted_code_that_does_not_compile_is_an_error_never_an_unconverted_run(monkeypatch):
    """A converter gap (simulated: annotations kept, which `nonlocal` forbids) raises naming the function;
    neither the function nor a helper it calls runs unconverted, where `x.size` would be -1 in the program."""
    from oar.jit import convert as convert_module
    from oar.jit.transformers import normalize
    monkeypatch.setattr(normalize._DropAnnotations, "visit_AnnAssign", lambda self, node: node)
    monkeypatch.setattr(convert_module, "_CODE_CACHE", {})
    for fn in (_top_with_annotation, _calls_helper):
        fn.__dict__.pop("__oar_converted__", None)
        with pytest.raises(convert_module.ConversionError, match="does not compile") as info:
            paddle.jit.to_static(fn)(T([1.0, 2.0]))
        assert "test_annotations.py" in str(info.value)
    assert isinstance(paddle.jit.to_static(_top_with_annotation, full_graph=False)(T([1.0])), paddle.Tensor)
