"""`WeakIdMap` (the executor's plan cache and fed-input registry): looked up by identity, entries die with their
key, a replaced or popped entry's old weak reference never removes the new one."""
import gc

from oar.core.weakmap import WeakIdMap


class Key:
    pass


def test_entries_die_with_their_key_and_equal_keys_stay_apart():
    m, a, b = WeakIdMap(), Key(), Key()
    m[a], m[b] = 1, 2
    assert (m.get(a), m.get(b), len(m), a in m) == (1, 2, 2, True)
    del a
    gc.collect()
    assert len(m) == 1 and list(m) == [b]


def test_a_replaced_entry_survives_the_old_reference():
    m, a = WeakIdMap(), Key()
    m[a] = "old"
    m[a] = "new"           # the first weak reference's callback must not remove the new entry later
    assert m.pop(a) == "new" and m.get(a) is None
    m[a] = "again"
    assert m.setdefault(a, "other") == "again"
    del a
    gc.collect()
    assert len(m) == 0


def test_a_dead_key_is_never_confused_with_a_new_object_at_the_same_address():
    m = WeakIdMap()
    for i in range(200):   # CPython reuses addresses of freed objects: each new key must start empty
        k = Key()
        assert m.get(k) is None
        m[k] = i
        del k
    gc.collect()
    assert len(m) == 0
