"""Helpers for the `verify` hooks of ops lowered by the executor (``OpDef.verify``).

A verify hook gets an op as read from a file (``inputs`` and ``outputs``: slot -> [names], ``attrs``) after the
generic checks of `serialize.validate` passed, and returns None or a message saying what is wrong, so a malformed
control-flow op is rejected before the executor compiles it.

Example:
    >>> fields_problem({"body_block": 2, "body_in": ["a"]}, ints=("body_block",), names=("body_in", "body_out"))
    "missing attribute 'body_out'"
    >>> distinct_problem(["a", "b", "a"], "body_in + input")
    "body_in + input names 'a' twice"
"""


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


_KINDS = {"ints": (_is_int, "an int"), "strs": (lambda a: isinstance(a, str), "a string"),
          "names": (lambda a: isinstance(a, list) and all(isinstance(x, str) for x in a), "a list of names"),
          "bools": (lambda a: isinstance(a, bool), "a bool")}


def fields_problem(attrs, optional=(), **kinds):
    """The first required attribute missing or of the wrong kind (``ints``/``strs``/``names``/``bools`` give
    the names of each kind; names in `optional` may be absent), or None."""
    for kind, names in kinds.items():
        ok, what = _KINDS[kind]
        for n in names:
            if n not in attrs:
                if n in optional:
                    continue
                return f"missing attribute {n!r}"
            if not ok(attrs[n]):
                return f"attribute {n!r} must be {what}"
    return None


def distinct_problem(names, what):
    """A message when `names` (the parameters of a compiled sub-block) repeat a name, else None."""
    seen = set()
    for n in names:
        if n in seen:
            return f"{what} names {n!r:.80} twice"
        seen.add(n)
    return None


def count_problem(got, want, what):
    return None if got == want else f"{what}: expected {want} names, got {got}"
