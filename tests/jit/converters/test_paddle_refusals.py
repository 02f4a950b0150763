"""Forms Paddle's AST converter refuses (Dygraph2StaticException) that oar converts with Python's answer on every
path (a deliberate difference, docs/dy2static.md "Where oar differs from Paddle"), and the forms both refuse.

- a name assigned in one branch of a tensor `if` and used after it: the value where the branch ran, Python's
  UnboundLocalError (naming the name and its line) where it did not -- Paddle hands back an UndefinedVar object;
- `return` directly in a loop body (`while True: return ...`, `for i in range(n): return ...`): Paddle calls the
  loop meaningless; Python returns on the first iteration, and so does oar;
- a tensor-dependent `break` in a Python `for`: Paddle raises "python while pred change from bool to variable";
  oar guards the remaining unrolled iterations with `cond`;
- returns of different structure on the two paths of a tensor `if`: both refuse (ValueError naming the line);
- tensors of different rank left in one place by the two paths: Paddle converts, oar breaks the graph there
  (full_graph=False) or raises naming the `if` (full_graph=True)."""
import pytest

import oar as paddle
from conv_helpers import T, assert_same


def defined_in_one_branch(x):
    if x.sum() > 0:
        z = x + 1
    return z


def return_in_while_true(x):
    while True:
        x = x * 3
        return x + 12
    return x


def return_in_python_for(x):
    for i in range(10):
        return x + i + 12
    return x


def return_in_tensor_while(x):
    i = paddle.zeros([1], "int64")
    while i < 10:
        x = x + 1
        return x * 2
    return x - 1


def tensor_break_in_python_for(x):
    for i in range(10):
        if x.sum() > 5:
            break
        x = x + i
    return x


def different_return_structures(x):
    y = x + 1
    if x.sum() > 0:
        return x, y
    return x


def test_forms_paddle_refuses_convert_with_pythons_answer_on_every_path():
    for fn in (return_in_while_true, return_in_python_for, return_in_tensor_while, tensor_break_in_python_for):
        sf = paddle.jit.to_static(fn)
        for x in (T([1.0]), T([-4.0]), T([9.0]), T([1.0])):
            assert_same(fn(x), sf(x))


def test_name_from_one_branch_is_the_value_or_pythons_unbound_error():
    sf = paddle.jit.to_static(defined_in_one_branch)
    assert_same(defined_in_one_branch(T([1.0])), sf(T([1.0])))
    with pytest.raises(UnboundLocalError):
        defined_in_one_branch(T([-1.0]))
    with pytest.raises(UnboundLocalError, match="'z'.*line"):
        sf(T([-1.0]))


def test_different_return_structures_are_refused_naming_the_if():
    with pytest.raises(ValueError, match=r"different structure on the two paths.*test_paddle_refusals.py:\d+"):
        paddle.jit.to_static(different_return_structures)(T([1.0]))


def append_by_rank(x):
    a = []
    if x.sum() > 0:
        a.append(x)
    else:
        a.append(paddle.ones([2, 2]))
    return a[0] * 2


def test_branches_leaving_different_ranks_break_the_graph_or_raise_naming_the_if():
    """Paddle's converter merges them into an unknown-rank value; a value of oar's programs has one rank, so with
    full_graph=False the `if` runs in Python between programs (same answers as eager), and with full_graph=True
    the error names the `if` and the place."""
    sf = paddle.jit.to_static(append_by_rank, full_graph=False)
    for x in (T([1.0, 2.0]), T([-1.0, -2.0]), T([3.0, 4.0])):
        assert_same(append_by_rank(x), sf(x))
    assert [src for _, src in sf.graph_breaks] == ["if x.sum() > 0:"]
    from oar.graph.variable import StaticValueError
    with pytest.raises(StaticValueError, match=r"rank-1 tensor \[2\] in 'a'.*rank-2.*test_paddle_refusals.py"):
        paddle.jit.to_static(append_by_rank)(T([1.0, 2.0]))
