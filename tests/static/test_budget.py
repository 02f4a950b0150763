"""`oar.graph.budget`: the size rule of every op marked with `bounds_output` covers what its kernel really
produces; the guard checks only while a budget is active; loop limits; checks at load."""
import numpy as np
import pytest

from oar.ops.registry import REGISTRY
from oar.graph import budget as B

# one small call per marked op: (inputs, attrs)
CALLS = {
    "full": ((), {"shape": [3, 5], "value": 1.0, "dtype": "float32"}),
    "arange": ((), {"start": 0, "end": 10, "step": 3, "dtype": "int64"}),
    "linspace": ((), {"start": 0.0, "stop": 1.0, "num": 7, "dtype": "float64"}),
    "eye": ((), {"num_rows": 3, "num_columns": 4, "dtype": "float32"}),
    "uniform_random": ((), {"shape": [2, 3], "dtype": "float32", "min": 0.0, "max": 1.0}),
    "gaussian_random": ((), {"shape": [4], "dtype": "float64", "mean": 0.0, "std": 1.0}),
    "randint": ((), {"shape": [2, 2], "dtype": "int64", "low": 0, "high": 5}),
    "randperm": ((), {"n": 6, "dtype": "int64"}),
    "multinomial": ((np.ones([2, 4], np.float32),), {"num_samples": 3, "replacement": True}),
    "tile": ((np.ones([2, 3], np.float32),), {"repeat_times": [2, 1, 3]}),
    "pad": ((np.ones([2, 3], np.float32),), {"pad_width": [[1, 2], [0, 3]], "mode": "constant", "value": 0.0}),
    "broadcast_to": ((np.ones([1, 3], np.float32),), {"shape": [4, -1]}),
    "repeat_index": ((np.ones([3]), np.array([1, 0, 4])), {"axis": 0}),
    "full_dynamic": ((np.array([2, 5]),), {"value": 0.0, "dtype": "float32", "static_shape": None}),
    "arange_dynamic": ((np.array(1), np.array(9), np.array(2)), {"dtype": "int64"}),
    "one_hot": ((np.array([0, 2, 1]),), {"num_classes": 5}),
    "segment_pool": ((np.ones([4, 3], np.float32), np.array([0, 0, 5, 5])), {"pooltype": "SUM"}),
}


def marked():
    import oar.ops.dynamic_shape  # noqa: F401  (registers lazily)
    import oar.ops.segment  # noqa: F401  (registered by oar.geometric / oar.incubate, loaded on first use)
    return sorted(n for n, d in REGISTRY.items() if d.out_elements is not None)


def test_every_marked_op_has_a_call_here():
    assert set(marked()) == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_size_rule_covers_the_kernel_output(name):
    d = REGISTRY[name]
    arrays, attrs = CALLS[name]
    out = d.impl(*arrays, **attrs)
    outs = out if isinstance(out, tuple) else (out,)
    real = sum(np.asarray(o).size for o in outs)
    assert B.out_elements(d, arrays, attrs) >= real
    assert B.out_elements(d, arrays, attrs) <= max(real, 1) * 8  # close, not a blanket over-estimate


def test_tile_counts_repeats_before_a_zero():
    """np.tile repeats one dim after another: [2**20, 0] first builds 2**20 copies, then keeps none."""
    assert B.out_elements(REGISTRY["tile"], (np.ones([1, 4]),), {"repeat_times": [1 << 20, 0]}) == 4 << 20


def test_guard_checks_only_under_a_budget():
    d = REGISTRY["full"]

    class Op:
        attrs = {"shape": [1024, 1024], "value": 0.0, "dtype": "float64"}
    fn = B.guard(d, lambda: np.zeros(3), Op)
    assert fn().shape == (3,)  # no budget active: runs
    with B.applied(B.Budget(max_bytes=1 << 20, source="net.pdmodel")):
        with pytest.raises(ValueError, match=r"net\.pdmodel: op 'full' would allocate 8\.0 MiB, over the load budget "
                                             r"of 1\.0 MiB"):
            fn()
        with B.applied(None):
            assert fn().shape == (3,)
    assert B.active() is None
    assert B.guard(REGISTRY["relu"], abs, Op) is abs  # unmarked ops are not wrapped


def test_budget_arguments_are_checked():
    with pytest.raises(ValueError, match="max_bytes must be a positive int or None"):
        B.Budget(max_bytes=0)
    with pytest.raises(ValueError, match="max_loop_iterations"):
        B.Budget(max_loop_iterations=True)
    assert B.Budget(None, None).max_bytes is None


def test_while_loop_limit_applies_only_under_a_budget():
    import oar
    i0 = oar.to_tensor(0)
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main):
            n = oar.static.data("n", [], "int64")
            i, = oar.static.nn.while_loop(lambda i: i < n, lambda i: [i + 1], [oar.full([], 0, "int64")])
    finally:
        oar.disable_static()
    del i0
    exe = oar.static.Executor()
    assert exe.run(main, feed={"n": np.array(500)}, fetch_list=[i])[0] == 500
    with B.applied(B.Budget(max_loop_iterations=100, source="loop.pdmodel")):
        with pytest.raises(RuntimeError, match=r"loop\.pdmodel: while loop ran over 100 iterations"):
            exe.run(main, feed={"n": np.array(500)}, fetch_list=[i])
        assert exe.run(main, feed={"n": np.array(100)}, fetch_list=[i])[0] == 100
