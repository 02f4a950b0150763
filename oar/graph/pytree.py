"""Nested Python structures (lists, tuples, dicts) as a flat list of leaves plus a tree to rebuild them: how
control flow, converted functions and `oar.utils.flatten` pass structured values through programs.

Example:
    >>> leaves, tree = flatten({"a": [1, (2, 3)]})
    >>> leaves, unflatten(tree, [x * 10 for x in leaves])
    ([1, 2, 3], {'a': [10, (20, 30)]})
"""


def flatten(obj):
    """(leaves, tree) of nested lists/tuples/dicts; anything else is a leaf. A tuple subclass (a namedtuple)
    keeps its class in the tree, so `unflatten` gives it back.

    Example:
        >>> import collections
        >>> P = collections.namedtuple("P", "k v")
        >>> leaves, tree = flatten({"a": P(1, [2])})
        >>> leaves, unflatten(tree, [10, 20])
        ([1, 2], {'a': P(k=10, v=[20])})
    """
    leaves = []

    def rec(o):
        if isinstance(o, (list, tuple)):
            kind = type(o) if isinstance(o, tuple) and type(o) is not tuple else type(o).__name__
            return (kind, [rec(v) for v in o])
        if isinstance(o, dict):
            return ("dict", [(k, rec(o[k])) for k in o])
        leaves.append(o)
        return "*"
    return leaves, rec(obj)


def unflatten(tree, leaves):
    """The nested structure `tree` (from `flatten`) with its leaves taken in order from `leaves`."""
    it = iter(leaves)

    def rec(t):
        if t == "*":
            return next(it)
        kind, items = t
        if kind == "dict":
            return {k: rec(v) for k, v in items}
        vals = [rec(v) for v in items]
        if isinstance(kind, type):  # a tuple subclass: a namedtuple is built from its fields
            return kind._make(vals) if hasattr(kind, "_make") else kind(vals)
        return tuple(vals) if kind == "tuple" else vals
    return rec(tree)
