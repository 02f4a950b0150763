"""The `Distribution` base class (Paddle's `paddle.distribution.Distribution`) and the helpers every distribution
uses: parameters to tensors, shapes of samples, and the random-draw op behind `sample`."""
import numbers

import numpy as np

from ..eager.engine import grad
from ..core.state import no_grad
from ..ops.manipulation import broadcast_to
from ..ops.math import cast, exp, sqrt
from ..ops.rearrange import broadcast_shape
from ..eager.tensor import Tensor, to_tensor
from ..core import dtype as D
from ..core.state import rng
from ..ops.registry import apply, defop


def to_params(*args):
    """Parameters (numbers, lists, arrays, Tensors) as float Tensors of one dtype broadcast to one shape.

    Numbers and lists take the default float dtype; arrays and Tensors keep a float dtype of their own (float64
    wins when parameters disagree)."""
    ts = []
    for a in args:
        if isinstance(a, Tensor) or hasattr(a, "block"):
            ts.append(a)
        elif isinstance(a, np.ndarray):
            ts.append(to_tensor(a if a.dtype.kind == "f" else a.astype(D.default_float().np)))
        elif isinstance(a, (numbers.Real, list, tuple)):
            ts.append(to_tensor(np.asarray(a, D.default_float().np)))
        else:
            raise TypeError("distribution parameters must be numbers, lists, arrays or Tensors, "
                            f"got {type(a).__name__}")
    ts = [t if t.dtype.kind == "f" else cast(t, D.default_float()) for t in ts]
    if any(t.dtype is D.float64 for t in ts):
        ts = [cast(t, "float64") for t in ts]
    shape = broadcast_shape(ts[0].shape, ts[0].shape)
    for t in ts[1:]:
        shape = broadcast_shape(shape, t.shape)
    ts = [t if t.shape == shape else broadcast_to(t, shape) for t in ts]
    return ts if len(ts) > 1 else ts[0]


def value_like(value, param):
    """A `value` argument of log_prob & co. as a Tensor in the parameters' dtype."""
    if not isinstance(value, Tensor) and not hasattr(value, "block"):
        value = to_tensor(np.asarray(value))
    return value if value.dtype is param.dtype else cast(value, param.dtype)


# ---- one random op draws every distribution's non-reparameterized samples ------------------------------------------

def _draw(*params, kind, shape):
    g = rng()
    arrays = [np.broadcast_to(p, shape) for p in params]
    dtype = params[0].dtype if params else np.float32
    if kind == "gamma":  # standard gamma with concentration params[0]
        out = g.standard_gamma(arrays[0])
    elif kind == "binomial":
        out = g.binomial(arrays[0].astype(np.int64), arrays[1])
    elif kind == "poisson":
        out = g.poisson(arrays[0])
    elif kind == "student_t":
        out = g.standard_t(arrays[0])
    elif kind == "multinomial":  # params: total_count (per batch), probs [..., k]
        counts, probs = params[0], params[1]
        flat_p = np.broadcast_to(probs, shape).reshape(-1, shape[-1])
        flat_n = np.broadcast_to(counts, shape[:-1]).reshape(-1).astype(np.int64)
        out = np.stack([g.multinomial(n, p / p.sum()) for n, p in zip(flat_n, flat_p)]).reshape(shape)
    else:
        raise ValueError(f"unknown distribution draw {kind!r}")
    return np.asarray(out).astype(dtype)


DRAW = defop("distribution_draw", _draw, inputs=("params",), variadic=True, random=True,
             infer=lambda m, kind, shape: [(list(shape), m[0][1])], differentiable=False)


def draw(kind, shape, *params):
    """Samples of `shape` from numpy's generator `kind` with the given parameter tensors (no gradient)."""
    return apply(DRAW, tuple(p.detach() if hasattr(p, "detach") else p for p in params),
                 {"kind": kind, "shape": [int(s) for s in shape]})


class Distribution:
    """The base class of probability distributions.

    A distribution has a `batch_shape` (independent, differently parameterized copies) and an `event_shape` (the
    shape of one draw). ``sample(shape)`` returns ``shape + batch_shape + event_shape`` values; ``rsample`` does so
    with gradients flowing to the parameters where the distribution allows.

    Example:
        >>> d = oar.distribution.Normal(oar.zeros([3]), 1.0)
        >>> d.batch_shape, d.event_shape, d.sample([2]).shape
        ((3,), (), [2, 3])
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} has no closed-form mean")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} has no closed-form variance")

    @property
    def stddev(self):
        return sqrt(self.variance)

    def sample(self, shape=()):
        """Draws samples of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sampling")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} has no closed-form entropy")

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no log_prob")

    def prob(self, value):
        """The density (or mass) at `value`: ``exp(log_prob(value))``."""
        return exp(self.log_prob(value))

    def probs(self, value):
        """Paddle's name for `prob`."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other), from the `register_kl` registry."""
        from .kl import kl_divergence
        return kl_divergence(self, other)

    def _extend_shape(self, sample_shape):
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        return tuple(int(s) for s in sample_shape) + self._batch_shape + self._event_shape

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={self._batch_shape}, event_shape={self._event_shape})"


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions ``p(x) = h(x) exp(<eta, T(x)> - A(eta))``.

    Subclasses give `_natural_parameters` and `_log_normalizer(*eta)` (and `_mean_carrier_measure`, E[log h(x)]);
    the entropy then follows from the gradient of the log-normalizer:
    ``H = A(eta) - <eta, grad A(eta)> - E[log h(x)]``.

    Example:
        >>> round(oar.distribution.Exponential(2.0).entropy().item(), 4)
        0.3069
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        etas = [p.detach() for p in self._natural_parameters]
        for e in etas:
            e.stop_gradient = False
        log_norm = self._log_normalizer(*etas)
        grads = grad(log_norm.sum(), etas, create_graph=True)
        out = log_norm - self._mean_carrier_measure
        for e, g in zip(etas, grads):
            out = out - e * g
        return out
