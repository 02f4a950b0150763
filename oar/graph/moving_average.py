"""`ExponentialMovingAverage` of a static program's parameters (Paddle's `paddle.static.ExponentialMovingAverage`)."""
import contextlib

import numpy as np

from ..core.state import STATE
from .builder import append_assign, create_global_var, default_main_program
from .scope import global_scope

STEP_COUNTER = "@EMA_STEP_COUNTER@"


class ExponentialMovingAverage:
    """Keeps ``ema = decay * ema + (1 - decay) * param`` for every parameter of the main program (those whose
    ParamAttr has ``do_model_average``) and swaps the bias-corrected averages ``ema / (1 - decay ** step)`` in for
    evaluation. With `thres_steps` (a Variable, e.g. the global step) the decay is
    ``min(decay, (1 + t) / (10 + t))``, as Paddle schedules it.

    Build it after the network (and its optimizer) in the main program, call `update` once there (it appends the
    averaging ops, run at each training step), then ``with ema.apply(exe):`` evaluates with the averages and
    restores the parameters on exit (``need_restore=False`` keeps them; `restore` puts them back later).

    Example:
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([1], 'float32', name='ema_w',
        ...                                     default_initializer=oar.nn.initializer.Constant(2.0))
        ...     ema = oar.static.ExponentialMovingAverage(0.5)
        ...     ema.update()
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> _ = exe.run(main)
        >>> with ema.apply(exe):  # ema = 0.5 * 0 + 0.5 * 2 = 1, corrected by 1 - 0.5 ** 1
        ...     inside = np.array(oar.static.global_scope().find_var('ema_w').get_tensor()).tolist()
        >>> oar.disable_static()
        >>> inside
        [2.0]
    """

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if not STATE.static:
            raise RuntimeError("ExponentialMovingAverage averages a static program's parameters: call "
                               "oar.enable_static() first (Paddle refuses it in dynamic mode too)")
        from ..ops.creation import full
        from ..ops.math import cast, minimum
        self._decay = float(decay)
        prefix = name or ""
        main = default_main_program()
        self._decay_var = create_global_var([1], self._decay, "float32", persistable=True,
                                            name=main.unique_name("scheduled_ema_decay_rate"))
        if thres_steps is not None:
            t = cast(thres_steps, "float32")
            append_assign(minimum((t + 1.0) / (t + 10.0), full([1], self._decay, "float32")), self._decay_var)
        self._params = [p for p in main.global_block().all_parameters() if p.attrs.get("do_model_average", True)]
        self._ema = {p.name: create_global_var(p.shape, 0.0, p.dtype.name, persistable=True,
                                               name=main.unique_name(f"{prefix}{p.name}_ema"))
                     for p in self._params}
        self._backup = None

    def update(self):
        """Appends to the main program the ops that advance the step counter and every average (once)."""
        main = default_main_program()
        gb = main.global_block()
        step = gb.vars.get(STEP_COUNTER)
        if step is None:
            step = create_global_var([1], 0, "int64", persistable=True, name=STEP_COUNTER)
        append_assign(step + 1, step)
        for p in self._params:
            ema = self._ema[p.name]
            append_assign(ema * self._decay_var + p * (1.0 - self._decay_var), ema)

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Writes the bias-corrected averages into the parameters (of the scope `executor` runs in), and back the
        trained values on exit unless ``need_restore=False``."""
        scope = global_scope()
        step = scope.array(STEP_COUNTER)
        if step is None:
            raise RuntimeError("ExponentialMovingAverage.apply: run the startup program and the main program (with "
                               "update() in it) first")
        step = float(np.asarray(step).reshape(-1)[0])
        decay = float(np.asarray(scope.array(self._decay_var.name)).reshape(-1)[0])
        self._backup = {p.name: np.array(scope.array(p.name), copy=True) for p in self._params}
        for p in self._params:
            ema = np.asarray(scope.array(self._ema[p.name].name))
            scope.set(p.name, (ema / (1.0 - decay ** step) if step > 0 else ema).astype(ema.dtype))
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Puts back the parameter values `apply` replaced."""
        if self._backup is None:
            raise RuntimeError("ExponentialMovingAverage.restore: nothing to restore (apply was not called)")
        scope = global_scope()
        for name, value in self._backup.items():
            scope.set(name, value)
        self._backup = None
