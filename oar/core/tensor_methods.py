"""`TensorMethods`: the operators and methods shared by eager `Tensor` and static `Variable`.

The class starts empty; `install()` attaches every method from the op modules' public functions, so a
method is never a second definition of an op (``x.sum(axis=1)`` is ``oar.sum(x, axis=1)``).
"""


class TensorMethods:
    __slots__ = ()


def install(table):
    """Attaches ``{method_name: function}``; called once by ``oar/__init__`` after the op modules load."""
    for name, fn in table.items():
        setattr(TensorMethods, name, fn)
