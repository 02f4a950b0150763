"""`GradScaler`: loss scaling for float16 training, with dynamic scale updates (Paddle 2.x semantics).

The loss is multiplied by the scale before `backward()` so that small float16 gradients do not flush to zero;
`unscale_` divides the parameters' gradients by it and checks them for inf/nan; a step whose gradients overflow
is skipped and (with dynamic loss scaling) the scale shrinks after `decr_every_n_nan_or_inf` such steps and grows
after `incr_every_n_steps` clean ones.

Example:
    >>> model = oar.nn.Linear(4, 1)
    >>> optimizer = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    >>> scaler = oar.amp.GradScaler(init_loss_scaling=1024)
    >>> with oar.amp.auto_cast():
    ...     loss = model(oar.ones([2, 4])).mean()
    >>> scaler.scale(loss).backward()
    >>> scaler.minimize(optimizer, scaler.scale(loss))   # unscale, step unless overflow, update the scale
    >>> optimizer.clear_grad()
"""
import numpy as np

from ..core.devices import to_host
from ..core.state import STATE
from ..kernels.backend import array_module
from ..core import capture

_UNSCALED, _STEPPED = 1, 2


class GradScaler:
    """Scales the loss, unscales and checks the gradients, skips overflowing steps, adapts the scale.

    Args:
        enable: False makes every method a pass-through (`scale` returns the loss unchanged).
        init_loss_scaling: the initial scale.
        incr_ratio / decr_ratio: factors applied to grow / shrink the scale.
        incr_every_n_steps: clean steps in a row before the scale grows.
        decr_every_n_nan_or_inf: overflowing steps (counted since the last clean one) before it shrinks.
        use_dynamic_loss_scaling: False keeps the scale fixed (steps with inf/nan are still skipped).

    Example:
        >>> model = oar.nn.Linear(2, 1)
        >>> opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        >>> scaler = oar.amp.GradScaler(init_loss_scaling=1024.0)
        >>> with oar.amp.auto_cast():
        ...     loss = model(oar.ones([4, 2])).mean()
        >>> scaler.scale(loss).backward()
        >>> scaler.minimize(opt, scaler.scale(loss))
        >>> float(scaler.get_loss_scaling())
        1024.0
    """

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=2, use_dynamic_loss_scaling=True):
        if incr_ratio <= 1.0:
            raise ValueError(f"GradScaler: incr_ratio must be > 1, got {incr_ratio}")
        if not 0.0 < decr_ratio < 1.0:
            raise ValueError(f"GradScaler: decr_ratio must be in (0, 1), got {decr_ratio}")
        self._enable = bool(enable)
        self._scale = float(init_loss_scaling)
        self._init_loss_scaling = float(init_loss_scaling)
        self._incr_ratio, self._decr_ratio = float(incr_ratio), float(decr_ratio)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._use_dynamic = bool(use_dynamic_loss_scaling)
        self._incr_count = self._decr_count = 0
        self._found_inf = False
        self._states = {}   # id(optimizer) -> _UNSCALED / _STEPPED since the last update()

    # ---- the training step ----------------------------------------------------------------------------------
    def scale(self, var):
        """`var` (the loss) multiplied by the current scale."""
        if not self._enable:
            return var
        if capture.active() is not None:  # inside a to_static training step
            return capture.active().scaler_scale(self, var)
        _check_dynamic("scale")
        return var * self._scale

    def unscale_(self, optimizer):
        """Divides the gradients of `optimizer`'s parameters by the scale (once per step) and records whether
        any of them is inf or nan."""
        if not self._enable:
            return
        if capture.active() is not None:
            return capture.active().scaler_unscale(self, optimizer)
        _check_dynamic("unscale_")
        state = self._states.get(id(optimizer))
        if state == _UNSCALED:
            raise RuntimeError("GradScaler.unscale_() was already called on this optimizer since the last update()")
        if state == _STEPPED:
            raise RuntimeError("GradScaler.unscale_() is being called after step()")
        inv = 1.0 / self._scale
        found = False
        for p in _parameters(optimizer):
            g = p._grad
            if g is None:
                continue
            a = g._data
            if not found and not array_module(a).isfinite(a).all():
                found = True
            g._data = (a * inv).astype(a.dtype, copy=False)
            g._version += 1
        self._found_inf = self._found_inf or found
        self._states[id(optimizer)] = _UNSCALED

    def step(self, optimizer):
        """Unscales (if `unscale_` was not called) and runs ``optimizer.step()`` unless a gradient overflowed."""
        if not self._enable:
            return optimizer.step()
        if capture.active() is not None:
            return capture.active().scaler_step(self, optimizer)
        if self._states.get(id(optimizer)) == _STEPPED:
            raise RuntimeError("GradScaler.step() was already called on this optimizer since the last update()")
        if self._states.get(id(optimizer)) != _UNSCALED:
            self.unscale_(optimizer)
        if not self._found_inf:
            optimizer.step()
        self._states[id(optimizer)] = _STEPPED

    def minimize(self, optimizer, *args, **kwargs):
        """`step` then `update`: the whole parameter update of one training step (gradients already computed)."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        self.step(optimizer)
        self.update()

    def update(self):
        """Adapts the scale to whether this step overflowed (with dynamic loss scaling) and starts a new step."""
        if not self._enable:
            return
        if capture.active() is not None:  # runs after each run of the captured step, with its found_inf
            return capture.active().scaler_update(self)
        if self._use_dynamic:
            if self._found_inf:
                self._incr_count = 0
                self._decr_count += 1
                if self._decr_count >= self._decr_every_n_nan_or_inf:
                    self._scale = max(self._scale * self._decr_ratio, np.finfo(np.float32).tiny)
                    self._decr_count = 0
            else:
                self._decr_count = 0
                self._incr_count += 1
                if self._incr_count >= self._incr_every_n_steps:
                    new = self._scale * self._incr_ratio
                    if np.isfinite(np.float32(new)):
                        self._scale = new
                    self._incr_count = 0
        self._found_inf = False
        self._states.clear()

    # ---- settings and state ---------------------------------------------------------------------------------
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic

    def get_loss_scaling(self):
        """The current scale (a float)."""
        return self._scale

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = self._scale = float(new_init_loss_scaling)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, v):
        if v <= 1.0:
            raise ValueError(f"incr_ratio must be > 1, got {v}")
        self._incr_ratio = float(v)

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, v):
        if not 0.0 < v < 1.0:
            raise ValueError(f"decr_ratio must be in (0, 1), got {v}")
        self._decr_ratio = float(v)

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, v):
        self._incr_every_n_steps = int(v)

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, v):
        self._decr_every_n_nan_or_inf = int(v)

    def state_dict(self):
        """The scaler's state (Paddle's keys; 'scale' is a 0-D float32 array); empty when disabled."""
        if not self._enable:
            return {}
        return {"scale": np.array(self._scale, np.float32), "incr_ratio": self._incr_ratio,
                "decr_ratio": self._decr_ratio, "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf, "incr_count": self._incr_count,
                "decr_count": self._decr_count, "use_dynamic_loss_scaling": self._use_dynamic}

    def load_state_dict(self, state_dict):
        """Restores a `state_dict()`."""
        if not self._enable:
            return
        if not state_dict:
            raise RuntimeError("GradScaler.load_state_dict: the state dict is empty (it was saved from a disabled "
                               "GradScaler?)")
        s = state_dict["scale"]
        self._scale = float(to_host(getattr(s, "_data", s)).reshape(-1)[0])
        self._init_loss_scaling = self._scale
        self._incr_ratio = float(state_dict["incr_ratio"])
        self._decr_ratio = float(state_dict["decr_ratio"])
        self._incr_every_n_steps = int(state_dict["incr_every_n_steps"])
        self._decr_every_n_nan_or_inf = int(state_dict["decr_every_n_nan_or_inf"])
        self._incr_count = int(state_dict.get("incr_count", 0))
        self._decr_count = int(state_dict.get("decr_count", 0))
        self._use_dynamic = bool(state_dict.get("use_dynamic_loss_scaling", True))


AmpScaler = GradScaler


def _parameters(optimizer):
    params = getattr(optimizer, "_parameter_list", None)
    if params is None:
        raise ValueError(f"GradScaler: {type(optimizer).__name__} has no parameter list (dynamic-graph optimizers "
                         "need parameters=model.parameters())")
    return params


def _check_dynamic(what):
    if STATE.static:
        raise RuntimeError(f"GradScaler.{what}() works in dynamic-graph mode (also with to_static-converted "
                           "models); for a static Program, scale the loss in the program and use "
                           "optimizer.minimize")
