"""Graph breaks inside loop and branch bodies (`to_static(fn, full_graph=False)`): the `for`/`while`/`if`/`with`
holding the break keeps its header in Python, and the statements of its body before and after the break run
as programs (counted here: eager ops vs `run_program` ops), with eager results and side effects on every call."""
import collections
import contextlib

import numpy as np
import pytest

import oar as paddle
from oar.core.state import own_mode
from oar.ops import registry
from conv_helpers import T, assert_same


@contextlib.contextmanager
def eager_ops():
    """Counts the ops run eagerly by name (a program run is one `run_program` op; its own ops are not counted)."""
    counts = collections.Counter()
    m = own_mode()

    def hook(op, inputs, attrs):
        counts[op.name] += 1
        m.hook = None
        try:
            return registry.apply(op, inputs, attrs)
        finally:
            m.hook = hook
    m.hook = hook
    try:
        yield counts
    finally:
        m.hook = None


def loop_body_break(x):
    s = x
    for i in range(3):
        s = s * 2 + 1
        k = len(s.tolist())          # needs the value: a graph break inside the loop body
        s = s - k
    return s


def while_if_break(x, log):
    s, n = x, 0
    while n < 4:
        n += 1
        if n % 2 == 0:
            s = s + n
            log.append(int(s.sum().numpy()))   # a break inside the `if` inside the loop
            s = s * 0.5
        else:
            s = s - 1
    return s, n


def break_continue_return(x):
    s = x
    for i in range(6):
        s = s + i
        v = float(s.sum().numpy())       # a break
        if v > 100:
            return s * -1
        if i == 1:
            continue
        s = s * 2
        if v > 20:
            break
    else:
        s = s - 1000
    return s


def for_else_no_break(x):
    s = x
    for i in range(2):
        s = s + 1
        _ = s.tolist()
    else:
        s = s * 10
    return s


def branch_header_breaks(x):
    y = x * 3
    if len([v for v in y.tolist() if v > 0]) >= 2:   # the test needs the value: the `if` runs in Python
        z = y + 1
    else:
        z = y - 1
    return z * 2


def nested_loops(x):
    s = x
    for i in range(2):
        for j in range(2):
            s = s + i * 10 + j
            _ = s.numpy()
            s = s * 1.5
    return s


def test_break_in_a_loop_body_runs_the_rest_of_the_body_as_programs():
    sf = paddle.jit.to_static(loop_body_break, full_graph=False)
    x = [1.0, 2.0]
    assert_same(loop_body_break(T(x)), sf(T(x)))
    with eager_ops() as counts:
        got = sf(T(x))
    assert_same(loop_body_break(T(x)), got)
    # the loop's arithmetic ran in programs: before, the whole `for` ran eagerly (9 eager arithmetic ops)
    assert set(counts) == {"run_program"}, counts
    # one program before the loop, two per iteration (before and after the break), one for the return
    assert counts["run_program"] == 1 + 2 * 3 + 1
    line = loop_body_break.__code__.co_firstlineno + 4
    assert [(ln, src.split("#")[0].strip()) for ln, src in sf.graph_breaks] == [(line, "k = len(s.tolist())")]


@pytest.mark.parametrize("x", [[1.0, 2.0], [-3.0, 0.5]])
def test_break_in_an_if_in_a_while_matches_eager_with_side_effects(x):
    sf = paddle.jit.to_static(while_if_break, full_graph=False)
    for _ in range(3):
        want_log, got_log = [], []
        want, got = while_if_break(T(x), want_log), sf(T(x), got_log)
        assert_same(want, got)
        assert want_log == got_log and len(got_log) == 2
    with eager_ops() as counts:
        sf(T(x), [])
    assert "add" not in counts and "scale" not in counts and "subtract" not in counts, counts
    assert [src.split("#")[0].strip() for _, src in sf.graph_breaks] == ["log.append(int(s.sum().numpy()))"]


@pytest.mark.parametrize("x", [[1.0], [5.0], [60.0], [-50.0]])
def test_break_continue_return_and_else_in_a_split_loop(x):
    sf = paddle.jit.to_static(break_continue_return, full_graph=False)
    for _ in range(2):
        assert_same(break_continue_return(T(x)), sf(T(x)))
    sf2 = paddle.jit.to_static(for_else_no_break, full_graph=False)
    assert_same(for_else_no_break(T(x)), sf2(T(x)))


@pytest.mark.parametrize("x", [[1.0, 2.0], [1.0, -2.0]])
def test_a_break_in_an_if_test_keeps_both_branches_programs(x):
    sf = paddle.jit.to_static(branch_header_breaks, full_graph=False)
    for _ in range(2):
        assert_same(branch_header_breaks(T(x)), sf(T(x)))
    with eager_ops() as counts:
        sf(T(x))
    assert set(counts) == {"run_program"}, counts


def test_nested_loops_split_at_the_inner_body_with_gradients():
    sf = paddle.jit.to_static(nested_loops, full_graph=False)
    xe, xs = T([1.0, -1.0]), T([1.0, -1.0])
    xe.stop_gradient = xs.stop_gradient = False
    want, got = nested_loops(xe), sf(xs)
    assert_same(want, got)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())
    assert_same(nested_loops(T([2.0, 0.0])), sf(T([2.0, 0.0])))
    with eager_ops() as counts:
        sf(T([2.0, 0.0]))
    assert set(counts) == {"run_program"}, counts


def test_full_graph_names_the_line_inside_the_loop():
    with pytest.raises(TypeError, match=r"k = len\(s\.tolist\(\)\)"):
        paddle.jit.to_static(loop_body_break)(T([1.0]))


def test_a_name_unbound_on_the_path_taken_raises_as_python():
    def f(x, flag):
        for i in range(2):
            _ = x.tolist()
            if flag:
                z = x + i
        return z

    sf = paddle.jit.to_static(f, full_graph=False)
    assert_same(f(T([1.0]), True), sf(T([1.0]), True))
    with pytest.raises(UnboundLocalError):
        f(T([1.0]), False)
    with pytest.raises(UnboundLocalError):
        sf(T([1.0]), False)


class Stack(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = paddle.nn.LayerList([paddle.nn.Linear(2, 2) for _ in range(3)])

    def forward(self, x):
        feats = []
        for i, layer in enumerate(self.layers):
            x = layer(x)
            m = float(np.abs(x.numpy()).max()) + 1.0   # NumPy on the value inside the loop over sublayers
            x = x / m
            feats.append(x)
        return x, len(feats)


def test_a_layer_loop_over_sublayers_with_a_break_trains():
    ref, net = Stack(), paddle.jit.to_static(Stack(), full_graph=False)
    net.set_state_dict(ref.state_dict())
    x = T([[1.0, -2.0]])
    for _ in range(2):
        assert_same(ref(x), net(x))
    with eager_ops() as counts:
        out, n = net(x)
    assert n == 3 and "matmul" not in counts and "linear" not in counts and "divide" not in counts, counts
    out.sum().backward()
    ref(x)[0].sum().backward()
    np.testing.assert_allclose(net.layers[0].weight.grad.numpy(), ref.layers[0].weight.grad.numpy(), rtol=1e-5)


def while_tensor_test(x):
    s = x
    while s.sum() < 20:        # the test runs in Python (eagerly): the loop holds a break
        s = s * 2
        _ = s.tolist()
        s = s + 1
    return s


def with_no_grad(x):
    with paddle.no_grad():
        y = x * 2
        _ = y.tolist()
        z = y + 1
    return z


def elif_chain(x, k):
    if k == 0:
        y = x + 1
    elif k == 1:
        y = x * 2
        _ = y.numpy()
        y = y - 3
    else:
        y = x
    return y


def closure_in_loop(x):
    acc = []

    def add(v):
        acc.append(v)
    for i in range(2):
        add(x * i)
        _ = x.tolist()
        add(x + i)
    return len(acc), acc[-1], acc[0]


G = [0]
g_count = 0


def global_in_loop(x):
    global g_count
    for i in range(3):
        g_count = g_count + 1
        _ = x.tolist()
        x = x + g_count
        G.append(g_count)
    return x


@pytest.mark.parametrize("fn,args,breaks", [(while_tensor_test, ([1.0],), 1), (with_no_grad, ([1.0],), 1),
                                            (elif_chain, ([1.0], 1), 1), (elif_chain, ([1.0], 0), 0),
                                            (closure_in_loop, ([1.0],), 1)])
def test_headers_in_python_bodies_in_programs_match_eager(fn, args, breaks):
    sf = paddle.jit.to_static(fn, full_graph=False)
    call = [T(a) if isinstance(a, list) else a for a in args]
    for _ in range(2):
        assert_same(fn(*call), sf(*call))
    assert len(sf.graph_breaks) == breaks


def test_global_writes_in_a_split_loop_replay_each_call():
    global g_count
    sf = paddle.jit.to_static(global_in_loop, full_graph=False)
    g_count, G[:] = 0, [0]
    want = [global_in_loop(T([1.0])).numpy().tolist() for _ in range(2)]
    want_g, want_list = g_count, list(G)
    g_count, G[:] = 0, [0]
    got = [sf(T([1.0])).numpy().tolist() for _ in range(2)]
    assert got == want and g_count == want_g and G == want_list


def test_a_nonlocal_written_in_a_split_loop():
    def make():
        c = 0

        def inner(x):
            nonlocal c
            for i in range(2):
                c += 1
                _ = x.tolist()
                x = x * c
            return x
        return inner
    eager, conv = make(), paddle.jit.to_static(make(), full_graph=False)
    for _ in range(2):
        assert_same(eager(T([1.0])), conv(T([1.0])))
