"""Learning-rate schedulers with Paddle's formulas. ``sched()`` is the current LR; ``sched.step()`` advances it.

Example:
    >>> model = oar.nn.Linear(2, 1)
    >>> sched = oar.optimizer.lr.StepDecay(learning_rate=0.1, step_size=10, gamma=0.5)
    >>> opt = oar.optimizer.SGD(learning_rate=sched, parameters=model.parameters())
    >>> for epoch in range(30):
    ...     model(oar.ones([1, 2])).sum().backward(); opt.step(); opt.clear_grad()
    ...     sched.step()
    >>> round(opt.get_lr(), 4)
    0.0125
"""
import math

from ..core import capture


class LRScheduler:
    """Base class: subclasses implement ``get_lr()`` from ``self.base_lr`` and ``self.last_epoch``.

    Args:
        learning_rate: the initial (base) learning rate.
        last_epoch: the epoch to resume from (-1 starts fresh; the constructor takes one step, so epoch 0).

    Example:
        >>> class Halving(oar.optimizer.lr.LRScheduler):
        ...     def get_lr(self):
        ...         return self.base_lr * 0.5 ** self.last_epoch
        >>> sched = Halving(learning_rate=1.0)
        >>> sched.step(); sched.step()
        >>> sched()
        0.25
        >>> opt = oar.optimizer.SGD(learning_rate=sched, parameters=oar.nn.Linear(2, 2).parameters())
        >>> opt.get_lr()
        0.25
    """

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, (float, int)):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float, got {type(learning_rate).__name__}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.keys = ["last_epoch", "last_lr"]
        self.step()

    def __call__(self):
        return self.last_lr

    def step(self, epoch=None):
        """Advances one epoch (or jumps to `epoch`) and recomputes ``last_lr``."""
        cap = capture.active()
        if cap is not None:  # inside a to_static training step: replayed before each run of its program
            return cap.host(lambda: self.step(epoch))
        from ..jit.recorder import active
        rec = active()
        if rec is not None:  # inside oar.jit.trace: replayed before each run of the traced program (and done now)
            rec.host_step(lambda: self.step(epoch))
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def get_lr(self):
        raise NotImplementedError

    def state_dict(self):
        """The scheduler's state as plain values (``last_epoch``, ``last_lr`` and subclass keys)."""
        return {k: self.__dict__[k] for k in self.keys}

    def set_state_dict(self, state_dict):
        for k in self.keys:
            if k in state_dict:
                v = state_dict[k]
                self.__dict__[k] = v.item() if hasattr(v, "item") and not isinstance(v, dict) else v

    set_dict = set_state_dict

    def __repr__(self):
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


class NoamDecay(LRScheduler):
    """``lr * d_model^-0.5 * min(epoch^-0.5, warmup_steps^-1.5 * epoch)`` (the Transformer schedule).

    Example:
        >>> sched = oar.optimizer.lr.NoamDecay(d_model=16, warmup_steps=2)
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [0.0, 0.0884, 0.1768, 0.1443]
    """

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``epoch < boundaries[i]``, the last value after the last boundary.

    Example:
        >>> sched = oar.optimizer.lr.PiecewiseDecay(boundaries=[1, 3], values=[1.0, 0.5, 0.1])
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay needs len(values) == len(boundaries) + 1, got {len(values)} values "
                             f"and {len(boundaries)} boundaries")
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(float(values[0]), last_epoch, verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """``lr * exp(-gamma * epoch)``.

    Example:
        >>> sched = oar.optimizer.lr.NaturalExpDecay(learning_rate=1.0, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(3):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.6065, 0.3679]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``lr / (1 + gamma * epoch)``.

    Example:
        >>> sched = oar.optimizer.lr.InverseTimeDecay(learning_rate=1.0, gamma=1.0)
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.3333, 0.25]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """``(lr - end_lr) * (1 - epoch / decay_steps)^power + end_lr``; with `cycle`, decay_steps grows by multiples.

    Example:
        >>> sched = oar.optimizer.lr.PolynomialDecay(learning_rate=1.0, decay_steps=4, end_lr=0.0)
        >>> lrs = []
        >>> for _ in range(6):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1,
                 verbose=False):
        if decay_steps <= 0:
            raise ValueError("PolynomialDecay: decay_steps must be > 0")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            div = math.ceil(float(epoch) / float(steps))
            steps = steps * (1 if epoch == 0 else div)
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear warm-up from `start_lr` to `end_lr` over `warmup_steps`, then `learning_rate` (float or scheduler).

    Example:
        >>> sched = oar.optimizer.lr.LinearWarmup(learning_rate=0.5, warmup_steps=2, start_lr=0.0, end_lr=0.5)
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [0.0, 0.25, 0.5, 0.5]
    """

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, (float, int, LRScheduler)):
            raise TypeError("LinearWarmup: learning_rate must be a float or an LRScheduler")
        self.learning_rate = learning_rate
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler) and "LinearWarmup_LR" in state_dict:
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)


class ExponentialDecay(LRScheduler):
    """``lr * gamma^epoch``.

    Example:
        >>> sched = oar.optimizer.lr.ExponentialDecay(learning_rate=1.0, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** self.last_epoch)


class MultiStepDecay(LRScheduler):
    """``lr * gamma^i`` where i is the number of milestones passed.

    Example:
        >>> sched = oar.optimizer.lr.MultiStepDecay(learning_rate=1.0, milestones=[1, 3], gamma=0.1)
        >>> lrs = []
        >>> for _ in range(4):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.1, 0.1, 0.01]
    """

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if list(milestones) != sorted(milestones):
            raise ValueError("MultiStepDecay: milestones must be increasing")
        if gamma >= 1.0:
            raise ValueError("MultiStepDecay: gamma should be < 1.0")
        self.milestones, self.gamma = list(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, m in enumerate(self.milestones):
            if self.last_epoch < m:
                return self.base_lr * self.gamma ** i
        return self.base_lr * self.gamma ** len(self.milestones)


class StepDecay(LRScheduler):
    """``lr * gamma^(epoch // step_size)``.

    Example:
        >>> sched = oar.optimizer.lr.StepDecay(learning_rate=1.0, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(step_size, int) or step_size <= 0:
            raise ValueError(f"StepDecay: step_size must be a positive int, got {step_size!r}")
        if gamma >= 1.0:
            raise ValueError("StepDecay: gamma should be < 1.0")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))


class LambdaDecay(LRScheduler):
    """``lr * lr_lambda(epoch)``.

    Example:
        >>> sched = oar.optimizer.lr.LambdaDecay(learning_rate=1.0, lr_lambda=lambda e: 0.9 ** e)
        >>> lrs = []
        >>> for _ in range(3):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.9, 0.81]
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("LambdaDecay: lr_lambda must be callable(epoch) -> float")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """``lr * prod(lr_lambda(e) for e in 1..epoch)``.

    Example:
        >>> sched = oar.optimizer.lr.MultiplicativeDecay(learning_rate=1.0, lr_lambda=lambda e: 0.5)
        >>> lrs = []
        >>> for _ in range(3):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25]
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for e in range(1, self.last_epoch + 1):
            lr *= self.lr_lambda(e)
        return lr


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing between `learning_rate` and `eta_min` with half-period `T_max` (Paddle's recursive form).

    Example:
        >>> sched = oar.optimizer.lr.CosineAnnealingDecay(learning_rate=1.0, T_max=4)
        >>> lrs = []
        >>> for _ in range(5):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_max, int) or T_max <= 0:
            raise ValueError(f"CosineAnnealingDecay: T_max must be a positive int, got {T_max!r}")
        self.T_max, self.eta_min = T_max, float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, T = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - T) % (2 * T) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
        return ((1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) *
                (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class OneCycleLR(LRScheduler):
    """One-cycle policy: warm up to `max_learning_rate`, then anneal to `end_learning_rate` (cos or linear).

    Example:
        >>> sched = oar.optimizer.lr.OneCycleLR(max_learning_rate=1.0, total_steps=5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [0.04, 0.9505, 0.6113, 0.1883, 0.0001]
    """

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001, phase_pct=0.3,
                 anneal_strategy="cos", three_phase=False, last_epoch=-1, verbose=False):
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"OneCycleLR: total_steps must be a positive int, got {total_steps!r}")
        if not 0 <= phase_pct <= 1:
            raise ValueError("OneCycleLR: phase_pct must be in [0, 1]")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        self.total_steps = total_steps
        initial, lo = max_learning_rate / float(divide_factor), float(end_learning_rate)
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError(f"OneCycleLR: phase_pct must be < 0.5 with three_phase=True, got {phase_pct}")
            s = [0, float(phase_pct * total_steps) - 1, float(2 * phase_pct * total_steps) - 2, total_steps - 1]
            self._steps_size = [s[1] - s[0], s[2] - s[1], s[3] - s[2], s[3] - s[2]]
            self._lr_config = [initial, max_learning_rate, initial, lo]
        else:
            s = [0, float(phase_pct * total_steps) - 1, total_steps - 1]
            self._steps_size = [s[1] - s[0], s[2] - s[1], s[2] - s[1]]
            self._lr_config = [initial, max_learning_rate, lo]
        self._start_steps = s
        self._anneal = self._cos if anneal_strategy == "cos" else self._linear
        super().__init__(initial, last_epoch, verbose)

    @staticmethod
    def _cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {step} times, more than total_steps={self.total_steps}")
        for i, (end, size) in enumerate(zip(self._start_steps[1:], self._steps_size)):
            if step <= end or i == len(self._lr_config) - 2:
                pct = (step - self._start_steps[i]) / size
                return self._anneal(self._lr_config[i], self._lr_config[i + 1], pct)


class ReduceOnPlateau(LRScheduler):
    """Multiplies the LR by `factor` when `metrics` passed to ``step(metrics)`` stop improving for `patience` epochs.

    Example:
        >>> sched = oar.optimizer.lr.ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=1)
        >>> for loss in [1.0, 1.0, 1.0, 1.0]:
        ...     sched.step(loss)
        >>> sched()
        0.5
    """

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if factor >= 1.0:
            raise ValueError("ReduceOnPlateau: factor should be < 1.0")
        if not isinstance(learning_rate, (float, int)):
            raise TypeError("ReduceOnPlateau: learning_rate must be a float")
        self.mode, self.factor, self.patience, self.threshold = mode, factor, patience, threshold
        self.threshold_mode, self.cooldown, self.min_lr, self.epsilon = threshold_mode, cooldown, min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch, self.verbose = 0, verbose
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Records `metrics` (a float or a one-element tensor) for this epoch and maybe reduces the LR."""
        cap = capture.active()
        if cap is not None:  # in a to_static training step: runs after each run, with the fetched metric
            return cap.after_scheduler(self, metrics, lambda value: self.step(value, epoch))
        from ..jit.recorder import TraceError, active
        rec = active()
        if rec is not None:  # inside oar.jit.trace: a Python metric is replayed before each run
            if hasattr(metrics, "_data"):
                raise TraceError("ReduceOnPlateau.step(metric tensor) inside oar.jit.trace: it decides on a "
                                 "value the program computes; call it outside the traced function")
            rec.host_step(lambda: self.step(metrics, epoch))
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        current = float(metrics.item() if hasattr(metrics, "item") else metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to {self.last_lr}.")

    def _is_better(self, current, best):
        if self.mode == "min":
            return current < (best - best * self.threshold if self.threshold_mode == "rel" else best - self.threshold)
        return current > (best + best * self.threshold if self.threshold_mode == "rel" else best + self.threshold)


from .lr_cyclic import LinearLR, CyclicLR, CosineAnnealingWarmRestarts  # noqa: E402,F401
