"""`paddle.autograd.jacobian` and `hessian`: matrices of first and second derivatives in dynamic mode, computed
row by row with `oar.grad` (``create_graph=True``, so a Jacobian can be differentiated again)."""
from ..eager.engine import grad
from ..ops.creation import zeros
from ..ops.manipulation import reshape, stack
from ..ops.reduction import sum as rsum


def _rows(y, x, batched):
    """The Jacobian of `y` by `x` as a tensor ``[M, N]`` (``[B, M, N]`` when `batched`)."""
    yf = reshape(y, [y.shape[0], -1]) if batched else reshape(y, [-1])
    n = reshape(x, [x.shape[0], -1]).shape[1] if batched else int(x.size)
    rows = []
    for i in range(yf.shape[-1]):
        target = rsum(yf[:, i]) if batched else yf[i]
        g, = grad(target, x, create_graph=True, allow_unused=True)
        if g is None:
            g = zeros(x.shape, x.dtype)
        rows.append(reshape(g, [x.shape[0], n]) if batched else reshape(g, [n]))
    if not rows:
        return zeros([x.shape[0], 0, n] if batched else [0, n], x.dtype)
    return stack(rows, axis=1 if batched else 0)


class Jacobian:
    """The Jacobian of `ys` by `xs` (see `jacobian`): index it (``J[:]``, ``J[0]``, ``J[:, 1]``) or read `shape`.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> oar.autograd.jacobian(x * x, x)[:].numpy().tolist()
        [[2.0, 0.0], [0.0, 4.0]]
    """

    def __init__(self, ys, xs, is_batched=False):
        lo, hi = (1, 2) if is_batched else (0, 1)
        for t, what in ((ys, "ys"), (xs, "xs")):
            if not lo <= t.ndim <= hi:
                raise ValueError(f"jacobian: {what}.ndim should be {lo} or {hi} when is_batched={is_batched} but "
                                 f"got {t.ndim}")
        if is_batched and ys.shape[0] != xs.shape[0]:
            raise ValueError(f"jacobian: ys and xs have different batch sizes {ys.shape[0]} and {xs.shape[0]}")
        j = _rows(ys, xs, is_batched)
        # a 0-d ys (or a [B] one when batched) has no row axis; a 0-d xs (or [B]) no column axis
        keep = ([j.shape[0]] if is_batched else []) + ([j.shape[-2]] if ys.ndim == hi else []) + \
            ([j.shape[-1]] if xs.ndim == hi else [])
        self._value = reshape(j, keep)

    @property
    def shape(self):
        return list(self._value.shape)

    def __getitem__(self, index):
        return self._value[index]


class Hessian(Jacobian):
    """The Hessian of a scalar `ys` by `xs` (see `hessian`): the Jacobian of its gradient.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> oar.autograd.hessian((x ** 3).sum(), x)[:].numpy().tolist()
        [[6.0, 0.0], [0.0, 12.0]]
    """


def _map(fn, ys, xs):
    if isinstance(ys, (list, tuple)):
        return tuple(_map(fn, y, xs) for y in ys)
    if isinstance(xs, (list, tuple)):
        return tuple(fn(ys, x) for x in xs)
    return fn(ys, xs)


def _batched(batch_axis):
    if batch_axis not in (None, 0):
        raise ValueError(f"batch_axis must be None or 0, got {batch_axis!r}")
    return batch_axis == 0


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian of `ys` by `xs`: ``J[i, j] = d ys[i] / d xs[j]`` for ys and xs of 0 or 1 dims (a 0-d one has no
    axis in J), or with ``batch_axis=0`` ``J[b, i, j]`` for inputs ``[B]`` or ``[B, N]`` whose samples are
    independent. A tuple of ys or xs gives a tuple of Jacobians (both: a tuple of tuples ``J[i][j]``).

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
        >>> j = oar.autograd.jacobian(x ** 2, x, batch_axis=0)
        >>> j.shape, j[1].numpy().tolist()
        ([2, 2, 2], [[6.0, 0.0], [0.0, 8.0]])
    """
    batched = _batched(batch_axis)
    return _map(lambda y, x: Jacobian(y, x, batched), ys, xs)


def hessian(ys, xs, batch_axis=None):
    """The Hessian of `ys` (one value, or ``[B]`` / ``[B, 1]`` with ``batch_axis=0``) by `xs`:
    ``H[i, j] = d^2 ys / d xs[i] d xs[j]``. A tuple of xs gives a tuple of tuples ``H[i][j]`` (by ``xs[i]`` then
    ``xs[j]``).

    Example:
        >>> x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        >>> oar.autograd.hessian((x ** 3).sum(), x)[:].numpy().diagonal().tolist()
        [6.0, 12.0, 18.0]
    """
    batched = _batched(batch_axis)
    if isinstance(ys, (list, tuple)):
        raise TypeError("hessian: ys must be one Tensor (a scalar, or [B] / [B, 1] with batch_axis=0)")
    if (ys.size != 1 and not batched) or (batched and (ys.ndim > 2 or ys.size != ys.shape[0])):
        raise ValueError(f"hessian: ys must hold one value per sample, got shape {ys.shape}")
    y = reshape(ys, [ys.shape[0]] if batched else [])

    def second(xi, xj):
        g, = grad(y if not batched else rsum(y), xi, create_graph=True, allow_unused=True)
        g = zeros(xi.shape, xi.dtype) if g is None else g
        h = Hessian.__new__(Hessian)
        Jacobian.__init__(h, g, xj, batched)
        return h
    if isinstance(xs, (list, tuple)):
        return tuple(tuple(second(xi, xj) for xj in xs) for xi in xs)
    return second(xs, xs)
