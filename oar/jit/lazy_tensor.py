"""`LazyTensor`: a Tensor whose value a pending lazy graph (`oar.lazy()`) computes. Its shape, dtype and gradient
bookkeeping are known at once; reading ``_data`` (the array) runs the pending graph first, so every read of the
value (``numpy()``, ``item()``, ``print``, ``bool()``, a kernel of an op that runs eagerly) sees exactly what eager
mode computes.

Example:
    >>> with oar.lazy():
    ...     y = oar.ones([2]) * 3.0
    ...     print(type(y).__name__, y.shape, y.is_pending())
    LazyTensor [2] True
"""
import numpy as np

from ..core import dtype as D
from ..eager.tensor import Tensor
from ..ops import registry

_ADD = registry.get_op("add")
SLOT = Tensor.__dict__["_data"]   # the `_data` slot of Tensor: where a LazyTensor keeps its array once computed


class LazyTensor(Tensor):
    """A Tensor whose value a pending lazy graph computes. Reading ``_data`` runs that graph first."""

    # _pending: (graph, ref, shape, DType) while pending, (None, why, shape, DType) when its graph failed, else
    # None; _check: the eagerly computed value in check mode; _zeroed: the version at which `clear_grad()` zeroed
    # this gradient (`_accumulate` then takes the next gradient as it is instead of adding it to zeros)
    # _view_of: the inputs of the view op that made it, until its graph runs and it becomes a view of the first
    __slots__ = ("_pending", "_check", "_zeroed", "_view_of")

    def _get_data(self):
        p = self._pending
        if p is not None:
            if p[0] is None:  # its graph raised when it ran: say so on every later read
                raise RuntimeError(f"this lazy value was not computed: its graph failed ({p[1]})")
            p[0].flush()
        return SLOT.__get__(self, LazyTensor)

    def _set_data(self, a):
        SLOT.__set__(self, a)
        self._pending = None

    _data = property(_get_data, _set_data)

    def is_pending(self):
        """True while the value has not been computed yet.

        Example:
            >>> with oar.lazy():
            ...     y = oar.ones([2]) + 1.0
            ...     before = y.is_pending()
            >>> before, y.is_pending()
            (True, False)
        """
        return self._pending is not None

    def _meta(self):
        p = self._pending
        if p is not None:
            return p[2], p[3].np
        a = SLOT.__get__(self, LazyTensor)
        return a.shape, a.dtype

    def _grad_copy(self):
        p = self._pending
        if p is None or p[0] is None:
            return Tensor._grad_copy(self)
        t = p[0].alias(self, share=False)
        t.stop_gradient = False
        return t

    def _mark_zeroed(self):
        """`Optimizer.clear_grad()` has just zeroed this gradient (in place, one version later)."""
        self._zeroed = self._vc[0]

    def _accumulate(self, g):
        if self._pending is None and (type(g) is not LazyTensor or g._pending is None):
            return Tensor._accumulate(self, g)
        p = g._pending if type(g) is LazyTensor else None
        if self._zeroed == self._vc[0] and self._pending is None and p is not None and p[0] is not None and \
                self._meta() == (tuple(p[2]), p[3].np):
            # zeroed by clear_grad() and unwritten since: ``0 + g`` is g (the captured step's shortcut), except
            # that a -0.0 of g stays -0.0 where eager's add gives +0.0 (equal values; docs/tracing.md)
            p[0].adopt(self, g, move=False)
            self._zeroed = None
            self._vc[0] += 1
            return
        if self._meta()[1] is g._meta()[1]:  # recorded as one add op (the gradient stays pending)
            s = registry.apply(_ADD, [self, g])
        else:  # promoted as eager's NumPy add promotes
            s = self + g
        p = s._pending if type(s) is LazyTensor else None
        if p is None or p[0] is None:
            self._data = s._data
        else:
            p[0].adopt(self, s)
        self._vc[0] += 1

    @property
    def shape(self):
        p = self._pending
        return list(p[2]) if p is not None else list(SLOT.__get__(self, LazyTensor).shape)

    @property
    def ndim(self):
        p = self._pending
        return len(p[2]) if p is not None else SLOT.__get__(self, LazyTensor).ndim

    def dim(self):
        return self.ndim

    @property
    def size(self):
        p = self._pending
        return int(np.prod(p[2], dtype=np.int64)) if p is not None else int(SLOT.__get__(self, LazyTensor).size)

    @property
    def dtype(self):
        p = self._pending
        return p[3] if p is not None else D.convert_dtype(SLOT.__get__(self, LazyTensor).dtype)


def new_lazy(graph, ref, shape, dtype):
    """A pending LazyTensor of value `ref` in `graph`."""
    t = object.__new__(LazyTensor)
    t.stop_gradient = True
    t._grad = t._node = t._name = t._hooks = t._check = t._zeroed = t._view_of = None
    t._vc = [0, False]
    t.persistable = False
    t._pending = (graph, ref, shape, dtype)
    return t
