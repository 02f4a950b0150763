"""The conversion caches keyed by code objects (`convert._CODE_CACHE`, `guards._READS`/`_PATHS`/`_LEN_ONLY`) are
bounded LRU maps: a converted function the user drops is freed at once, and its code objects (and the syntax tree
its conversion kept) once newer conversions have pushed them out -- never kept for the life of the process."""
import gc
import weakref

import numpy as np
import pytest

import oar as paddle
from oar.jit import convert, guards
from oar.jit.code_cache import CodeCache

SOURCE = """
SCALE = 3.0

class Cfg:
    shift = 1.0

def {name}(x, cfg):
    if x.sum() > 0:       # a tensor `if`: nested converted code
        y = x * SCALE
    else:
        y = x - 1
    return y + cfg.shift
"""


class Sentinel:
    pass


def _dynamic_function(tmp_path, name):
    """A function compiled at run time from a file (so its source is readable), with a weakly referenceable
    object among its code's constants: the object dies exactly when the code object does."""
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE.format(name=name))
    ns = {"__name__": name}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    fn, sentinel = ns[name], Sentinel()
    fn.__code__ = fn.__code__.replace(co_consts=fn.__code__.co_consts + (sentinel,))
    return fn, ns["Cfg"](), weakref.ref(sentinel)


@pytest.fixture
def small_caches(monkeypatch):
    for cache in (convert._CODE_CACHE, guards._READS, guards._PATHS, guards._LEN_ONLY):
        monkeypatch.setattr(cache, "capacity", 2)


def test_a_dropped_converted_function_is_freed_and_its_code_once_evicted(tmp_path, small_caches):
    fn, cfg, code_alive = _dynamic_function(tmp_path, "dropped")
    sf = paddle.jit.to_static(fn)
    assert sf(paddle.to_tensor([1.0, 2.0]), cfg).numpy().tolist() == [4.0, 7.0]
    converted = weakref.ref(sf._converted()[0])
    user_fn, static_fn = weakref.ref(fn), weakref.ref(sf)
    del fn, sf
    gc.collect()
    assert user_fn() is None and static_fn() is None and converted() is None
    assert code_alive() is not None  # still cached: a function made again from the same code skips conversion
    for i in range(2):  # newer conversions push it out of every cache
        other, other_cfg, _ = _dynamic_function(tmp_path, f"other_{i}")
        assert paddle.jit.to_static(other)(paddle.to_tensor([-1.0]), other_cfg).numpy().tolist() == [-1.0]
    del other
    gc.collect()
    assert code_alive() is None
    assert len(convert._CODE_CACHE) <= 2 and len(guards._READS) <= 2 and len(guards._PATHS) <= 2


def test_an_evicted_conversion_is_derived_again_with_the_same_result(small_caches):
    def make(k):
        def f(x):
            if x.mean() > 0:
                x = x * k
            return x
        return f

    xs = [paddle.to_tensor(np.array(v, "float32")) for v in ([1.0, 2.0], [-1.0, 3.0], [-2.0, -4.0])]
    for k in range(4):  # each round converts a new function object; the cache holds two codes at most
        for filler in range(2):
            paddle.jit.to_static(lambda x, filler=filler: x + filler)(xs[0])
        sf = paddle.jit.to_static(make(k))
        for x in xs:
            expected = x.numpy() * k if x.numpy().mean() > 0 else x.numpy()
            np.testing.assert_allclose(sf(x).numpy(), expected)


def test_converted_code_is_known_by_its_own_mark():
    def outer(x):
        def inner(y):
            return y + 1
        return inner(x) * 2
    conv = convert.convert_function(outer).fn
    nested = [c for c in conv.__code__.co_consts if hasattr(c, "co_code")]
    assert convert.is_converted(conv.__code__) and nested and all(convert.is_converted(c) for c in nested)
    assert not convert.is_converted(outer.__code__)
    assert paddle.jit.to_static(outer)(paddle.to_tensor([1.0])).numpy().tolist() == [4.0]


def test_code_cache_keeps_the_most_recently_used_entries():
    cache = CodeCache(capacity=2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1          # refreshed: "b" is now the oldest
    cache["c"] = 3
    assert ("a" in cache, "b" in cache, "c" in cache, len(cache)) == (True, False, True, 2)
    assert cache.pop("a") == 1 and cache.get("a", "gone") == "gone"
