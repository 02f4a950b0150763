"""Side effects: what a converted function does to Python objects that outlive the call (containers and
objects reached from its arguments and globals, global and nonlocal bindings, attributes) is logged while
tracing and replayed after every run of the cached program, in program order, with the tensors taken from the
program's outputs; no static Variable reaches a user object."""
import collections
import dataclasses

import numpy as np
import pytest

import oar as paddle
from oar.jit.effects import EscapeError

Variable = paddle.static.Variable

GL = []
GD = {}


def T(*v):
    return paddle.to_tensor(np.array(v, "float32"))


def eager_and_converted(fn, make_args, calls=3):
    """Runs `fn` eagerly and converted on fresh argument sets; returns both lists of (result, args)."""
    sf = paddle.jit.to_static(fn)
    out = []
    for f in (fn, sf):
        args = make_args()
        out.append([(f(*args), args) for _ in range(calls)])
    return out


def values(v):
    if isinstance(v, Variable):
        raise AssertionError(f"a static Variable escaped: {v.name}")
    if hasattr(v, "numpy"):
        return ("tensor", v.numpy().tolist(), v.dtype.name, tuple(v.shape))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [values(e) for e in v])
    if isinstance(v, dict):
        return ("dict", {k: values(e) for k, e in v.items()})
    if hasattr(v, "__dict__") and not callable(v):
        return (type(v).__name__, values(vars(v)))
    return v


def append_and_read(l):
    l.append(12)
    return l[0]


def test_list_argument_mutated_on_every_call():
    sf = paddle.jit.to_static(append_and_read)
    a = [1, 2, 3]
    assert sf(a) == 1 and a == [1, 2, 3, 12]
    assert sf(a) == 1 and a == [1, 2, 3, 12, 12]
    b = [1, 2, 3]                       # same signature as the first call: the cached program, b changed
    assert sf(b) == 1 and b == [1, 2, 3, 12]


def every_list_method(l, x):
    l.append(x + 1)
    l.extend([x * 2, 5])
    l.insert(0, 7)
    v = l.pop(1)
    l[0] = x - 1
    del l[1]
    l.sort(key=lambda e: 0)
    l.reverse()
    return v


def test_every_list_mutation_is_replayed_in_order():
    (eager, conv) = eager_and_converted(every_list_method, lambda: ([T(1.0), T(2.0)], T(3.0)))
    assert [values(r) for r in conv] == [values(r) for r in eager]


def dict_methods(d, x):
    d["a"] = x + 1
    d.update({"b": x * 2}, c=3)
    d.pop("gone", None)
    d.setdefault("e", [])
    if "old" in d:
        del d["old"]
    d["n"] = d.get("n", 0) + 1
    return d["a"]


def test_dict_mutations_are_replayed():
    (eager, conv) = eager_and_converted(dict_methods, lambda: ({"old": 1, "n": 0}, T(1.0)))
    assert [values(r) for r in conv] == [values(r) for r in eager]


def store_global(x):
    global gz
    gz = x + 1


def test_global_write_leaves_an_eager_tensor():
    sf = paddle.jit.to_static(store_global)
    sf(T(1.0))
    assert type(gz) is paddle.Tensor and gz.numpy().tolist() == [2.0]
    sf(T(5.0))
    assert type(gz) is paddle.Tensor and gz.numpy().tolist() == [6.0]


def grow_global(x):
    GL.append(x * 2)
    GD[len(GL)] = x
    return GL


def test_global_containers_and_returned_global_list_identity():
    GL.clear()
    GD.clear()
    sf = paddle.jit.to_static(grow_global)
    out = sf(T(1.0))
    assert out is GL and [t.numpy().tolist() for t in GL] == [[2.0]]
    out = sf(T(2.0))
    assert out is GL and [t.numpy().tolist() for t in GL] == [[2.0], [4.0]]
    assert sorted(GD) == [1, 2] and GD[2].numpy().tolist() == [2.0]


def test_nonlocal_counter_and_tensor():
    count, last = 0, None

    def f(x):
        nonlocal count, last
        count += 1
        last = x * count
        return last
    sf = paddle.jit.to_static(f)
    assert sf(T(1.0)).numpy().tolist() == [1.0] and count == 1
    assert sf(T(1.0)).numpy().tolist() == [2.0] and count == 2
    assert type(last) is paddle.Tensor and last.numpy().tolist() == [2.0]


class Box:
    def __init__(self):
        self.v = None
        self.n = 0
        self.items = []


def set_attributes(o, x):
    o.v = x * 2
    o.n += 1
    o.items.append(o.n)
    setattr(o, "w", x - 1)
    return o.n


def test_attribute_writes_on_argument_objects():
    (eager, conv) = eager_and_converted(set_attributes, lambda: (Box(), T(1.0)))
    assert [values(r) for r in conv] == [values(r) for r in eager]


class Cache(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)
        self.history = []

    def forward(self, x):
        y = self.fc(x)
        self.last = y
        self.history.append(y.sum())
        return y


def test_layer_attributes_and_lists_on_self():
    net = Cache()
    sf = paddle.jit.to_static(net)
    x = T(1.0, 2.0)
    for _ in range(3):
        sf(x)
    assert len(net.history) == 3 and all(type(t) is paddle.Tensor for t in net.history)
    np.testing.assert_allclose(net.last.numpy(), net.fc(x).numpy(), rtol=1e-6)


@dataclasses.dataclass
class Result:
    y: object
    n: int


Pair = collections.namedtuple("Pair", "a b")


def returns_objects(x):
    return Result(x + 1, 3), Pair(x * 2, 1)


def test_returned_objects_and_namedtuples_hold_eager_tensors():
    sf = paddle.jit.to_static(returns_objects)
    for _ in range(2):
        r, p = sf(T(1.0))
        assert isinstance(r, Result) and type(r.y) is paddle.Tensor and r.y.numpy().tolist() == [2.0]
        assert type(p) is Pair and p.a.numpy().tolist() == [2.0] and p.b == 1


def mutate_in_tensor_if(l, x):
    if x.sum() > 0:
        l.append(x)
    else:
        l.append(-x)
    l[0] = l[0] + 1
    return x


def test_changes_inside_a_tensor_if_are_replayed_as_merged_contents():
    sf = paddle.jit.to_static(mutate_in_tensor_if)
    for v in (2.0, -3.0):
        want, got = [T(0.0)], [T(0.0)]
        mutate_in_tensor_if(want, T(v))
        sf(got, T(v))
        assert values(got) == values(want)


def test_a_value_stored_by_untracked_code_raises():
    keep = []

    @paddle.jit.not_to_static
    def stash(v):
        keep.append(v)

    def f(x):
        y = x + 1
        stash(y)
        return y
    with pytest.raises(EscapeError, match="was left in a list"):
        paddle.jit.to_static(f)(T(1.0))
    assert keep == [] or not any(isinstance(v, Variable) for v in keep[1:])


def test_locals_shows_only_user_names():
    def f(x):
        y = x + 1
        return sorted(locals())
    assert paddle.jit.to_static(f)(T(1.0)) == ["x", "y"]
