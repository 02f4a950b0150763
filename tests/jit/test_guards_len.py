"""A list the function both mutates and reads only through `len()` is guarded by its identity and length, not
its contents: a bounded history (append, pop when too long, read the length) stops retracing once its length
is stable; a list whose items are read, or whose changes are logged as whole contents, keeps its contents
guard. Results and the lists themselves equal eager code on every call."""
import numpy as np

import oar as paddle

hist = []
items = []
buf = []


def bounded_history(x):
    hist.append(x * 2)
    if len(hist) > 3:
        hist.pop(0)
    return x + len(hist)


def reads_an_item(x):
    items.append(1)
    return x + items[0] + len(items)


def stores_in_tensor_if(x):
    if x.sum() > 0:          # changes inside a tensor `if` are logged as the list's whole contents after it
        buf[0] = x * 3
    else:
        buf[0] = x
    return x + len(buf)


def _run_both(fn, lst, calls, xs):
    """Calls `fn` eagerly and converted on two copies of the list it mutates; yields both results and lists."""
    sf = paddle.jit.to_static(fn)
    mine, theirs = list(lst), list(lst)
    out = []
    for i in range(calls):
        x = paddle.to_tensor([xs[i % len(xs)]])
        lst[:] = theirs
        want = fn(x).numpy().tolist()
        theirs = list(lst)
        lst[:] = mine
        got = sf(x).numpy().tolist()
        mine = list(lst)
        assert got == want, (i, got, want)
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            np.testing.assert_array_equal(np.asarray(getattr(a, "numpy", lambda: a)()),
                                          np.asarray(getattr(b, "numpy", lambda: b)()))
        out.append(got)
    lst.clear()
    return sf, out


def test_a_bounded_history_read_by_length_stops_retracing():
    sf, out = _run_both(bounded_history, hist, 8, [1.0, 2.0, 5.0])
    assert out[:4] == [[2.0], [4.0], [8.0], [4.0]]
    # traced at lengths 0, 1, 2 and 3; from then on the length at the call is 3 and the program holds
    assert len(sf.retrace_reasons) == 3, sf.retrace_reasons
    assert "read only through its length" in sf.retrace_reasons[0]


def test_a_layer_list_attribute_read_by_length():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.seen = []

        def forward(self, x):
            self.seen.append(x)
            if len(self.seen) > 2:
                self.seen.pop(0)
            return x * len(self.seen)

    net, ref = paddle.jit.to_static(Net()), Net()
    for i in range(6):
        x = paddle.to_tensor([float(i + 1)])
        assert net(x).numpy().tolist() == ref(x).numpy().tolist()
    assert [float(t.numpy()[0]) for t in net.seen] == [float(t.numpy()[0]) for t in ref.seen] == [5.0, 6.0]
    assert len(net.forward.retrace_reasons) == 2


def test_a_list_whose_items_are_read_keeps_its_contents_guard():
    sf, _ = _run_both(reads_an_item, items, 3, [1.0])
    items[:] = [7]
    want = 1.0 + 7 + 2
    assert sf(paddle.to_tensor([1.0])).numpy().tolist() == [want]
    items.clear()


def test_changes_logged_as_contents_keep_the_contents_guard():
    buf[:] = [0, 5]
    sf = paddle.jit.to_static(stores_in_tensor_if)
    sf(paddle.to_tensor([1.0]))
    buf[1] = 6   # the replay writes the contents it traced: a length guard alone would put 5 back
    sf(paddle.to_tensor([2.0]))
    assert buf[1] == 6 and buf[0].numpy().tolist() == [6.0]
    buf.clear()
