"""`paddle.incubate.LookAhead` and `ModelAverage` (dynamic mode): optimizers that keep extra copies of the
parameters beside another optimizer's updates. Their state is NumPy arrays written back with ``set_value``."""
import contextlib

import numpy as np

from ..core.state import STATE


def _dynamic_only(what):
    if STATE.static:
        raise NotImplementedError(f"{what} runs in dynamic mode in oar (Paddle also builds it into static programs; "
                                  f"call oar.disable_static() or use oar.static.ExponentialMovingAverage)")


def _trainable(parameters):
    return [p for p in parameters if not p.stop_gradient]


class LookAhead:
    """Lookahead (Zhang et al. 2019) around `inner_optimizer`: after each inner step t (from 1), the slow weights
    start as the parameters at t = 1, and every `k` steps both become ``alpha * fast + (1 - alpha) * slow``.

    Example:
        >>> lin = oar.nn.Linear(2, 1)
        >>> opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=lin.parameters()), alpha=0.5, k=2)
        >>> lin(oar.ones([1, 2])).sum().backward()
        >>> opt.step(); opt.clear_grad()
        >>> opt.k, opt.alpha
        (2, 0.5)
    """

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        _dynamic_only("LookAhead")
        if inner_optimizer is None:
            raise ValueError("LookAhead: inner_optimizer must be given")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"LookAhead: alpha must be in [0, 1], got {alpha}")
        if not isinstance(k, int) or k <= 0:
            raise ValueError(f"LookAhead: k must be a positive int, got {k!r}")
        self.inner_optimizer, self.alpha, self.k = inner_optimizer, float(alpha), k
        self._parameter_list = list(inner_optimizer._parameter_list or [])
        self._slow = {}
        self._step = 0

    def step(self):
        """The inner optimizer's step, then the lookahead update of the parameters that have a gradient."""
        self.inner_optimizer.step()
        self._lookahead()

    def _lookahead(self):
        self._step += 1
        for p in _trainable(self._parameter_list):
            if p.grad is None:
                continue
            fast = p.numpy()
            if self._step == 1:
                self._slow[p.name] = fast.copy()
            if self._step % self.k == 0:
                mixed = (self.alpha * fast + (1.0 - self.alpha) * self._slow[p.name]).astype(fast.dtype)
                self._slow[p.name] = mixed
                p.set_value(mixed)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The inner optimizer's ``minimize`` (the same arguments), then the lookahead update."""
        res = self.inner_optimizer.minimize(loss, startup_program=startup_program, parameters=parameters,
                                            no_grad_set=no_grad_set)
        self._lookahead()
        return res

    def clear_grad(self, set_to_zero=True):
        self.inner_optimizer.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def get_lr(self):
        return self.inner_optimizer.get_lr()

    def state_dict(self):
        state = dict(self.inner_optimizer.state_dict())
        state.update({f"{n}_slow": v for n, v in self._slow.items()}, lookahead_step=self._step)
        return state

    def set_state_dict(self, state_dict):
        state = dict(state_dict)
        self._step = int(state.pop("lookahead_step", 0))
        self._slow = {k[:-len("_slow")]: np.asarray(state.pop(k)) for k in list(state) if k.endswith("_slow")}
        self.inner_optimizer.set_state_dict(state)


_MAX_NUM_ACCUMULATES = 16384  # Paddle moves sum_1 into sum_2 this often, against loss of precision


class _Sums:
    def __init__(self, like):
        self.sum_1, self.sum_2, self.sum_3 = (np.zeros_like(like) for _ in range(3))
        self.num_accumulates = self.old_num_accumulates = self.num_updates = 0


class ModelAverage:
    """Averages each parameter over a sliding window of recent steps; `apply` swaps the averages in for
    evaluation (and `restore` puts the trained values back). Call `step` after the training optimizer's step.

    The window follows Paddle's `average_accumulates` kernel: it is closed, and a new one started, once it holds
    at least `min_average_window` steps and at least ``min(max_average_window, int(updates * average_window_rate))``;
    the average covers the open and the last closed window.

    Example:
        >>> lin = oar.nn.Linear(2, 1)
        >>> avg = oar.incubate.ModelAverage(0.15, parameters=lin.parameters(), min_average_window=2,
        ...                                 max_average_window=10)
        >>> lin(oar.ones([1, 2])).sum().backward()
        >>> avg.step()
        >>> with avg.apply():
        ...     same = lin.weight.numpy().tolist()
        >>> same == lin.weight.numpy().tolist()
        True
    """

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000, max_average_window=10000,
                 name=None):
        _dynamic_only("ModelAverage")
        if parameters is None:
            raise ValueError("ModelAverage: give the parameters to average (parameters=layer.parameters())")
        if min_average_window > max_average_window:
            raise ValueError(f"ModelAverage: min_average_window {min_average_window} > max_average_window "
                             f"{max_average_window}")
        self.average_window = float(average_window_rate)
        self.min_average_window, self.max_average_window = int(min_average_window), int(max_average_window)
        self._parameter_list = list(parameters)
        self._sums = {}
        self._restore = None

    def step(self):
        """Adds the current value of every trainable parameter that has a gradient to its window."""
        for p in _trainable(self._parameter_list):
            if p.grad is None:
                continue
            s = self._sums.setdefault(p.name, _Sums(p.numpy()))
            s.num_updates += 1
            s.num_accumulates += 1
            s.sum_1 = s.sum_1 + p.numpy()
            if s.num_updates % _MAX_NUM_ACCUMULATES == 0:
                s.sum_2, s.sum_1 = s.sum_2 + s.sum_1, np.zeros_like(s.sum_1)
            if s.num_accumulates >= self.min_average_window and \
                    s.num_accumulates >= min(self.max_average_window, self._window(s.num_updates)):
                s.sum_3 = s.sum_1 + s.sum_2
                s.sum_1, s.sum_2 = np.zeros_like(s.sum_1), np.zeros_like(s.sum_2)
                s.old_num_accumulates, s.num_accumulates = s.num_accumulates, 0

    def _window(self, num_updates):
        # Paddle's kernel takes the product in float32 and truncates it to an integer
        return int(np.float32(num_updates) * np.float32(self.average_window))

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """`step`: Paddle's dynamic-mode ``minimize`` adds the current parameters to the window (the training
        optimizer has already used `loss`)."""
        self.step()

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Writes ``(sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates)`` into each averaged
        parameter; on exit puts the trained values back unless ``need_restore=False``."""
        self._restore = {}
        for p in self._parameter_list:
            s = self._sums.get(p.name)
            if s is None:
                continue
            self._restore[p.name] = (p, p.numpy().copy())
            total = np.float32(s.num_accumulates + s.old_num_accumulates)
            p.set_value(((s.sum_1 + s.sum_2 + s.sum_3).astype(np.float32) / total).astype(p.numpy().dtype))
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor=None):
        """Puts back the values `apply` replaced."""
        for p, value in (self._restore or {}).values():
            p.set_value(value)
        self._restore = None
