"""`paddle.utils`: helpers over nested structures (lists, tuples, dicts of leaves), as Paddle's, and `run_check()`.

Example:
    >>> oar.utils.map_structure(lambda v: v * 2, {"a": [1, 2], "b": 3})
    {'a': [2, 4], 'b': 6}
    >>> oar.utils.flatten({"b": 3, "a": [1, 2]})
    [1, 2, 3]
"""
from ..graph.pytree import flatten as _flatten, unflatten as _unflatten
from .install_check import run_check
from .deprecation import deprecated, require_version


def _sorted(obj):
    """`obj` with dict keys in sorted order (Paddle flattens dicts by sorted key)."""
    if isinstance(obj, dict):
        return {k: _sorted(obj[k]) for k in sorted(obj)}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_sorted(v) for v in obj)
    return obj


def flatten(nest):
    """The leaves of `nest` in order (dicts by sorted key); a non-nested value gives `[nest]`.

    Example:
        >>> oar.utils.flatten([1, {"b": 3, "a": (2,)}]), oar.utils.flatten(5)
        ([1, 2, 3], [5])
    """
    return _flatten(_sorted(nest))[0]


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence` packed into the nesting of `structure` (the inverse of `flatten`).

    Example:
        >>> oar.utils.pack_sequence_as({"b": 0, "a": [0, 0]}, [1, 2, 3])
        {'a': [1, 2], 'b': 3}
    """
    leaves, tree = _flatten(_sorted(structure))
    flat = list(flat_sequence)
    if len(flat) != len(leaves):
        raise ValueError(f"pack_sequence_as: the structure has {len(leaves)} leaves, got {len(flat)} values")
    return _unflatten(tree, flat)


def map_structure(func, *structures):
    """`func` applied leaf by leaf to structures of the same nesting; the result has that nesting.

    Example:
        >>> oar.utils.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)])
        [11, (22, 33)]
    """
    if not structures:
        raise TypeError("map_structure needs at least one structure")
    flats = [_flatten(_sorted(s)) for s in structures]
    tree = flats[0][1]
    for leaves, t in flats[1:]:
        if t != tree:
            raise ValueError("map_structure: the structures do not have the same nesting")
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*(f[0] for f in flats))])


def try_import(module_name, err_msg=None):
    """Imports `module_name`, or raises ImportError saying how to install it.

    Example:
        >>> oar.utils.try_import('json').dumps([1])
        '[1]'
    """
    import importlib
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError(err_msg or f"{module_name} is needed here and is not installed: "
                          f"pip install {module_name.split('.')[0]}") from None


def __getattr__(name):
    if name == "download":  # paddle.utils.download: loads oar.dataset on first use
        import importlib
        return importlib.import_module(".download", __name__)
    raise AttributeError(f"module 'oar.utils' has no attribute {name!r}")
