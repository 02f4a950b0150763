"""The `ifelse` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_ifelse_becomes_convert_ifelse_with_nonlocal_branches():
    code, _ = convert("""
    def f(x):
        if x > 0:
            y = x
        else:
            y = -x
        return y
    """)
    assert "_jst.convert_ifelse(x > 0" in code
    assert "nonlocal y" in code
    assert "y = _jst.UndefinedVar('y', 4, 6)" in code


def test_global_container_store_is_not_a_block_variable():
    code, _ = convert("""
    def f(x):
        if x > 0:
            CACHE['k'] = x
        return x
    """)
    assert "nonlocal CACHE" not in code and "UndefinedVar('CACHE'" not in code
    # it is changed in place: snapshotted (read), never rebound
    assert "(('CACHE', 'mut'),)" in code and "CACHE = __args" not in code


# ---- containers, attributes and tensor items written in a tensor `if` ------------------------------------------

def dict_in_both(x):
    res = {"a": 1}
    if paddle.shape(x)[0] > 2:
        res["a"] = 2
    else:
        res["a"] = 3
    return res


def dict_of_list(x):
    d = {"l": [x, x * 0], "m": {"k": 1}, "fixed": 5}
    if x.sum() > 2:
        d["l"][0] = x * 2
        d["m"]["k"] = x.sum()  # a Python int on the other path: becomes a tensor
    else:
        d["l"][1] = x * 3
    return d


def list_of_dict(x):
    out = [{"v": x}, {"v": x + 1}]
    if x.mean() < 1:
        out[1]["v"] = out[0]["v"] * 4
    return out


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [-1.0, 0.5]])
def test_containers_written_in_branches_follow_the_branch_taken(x):
    check(dict_in_both, T(x, "int64"), grad=False)
    sf = check(dict_of_list, T(x))
    check(list_of_dict, T(x))
    assert "cond" in str(sf.concrete_program.main_program)


def test_python_scalar_equal_in_both_branches_stays_python():
    def f(x):
        d = {"n": 1, "t": x}
        if x.sum() > 0:
            d["t"] = x * 2
        return d
    out = paddle.jit.to_static(f)(T([1.0]))
    assert out["n"] == 1 and isinstance(out["n"], int)


class Box:
    count = paddle.zeros([])


def attrs(x, box):
    box.v = x
    if x.sum() > 0:
        box.v = box.v * 2
        Box.count = Box.count + 1
    else:
        box.w = x
    return box.v + Box.count


@pytest.mark.parametrize("x", [[1.0, 2.0], [-3.0, 1.0]])
def test_instance_and_class_attributes_written_in_branches(x):
    Box.count = paddle.zeros([])
    eager_box, static_box = Box(), Box()
    want = attrs(T(x), eager_box)
    eager_count = Box.count.numpy()
    Box.count = paddle.zeros([])
    got = paddle.jit.to_static(attrs)(T(x), static_box)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    np.testing.assert_allclose(static_box.v.numpy(), eager_box.v.numpy())  # set on the object after the run
    np.testing.assert_allclose(Box.count.numpy(), eager_count)


def item_assign(x):
    y = paddle.zeros([3])
    if x.sum() > 2:
        y[0] = x[0] * 5
    else:
        y[1:] = x[1:] + 7
    y[:2] += 1.0
    return y


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [0.0, 0.5, 0.25]])
def test_tensor_item_assignment_in_branches(x):
    check(item_assign, T(x))


def only_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y


def test_name_from_one_branch_used_after_raises_on_the_other_path():
    sf = paddle.jit.to_static(only_one_branch)
    np.testing.assert_allclose(sf(T([1.0])).numpy(), [2.0])
    with pytest.raises(UnboundLocalError, match=r"'y' is returned .*y = x \* 2"):
        sf(T([-1.0]))


def test_dead_names_are_not_branch_outputs():
    code, _ = convert("""
    def f(x):
        if x > 0:
            t = x + 1
            y = t * 2
        else:
            y = x
        return y
    """)
    assert "('t', 'dead')" in code and "('y', 'name')" in code


def key_in_one_branch(x):
    d = {"b": x}
    if x.sum() > 0:
        d["w"] = x * 2
    return d["b"] + d["w"]


def test_dict_key_added_in_one_branch_only():
    sf = check(key_in_one_branch, T([1.0, 2.0]))
    with pytest.raises(UnboundLocalError, match=r"'d\['w'\]' is used at .*return d\[\"b\"\] \+ d\[\"w\"\]"):
        sf(T([-1.0, -2.0]))  # eagerly a KeyError: the key exists only on the other path
