"""A namedtuple carried through tensor control flow comes back as the namedtuple (a decoder's KV cache), and a
converted function returning one returns one."""
import collections

import oar as paddle
from conv_helpers import T, assert_same

KV = collections.namedtuple("KV", ["k", "v"])


def cache_through_while(x):
    cache = KV(x, x * 2)
    layers = [KV(x, x), KV(x + 1, x - 1)]
    i = paddle.zeros([1], "int64")
    while i < 3:
        cache = KV(cache.k + 1, paddle.concat([cache.v[:1], cache.v[1:] * 2]))
        layers = [KV(c.k * 2, c.v + c.k) for c in layers]
        i = i + 1
    return cache.k, cache.v, layers[1].v, cache


def cache_through_if(x):
    cache = KV(x, x)
    if x.sum() > 0:
        cache = KV(cache.k + 1, cache.v * 3)
    return cache.v - cache.k, cache


def test_namedtuple_survives_tensor_loops_and_branches():
    for fn in (cache_through_while, cache_through_if):
        sf = paddle.jit.to_static(fn)
        for x in (T([1.0, 2.0]), T([-1.0, -2.0]), T([1.0, 2.0])):
            want, got = fn(x), sf(x)
            assert type(got[-1]) is KV
            assert_same(want, got)
