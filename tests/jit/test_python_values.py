"""Python values stay Python under `full_graph=False`: where eager code sees a Python bool/int/float/ndarray
or an operand of `and`/`or`, the converted function does too (a graph break runs that statement as Python);
conditions still become `cond`/`while` ops; `full_graph=True` keeps Paddle's documented convention (casts,
logical ops)."""
import numpy as np

import oar as paddle


def T(*v):
    return paddle.to_tensor(np.array(v, "float32"))


def describe(v):
    if isinstance(v, paddle.Tensor):
        return ("Tensor", v.dtype.name, tuple(v.shape), v.numpy().tolist())
    if isinstance(v, np.ndarray):
        return ("ndarray", v.tolist())
    if isinstance(v, (tuple, list)):
        return tuple(describe(e) for e in v)
    return (type(v).__name__, v)


def conversions(x):
    a = not x.sum() > 0
    b = int(x.sum())
    c = float(x.mean())
    d = bool(x.sum() > 1)
    e = x.numpy()
    return a, b, c, d, e, x * 2


def test_builtins_on_tensors_give_python_values():
    sf = paddle.jit.to_static(conversions, full_graph=False)
    x = T(1.0, 2.0)
    assert describe(sf(x)) == describe(conversions(x))
    assert describe(sf(T(-1.0, 0.5))) == describe(conversions(T(-1.0, 0.5)))
    assert sf.graph_breaks and sf.graph_breaks[0][1] == "a = not x.sum() > 0"


def and_or(x, y, z):
    return (x or y) and z


def test_and_or_return_the_operand():
    sf = paddle.jit.to_static(and_or, full_graph=False)
    z = paddle.to_tensor(1)
    got = sf(True, False, z)
    assert describe(got) == describe(and_or(True, False, z)) == ("Tensor", "int64", (), 1)
    assert sf(False, 0, z) == 0


def compare_or(x, y):
    return x.sum() > 0 or y


def test_static_left_operand_used_as_a_value():
    x = T(1.0)
    sf = paddle.jit.to_static(compare_or, full_graph=False)
    assert describe(sf(x, 3)) == describe(compare_or(x, 3)) == ("Tensor", "bool", (), True)
    assert describe(sf(T(-1.0), 3)) == describe(compare_or(T(-1.0), 3)) == ("int", 3)
    # full_graph=True: Paddle's convention (a logical op on bool tensors), never a silent eager run
    strict = paddle.jit.to_static(compare_or)
    assert strict(x, 3).dtype.name == "bool" and strict.graph_breaks == []


def conditions(x):
    if not x.sum() > 0:
        x = x - 1
    while x.sum() < 10 and not x.sum() > 20:
        x = x + 3
    return x


def test_conditions_still_become_ops():
    sf = paddle.jit.to_static(conditions, full_graph=False)
    for v in (1.0, -2.0):
        np.testing.assert_allclose(sf(T(v)).numpy(), conditions(T(v)).numpy())
    assert sf.graph_breaks == []
    ops = {op.type for b in sf.concrete_program.main_program.blocks for op in b.ops}
    assert {"cond", "while"} <= ops


def casts(x):
    return int(x.sum()), bool(x.sum() > 0)


def test_full_graph_keeps_paddles_casts():
    sf = paddle.jit.to_static(casts)
    n, b = sf(T(1.5, 2.0))
    assert (n.dtype.name, b.dtype.name) == ("int32", "bool") and n.numpy() == 3
