"""Schedulers that ramp or cycle: linear ramp (`LinearLR`), cyclic triangular/exponential (`CyclicLR`) and cosine
annealing with warm restarts (`CosineAnnealingWarmRestarts`, SGDR). Paddle's definitions, recursive where Paddle's
are."""
import math

from ..core import capture
from .lr import LRScheduler


class LinearLR(LRScheduler):
    """Scales `learning_rate` linearly from ``start_factor`` to ``end_factor`` over `total_steps` steps, then holds.

    Example:
        >>> sched = oar.optimizer.lr.LinearLR(1.0, total_steps=3, start_factor=0.25)
        >>> lrs = []
        >>> for _ in range(5):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1,
                 verbose=False):
        if not 0 < start_factor <= 1.0:
            raise ValueError(f"LinearLR: start_factor must lie in (0, 1], got {start_factor}")
        if not 0 <= end_factor <= 1.0:
            raise ValueError(f"LinearLR: end_factor must lie in [0, 1], got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"LinearLR: total_steps must be positive, got {total_steps}")
        self.start_factor, self.end_factor, self.total_steps = start_factor, end_factor, total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        delta = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + delta / (self.total_steps * self.start_factor + (self.last_epoch - 1) * delta))


class CyclicLR(LRScheduler):
    """Cycles between `base_learning_rate` and `max_learning_rate`: up over `step_size_up` steps, down over
    `step_size_down` (default the same); the height is scaled per cycle ('triangular': 1, 'triangular2': halved
    each cycle) or per iteration ('exp_range': ``exp_gamma ** iteration``), or by `scale_fn` of `scale_mode`.

    Example:
        >>> sched = oar.optimizer.lr.CyclicLR(0.0, 1.0, step_size_up=2, mode='triangular2')
        >>> lrs = []
        >>> for _ in range(7):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [0.0, 0.5, 1.0, 0.5, 0.0, 0.25, 0.5]
    """

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None, mode="triangular",
                 exp_gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1, verbose=False):
        if not isinstance(max_learning_rate, (float, int)) or max_learning_rate < 0:
            raise ValueError(f"CyclicLR: max_learning_rate must be a non-negative number, got {max_learning_rate!r}")
        for what, v in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if v is not None and (not isinstance(v, int) or v <= 0):
                raise ValueError(f"CyclicLR: {what} must be a positive int, got {v!r}")
        if not isinstance(exp_gamma, float):
            raise TypeError(f"CyclicLR: exp_gamma must be a float, got {type(exp_gamma).__name__}")
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range' (or give scale_fn), "
                             f"got {mode!r}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', got {scale_mode!r}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size, self.step_up_pct = up + down, up / (up + down)
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        else:
            self.scale_fn, self.scale_mode = {
                "triangular": (lambda c: 1.0, "cycle"),
                "triangular2": (lambda c: 1 / (2.0 ** (c - 1)), "cycle"),
                "exp_range": (lambda i: self.gamma ** i, "iterations")}[mode]
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        it = self.last_epoch
        cycle = 1 + it // self.cycle_size
        pct = 1.0 + it / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        return self.base_lr + self.amplitude * scale * self.scale_fn(cycle if self.scale_mode == "cycle" else it)


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine annealing from `learning_rate` to `eta_min` over `T_0` steps, restarting each time, the period
    multiplied by `T_mult` after every restart; ``step(epoch)`` may jump (fractional epochs allowed).

    Example:
        >>> sched = oar.optimizer.lr.CosineAnnealingWarmRestarts(1.0, T_0=2, T_mult=2)
        >>> lrs = []
        >>> for _ in range(7):
        ...     lrs.append(round(sched(), 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0]
    """

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be a positive int, got {T_0!r}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, got {T_mult!r}")
        self.T_0, self.T_i, self.T_mult, self.eta_min, self.T_cur = T_0, T_0, T_mult, eta_min, last_epoch
        super().__init__(learning_rate, last_epoch, verbose)
        self.keys = self.keys + ["T_i", "T_cur"]

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        cap = capture.active()
        if cap is not None:  # inside a to_static training step: replayed before each run of its program
            return cap.host(lambda: self.step(epoch))
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: epoch must be >= 0, got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")
