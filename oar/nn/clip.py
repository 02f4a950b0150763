"""Gradient clipping for optimizers (``grad_clip=``): each is ``clip(params_grads) -> params_grads``.

Built from ops, so the same objects clip eagerly and in static programs. A parameter with ``need_clip=False``
(`ParamAttr(need_clip=False)`) keeps its gradient as is.

Example:
    >>> model = oar.nn.Linear(2, 1)
    >>> clip = oar.nn.ClipGradByGlobalNorm(clip_norm=1.0)
    >>> sgd = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters(), grad_clip=clip)
    >>> (model(oar.full([1, 2], 100.0)) ** 2).sum().backward()
    >>> clipped = clip([(p, p.grad) for p in model.parameters()])
    >>> round(sum(float((g * g).sum()) for _, g in clipped) ** 0.5, 4)
    1.0
"""
from ..ops.math import clip as _clip, maximum, sqrt, sum as _sum


def _need_clip(p):
    return getattr(p, "need_clip", True)


class ClipGradBase:
    """Base of gradient clippers: ``clip(params_grads)`` returns the clipped ``(param, grad)`` list.

    Example:
        >>> clip = oar.nn.ClipGradByValue(max=1.0)
        >>> isinstance(clip, oar.nn.ClipGradBase)
        True
    """
    def __call__(self, params_grads):
        return self._dygraph_clip(params_grads)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v}' for k, v in vars(self).items())})"


class ClipGradByValue(ClipGradBase):
    """Clips every gradient element into ``[min, max]`` (``min`` defaults to ``-max``).

    Example:
        >>> clip = oar.nn.ClipGradByValue(min=-1, max=1)
    """

    def __init__(self, max, min=None):  # noqa: A002  (Paddle's argument names)
        if min is None:
            if max < 0:
                raise ValueError("ClipGradByValue: max must be >= 0 when min is not given")
            min = -max
        if min > max:
            raise ValueError(f"ClipGradByValue: min ({min}) must be <= max ({max})")
        self.min, self.max = float(min), float(max)

    def _dygraph_clip(self, params_grads):
        return [(p, _clip(g, self.min, self.max) if g is not None and _need_clip(p) else g) for p, g in params_grads]


class ClipGradByNorm(ClipGradBase):
    """Rescales each gradient whose L2 norm exceeds `clip_norm` to norm `clip_norm`.

    Example:
        >>> clip = oar.nn.ClipGradByNorm(clip_norm=1.0)
    """

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None or not _need_clip(p):
                out.append((p, g))
                continue
            norm = sqrt(_sum(g * g))
            out.append((p, g * (self.clip_norm / maximum(norm, norm * 0 + self.clip_norm))))
        return out


class ClipGradByGlobalNorm(ClipGradBase):
    """Rescales all gradients together when their global L2 norm exceeds `clip_norm`.

    Example:
        >>> clip = oar.nn.ClipGradByGlobalNorm(clip_norm=1.0)
    """

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm, self.group_name, self.auto_skip_clip = float(clip_norm), group_name, auto_skip_clip

    def _dygraph_clip(self, params_grads):
        squares = [_sum(g * g) for p, g in params_grads if g is not None and _need_clip(p)]
        if not squares:
            return params_grads
        total = squares[0]
        for s in squares[1:]:
            total = total + s
        norm = sqrt(total)
        scale = self.clip_norm / maximum(norm, norm * 0 + self.clip_norm)
        return [(p, g * scale if g is not None and _need_clip(p) else g) for p, g in params_grads]
