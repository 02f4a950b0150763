"""Lists that become tensor arrays in one tensor loop and are used afterwards: item assignment in a second
tensor loop (`a[j] = ...` writes the array), negative indices."""
import oar as paddle
from conv_helpers import T, assert_same, check


def fill_then_update(x):
    a = []
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")
    while i < n:
        a.append(x * i.astype("float32"))
        i = i + 1
    j = paddle.zeros([1], "int64")
    while j < n:
        a[j] = a[j] + 10
        j = j + 1
    a[-1] = a[-1] * 2
    return a[0], a[2], a[-2]


def test_list_filled_in_one_tensor_loop_item_assigned_in_another():
    sf = check(fill_then_update, T([1.0, 2.0]), grad=False, ops=("array_write",))
    for x in (T([3.0, -1.0]), T([1.0, 2.0])):
        assert_same(fill_then_update(x), sf(x))


def lists_inside_a_dict(x):
    feats = {"k": [], "idx": [], "keep": [x[0]]}
    for v in x:
        feats["k"].append(v * 2)
        feats["idx"].append(paddle.cast(v, "int64"))
    return feats["k"][-2], feats["idx"][1], feats["keep"][0]


def test_list_inside_a_container_appended_in_a_tensor_for():
    sf = check(lists_inside_a_dict, T([1.0, 2.0, 3.0]), grad=False, ops=("array_write",))
    for x in (T([5.0, 6.0, 7.0, 8.0]), T([1.0, 2.0, 3.0])):
        assert_same(lists_inside_a_dict(x), sf(x))


def only_empty_lists_in_a_dict(x):
    feats = {"k": []}
    for v in x:
        feats["k"].append(v * 2)
    return feats["k"][0], len(feats["k"])


def test_container_holding_only_empty_lists_is_carried():
    sf = check(only_empty_lists_in_a_dict, T([1.0, 2.0, 3.0]), grad=False)
    assert_same(only_empty_lists_in_a_dict(T([4.0, 5.0])), sf(T([4.0, 5.0])))
