"""An iterator the converted function advances but does not own (a global or closure iterator, a generator, an
iterator passed as an argument) cannot be guarded: tracing would bake in the items read once, and every later
call would reuse them without advancing it (before: `x * next(it)` gave `x * 1` on every call). Such a `next()`,
`.send()` or `for` loop is refused with a clear error under full_graph=True, and runs as Python on every call
(a graph break) under full_graph=False, as eager code does. An iterator made inside the function is fine."""
import pytest

import oar as paddle
from oar.graph.variable import StaticValueError


def T(v):
    return paddle.to_tensor([v])


def _counter():
    k = 0
    while True:
        k += 1
        yield float(k)


def make_cases():
    it, loop_it, gen = iter([1.0, 2.0, 3.0]), iter([10.0, 20.0, 30.0]), _counter()

    def global_next(x):
        y = x + 1
        return y * next(it)

    def for_over_global(x):
        for v in loop_it:
            x = x + v
            break
        return x

    def generator_send(x):
        return x + gen.send(None)

    def argument_next(x, items):
        return x * next(items)
    shared_items = iter([2.0, 3.0, 4.0])
    return [(global_next, ()), (for_over_global, ()), (generator_send, ()), (argument_next, (shared_items,))]


def _eager_results():
    return [[fn(T(1.0), *args).numpy().tolist() for _ in range(3)] for fn, args in make_cases()]


def test_eager_reference():
    assert _eager_results() == [[[2.0], [4.0], [6.0]], [[11.0], [21.0], [31.0]], [[2.0], [3.0], [4.0]],
                                [[2.0], [3.0], [4.0]]]


@pytest.mark.parametrize("case", range(4))
def test_full_graph_refuses_advancing_an_outside_iterator_and_leaves_it_unadvanced(case):
    fn, args = make_cases()[case]
    sf = paddle.jit.to_static(fn)
    with pytest.raises(StaticValueError, match="iterator .* that outlives the call") as info:
        sf(T(1.0), *args)
    assert "test_guards_iterators.py" in str(info.value)
    assert fn(T(1.0), *args).numpy().tolist() == _eager_results()[case][0]  # the refused trace consumed nothing


@pytest.mark.parametrize("case", range(4))
def test_without_full_graph_each_call_advances_it_as_eager_code_does(case):
    fn, args = make_cases()[case]
    sf = paddle.jit.to_static(fn, full_graph=False)
    assert [sf(T(1.0), *args).numpy().tolist() for _ in range(3)] == _eager_results()[case]
    assert len(sf.graph_breaks) == 1


def test_an_iterator_made_inside_the_function_is_traced():
    def local(x, n):
        it = iter(range(n))
        first = next(it)
        for k in it:
            x = x + k
        return x * (first + 1)
    sf = paddle.jit.to_static(local)
    assert [sf(T(1.0), n).numpy().tolist() for n in (3, 4, 3)] == [[4.0], [7.0], [4.0]]
