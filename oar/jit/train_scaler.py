"""`GradScaler` inside a captured training step (`oar.jit.train_step`).

The scale and its inverse are fed from the scaler on every run; `unscale_` multiplies the step's gradients by
the inverse and computes `found_inf` in the program; `step` gates every update (parameter and accumulators keep
their old value when `found_inf`), as the eager scaler skips the step; `update` runs on the host after the program,
with the fetched `found_inf`, so the scale and its counters stay the scaler's own Python state.

Example:
    >>> net = oar.nn.Linear(4, 1)
    >>> opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
    >>> scaler = oar.amp.GradScaler(init_loss_scaling=1024, incr_every_n_steps=1)
    >>> @oar.jit.to_static
    ... def step(x):
    ...     loss = net(x).mean()
    ...     scaler.scale(loss).backward()
    ...     scaler.minimize(opt, loss)
    ...     opt.clear_grad()
    ...     return loss
    >>> _ = step(oar.ones([2, 4]))
    >>> scaler.get_loss_scaling()      # updated on the host after the run: a clean step grew it
    2048.0
"""
import numpy as np

from ..core import dtype as D
from ..graph import builder

_UNSCALED, _STEPPED = "unscaled", "stepped"


class ScalerCapture:
    """The trace-time state of one GradScaler in one captured step."""

    def __init__(self):
        self.found = None      # bool Variable: a gradient was inf/nan
        self.states = {}       # id(optimizer) -> _UNSCALED / _STEPPED since the last update


def _of(cap, scaler):
    s = cap.scalers.get(id(scaler))
    if s is None:
        s = cap.scalers[id(scaler)] = ScalerCapture()
    return s


def scale(cap, scaler, var):
    cap.used = True
    s = cap.feed(lambda: np.array(scaler._scale, np.float32), D.float32, "loss_scaling")
    return var * (s if var.dtype is D.float32 else s.astype(var.dtype))


def unscale(cap, scaler, opt):
    from ..ops.logic import all as all_, logical_not, logical_or
    from ..ops.math import isfinite
    sc = _of(cap, scaler)
    state = sc.states.get(id(opt))
    if state is not None:
        raise RuntimeError(f"GradScaler.unscale_() was already called on this optimizer since the last update() "
                           f"({'after step()' if state == _STEPPED else 'twice'})")
    inv = cap.feed(lambda: np.array(1.0 / scaler._scale, np.float32), D.float32, "inverse_loss_scaling")
    gb = cap.program.global_block()
    for p in opt._parameter_list or ():
        n = builder.as_var(gb, p).name
        g = cap.current_grad(n, p)
        if g is None:
            continue
        bad = logical_not(all_(isfinite(g)))
        sc.found = bad if sc.found is None else logical_or(sc.found, bad)
        cap.state[n] = g * (inv if g.dtype is D.float32 else inv.astype(g.dtype))
    sc.states[id(opt)] = _UNSCALED


def step(cap, scaler, opt):
    sc = _of(cap, scaler)
    if sc.states.get(id(opt)) == _STEPPED:
        raise RuntimeError("GradScaler.step() was already called on this optimizer since the last update()")
    if sc.states.get(id(opt)) != _UNSCALED:
        unscale(cap, scaler, opt)
    cap.step(opt, gate=sc.found)
    sc.states[id(opt)] = _STEPPED


def update(cap, scaler):
    sc = _of(cap, scaler)
    found = sc.found
    sc.found, sc.states = None, {}

    def after(value=None):
        scaler._found_inf = bool(value) if value is not None else False
        scaler.update()
    cap.after(found, after)
