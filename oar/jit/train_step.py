"""A whole training step as ONE Program: what `to_static` builds when the traced function trains.

While a converted function is traced, `loss.backward()` appends the backward ops (gradients of the loss with
respect to every eager tensor of the step's scope that needs one) and accumulates them per parameter,
`optimizer.step()` / `minimize()` appends the optimizer's registered update op for each parameter (outputs
written to the persistable parameter and accumulator variables, whose values are the eager Tensors in the step's
scope), `clear_grad()` marks gradients cleared, and `lr_scheduler.step()` is recorded as host work. The result
runs as one call (`TrainStepRunner`):

    host steps (LR values fed, scheduler steps, the eager .grad read)  ->  one compiled plan  ->  .grad written

Parameters, moments, step counters and the LR schedule stay the eager objects' state: the plan reads and writes
those Tensors' arrays, and the learning rate is computed by the optimizer on every run, so converted and
eager steps can alternate. What the function returns is fetched, and so are the gradients left uncleared (Python
may read `p.grad`); nothing else is materialised.

Example:
    >>> net = oar.nn.Linear(4, 2)
    >>> opt = oar.optimizer.Adam(0.01, parameters=net.parameters())
    >>> @oar.jit.to_static
    ... def train_step(x):
    ...     loss = net(x).mean()
    ...     loss.backward()
    ...     opt.step()
    ...     opt.clear_grad()
    ...     return loss
    >>> loss = train_step(oar.ones([3, 4]))          # traced once, then one program per call
    >>> train_step.concrete_program.train is not None
    True
"""
from typing import Callable, NamedTuple, Optional

import numpy as np

from ..graph import builder
from ..graph.backward import building, gradients
from ..graph.variable import Variable
from ..eager.tensor import Tensor

_ZERO, _NONE = "zeroed", "cleared"  # gradient states after clear_grad(set_to_zero=True / False)


class HostStep(NamedTuple):
    """Host work replayed before every run, in the order the traced function did it: ``fn()`` computes the value
    fed to the variable `feed` (an LR, an eager .grad), or has an effect only (`feed` None: a scheduler step)."""
    feed: Optional[str]
    fn: Callable


class TrainCapture:
    """What a traced training step did, recorded while its Program is built (see the module docstring).

    Attributes: program; steps (HostSteps, in order); grad_out (var name -> gradient Variable left uncleared at
    the end, fetched into `.grad`); cleared (var name -> _ZERO / _NONE for gradients cleared at the end);
    used (True once any training call was captured).
    """

    def __init__(self, program, scope):
        self.program = program
        self.scope = scope     # the program's values: the eager Tensors (parameters, accumulators) it reads
        self.steps = []
        self.state = {}        # bound var name -> current gradient Variable, _ZERO or _NONE (absent: the eager .grad)
        self.grad_in = {}      # bound var name -> feed Variable holding the eager .grad at call start
        self.in_sums = {}      # bound var name -> (sum name, fresh gradient name) of `grad_in + fresh gradient`
        self.backwarded = set()
        self.reached = set()   # bound var names the last backward gave a gradient
        self.grad_out, self.cleared = {}, {}
        self.scalers = {}      # id(GradScaler) -> its trace-time state (oar.jit.train_scaler)
        self.post = []         # (fetched Variable or None, fn(value)): host work after each run
        self.late_schedulers = set()  # ids of schedulers stepped after the run (their LR must not be read later)
        self.grad_syncs = {}   # key -> fn(capture), run after every backward (DataParallel's gradient all-reduce)
        self.used = False

    # ---- what the traced calls do -------------------------------------------------------------------------
    def backward(self, loss, grad_tensor=None):
        """`loss.backward()`: gradients of `loss` accumulated into every eager tensor of the scope that needs one."""
        self._check_block(loss, "loss.backward()")
        self.used = True
        gb = self.program.global_block()
        names = [n for n, t in self.scope.vars.items()
                 if not t.stop_gradient and n in gb.vars and gb.vars[n].dtype.kind in "fc"]
        seeds = None if grad_tensor is None else [grad_tensor]
        grads = gradients([loss], [gb.var(n) for n in names], seeds)
        with building(gb), builder.BUILDER.role_guard(self.program, "backward"):
            for n, g in zip(names, grads):
                if g is not None:
                    self._accumulate(n, g)
        self.reached = {n for n, g in zip(names, grads) if g is not None}
        self.backwarded.add(loss.name)
        for sync in list(self.grad_syncs.values()):
            sync(self)

    def sync_after_backward(self, key, fn):
        """``fn(self)`` runs after every later `backward` of the step (registered once per `key`): how a
        `DataParallel` model used in the step appends its gradient all-reduce (`reduce_grads`)."""
        self.grad_syncs.setdefault(key, fn)

    def reduce_grads(self, params, reduce, fill_unreached):
        """Replaces the current gradients of `params` by ``reduce([(param, gradient Variable), ...])`` (a list of
        Variables, same order), appended as backward ops, when the last backward reached any of `params` (else,
        like the eager reducer whose hooks do not fire, nothing). A parameter the step has not reached yet takes its
        eager `.grad` (zeros when it has none and `fill_unreached`; skipped when it has none otherwise); one cleared
        to zeros stays zeros, and one cleared to None becomes zeros with `fill_unreached`."""
        gb = self.program.global_block()
        names = [builder.as_var(gb, p).name for p in params]
        if self.reached.isdisjoint(names):
            return
        pairs = []
        with building(gb), builder.BUILDER.role_guard(self.program, "backward"):
            for n, p in zip(names, params):
                s = self.state.get(n)
                if s is _ZERO or (s is _NONE and not fill_unreached):
                    continue
                if s is _NONE:
                    from ..ops.creation import full
                    s = full(p.shape, 0, p.dtype)
                elif s is None:
                    s = self._grad_in(n) if fill_unreached else self._grad_for_step(n, p)
                    if s is None:
                        continue
                pairs.append((n, p, s))
            if pairs:
                for (n, _, _), g in zip(pairs, reduce([(p, s) for _, p, s in pairs])):
                    self.state[n] = g

    def step(self, opt, parameters=None, gate=None):
        """`optimizer.step()`: clip, regularize, then the optimizer's update op per parameter with a gradient.
        With `gate` (a bool Variable), every updated variable keeps its value where `gate` is true."""
        self.used = True
        gb = self.program.global_block()
        with building(gb), builder.BUILDER.role_guard(self.program, "optimize"):
            pg = []
            for p in (parameters if parameters is not None else opt._parameter_list or ()):
                if p.stop_gradient:
                    continue
                g = self._grad_for_step(builder.as_var(gb, p).name, p)
                if g is not None:
                    pg.append((p, g))
            if opt._grad_clip is not None and pg:
                pg = opt._grad_clip(pg)
            lrs = {}
            for p, g in pg:
                group = opt._group_of[id(p)]
                reg = getattr(p, "regularizer", None) or group["_reg"]
                if reg is not None:
                    g = reg(p, g)
                oa = getattr(p, "optimize_attr", None)
                key = (group["learning_rate"], oa["learning_rate"] if oa else 1.0, p._data.dtype)
                lr = lrs.get(key)
                if lr is None:
                    lr = lrs[key] = self._lr_feed(opt, *key)
                op, ins, attrs, targets = opt._update_spec(p, g, lr)
                in_vars = [builder.as_var(gb, x) for x in ins]
                outs = [builder.as_var(gb, t).name for t in targets]
                news = outs if gate is None else [gb.create_var(self.program.unique_name(n + "@NEW"),
                                                                gb.vars[n].shape, gb.vars[n].dtype).name
                                                  for n in outs]
                loc = builder.user_location()
                gb.append_op(op.name, {s: [v.name] for s, v in zip(op.inputs, in_vars)},
                             {s: [n] for s, n in zip(op.outputs, news)}, dict(attrs), loc)
                if gate is not None:  # a skipped step (GradScaler found inf/nan) keeps the old values
                    for old, new in zip(outs, news):
                        gb.append_op("where", {"condition": [gate.name], "x": [old], "y": [new]}, {"out": [old]},
                                     {}, loc)
        return pg

    def minimize(self, opt, loss, parameters=None, no_grad_set=None):
        """`optimizer.minimize(loss)`: backward (unless it already ran for `loss`), then `step`."""
        if loss.name not in self.backwarded:
            self.backward(loss)
        if parameters is not None and no_grad_set:
            parameters = [p for p in parameters if p not in no_grad_set and p.name not in no_grad_set]
        return None, self.step(opt, parameters)

    def clear_grad(self, params, set_to_zero=True):
        """`optimizer.clear_grad()` / `param.clear_grad()`: the parameters' gradients are cleared from here on."""
        self.used = True
        gb = self.program.global_block()
        for p in params:
            self.state[builder.as_var(gb, p).name] = _ZERO if set_to_zero else _NONE

    def host(self, fn):
        """Host work (e.g. an LR scheduler's step) to replay before each run, at this point of the sequence."""
        self.used = True
        self.steps.append(HostStep(None, fn))

    def feed(self, fn, dtype, what, shape=()):
        """A Variable fed with ``fn()`` on every run (host values such as the learning rate or the loss scale)."""
        v = builder.data(self.program.unique_name(what + "@FEED"), list(shape), dtype)
        self.steps.append(HostStep(v.name, fn))
        return v

    def after(self, var, fn):
        """Host work after each run: ``fn(value of var)`` (`fn()` when var is None)."""
        self.used = True
        self.post.append((var, fn))

    def after_scheduler(self, sched, metric, fn):
        """A scheduler step that needs a value of this step (ReduceOnPlateau(metric)): run after the program with
        the fetched metric. A learning rate read later in the same step would come too early: that raises."""
        self.after(metric if isinstance(metric, Variable) else None,
                   (lambda v: fn(v)) if isinstance(metric, Variable) else (lambda: fn(metric)))
        self.late_schedulers.add(id(sched))

    def current_grad(self, n, p):
        """The gradient `optimizer.step()` would use for parameter `p` (bound as `n`) now, or None."""
        return self._grad_for_step(n, p)

    # ---- GradScaler (oar.jit.train_scaler) ----------------------------------------------------------------
    def scaler_scale(self, scaler, var):
        from . import train_scaler
        return train_scaler.scale(self, scaler, var)

    def scaler_unscale(self, scaler, opt):
        from . import train_scaler
        return train_scaler.unscale(self, scaler, opt)

    def scaler_step(self, scaler, opt):
        from . import train_scaler
        return train_scaler.step(self, scaler, opt)

    def scaler_update(self, scaler):
        from . import train_scaler
        return train_scaler.update(self, scaler)

    # ---- helpers -------------------------------------------------------------------------------------------
    def _check_block(self, v, what):
        if not isinstance(v, Variable) or v.block.program is not self.program:
            raise TypeError(f"{what} in a converted training step needs a value computed in that step")
        if builder.BUILDER.block_idx(self.program) != 0:
            raise RuntimeError(f"{what} inside a tensor-dependent if/while of a converted function is not supported:"
                               " call it at the top level of the training step")

    def _accumulate(self, n, g):
        s = self.state.get(n)
        if isinstance(s, Variable):
            g = s + g
        elif s is None:  # the eager .grad at call start (zeros when it is None)
            fresh = g
            g = self._grad_in(n) + fresh
            self.in_sums[n] = (g.name, fresh.name)
        self.state[n] = g

    def _grad_in(self, n):
        v = self.grad_in.get(n)
        if v is None:
            t = self.scope.vars[n]
            v = self.grad_in[n] = builder.data(f"{n}@GRAD_IN", t.shape, t.dtype)
            zero = np.zeros(t._data.shape, t._data.dtype)
            zero.flags.writeable = False
            self.steps.append(HostStep(v.name, lambda t=t, zero=zero: t._grad._data if t._grad is not None else zero))
        return v

    def _grad_for_step(self, n, p):
        s = self.state.get(n)
        if isinstance(s, Variable):
            return s
        if s is _ZERO:
            from ..ops.creation import full
            return full(p.shape, 0, p.dtype)
        if s is _NONE:
            return None
        # no backward reached `p` in this step: eager updates it with its .grad when it has one
        present = p._grad is not None
        self.steps.append(HostStep(None, lambda p=p, present=present: _check_presence(p, present)))
        return self._grad_in(n) if present else None

    def _lr_feed(self, opt, group_scale, attr_scale, dtype):
        if id(opt._learning_rate) in self.late_schedulers:
            raise RuntimeError(f"{type(opt._learning_rate).__name__}.step(metric) runs after the converted step (it "
                               "needs the step's value), so optimizer.step() cannot come after it in the same "
                               "function: step the optimizer first, or call the scheduler outside the function")
        def lr():  # the same float arithmetic as the eager step
            return np.array(opt.get_lr() * group_scale * attr_scale, dtype=dtype)
        return self.feed(lr, dtype, "learning_rate")

    def finish(self):
        """Called after tracing: what the end of the step leaves in `.grad`."""
        for n, s in self.state.items():
            if isinstance(s, Variable):
                self.grad_out[n] = s
            else:
                self.cleared[n] = s
        return self


def _check_presence(p, present):
    if (p._grad is not None) != present:
        raise RuntimeError(f"the converted training step was traced when parameter '{p.name}' (which the step's "
                           f"loss does not reach) {'had' if present else 'had no'} gradient, so it "
                           f"{'updates' if present else 'skips'} it; now it {'has none' if present else 'has one'}. "
                           "Call optimizer.clear_grad(set_to_zero=False) consistently, or trace the step again")


class TrainStepRunner:
    """Runs a captured training step: host steps, one compiled plan, gradients written back.

    Two plans are compiled: one adds the step's fresh gradients to the eager `.grad` read at call start, the other
    (used when every such `.grad` is None or still the zeros this runner left there) takes the fresh gradients as
    they are, so the usual forward/backward/step/clear_grad loop neither reads nor adds zero gradients.

    Args:
        program: the traced Program (forward, backward and optimizer updates).
        input_names / output_names: the function's tensor arguments and returned values.
        capture: the finished `TrainCapture`.
        passes: names of `oar.passes` to run on the program first (each keeps every fetched value).
    """

    def __init__(self, program, input_names, output_names, capture, passes=(), scope=None):
        self.capture = capture
        self.scope = scope = capture.scope if scope is None else scope
        self.n_out = len(output_names)
        values = scope.vars
        self.grad_tensors = [values[n] for n in capture.grad_out]
        self.cleared = [(values[n], s) for n, s in capture.cleared.items()]
        self.summed = [values[n] for n in capture.in_sums]
        self.post = capture.post
        self.n_grads = len(self.grad_tensors)
        fetch = list(output_names) + [v.name for v in capture.grad_out.values()] + \
            [v.name for v, _ in capture.post if v is not None]
        self.full = self._compile(program, input_names, fetch, capture.steps, passes, scope)
        skip = {capture.grad_in[n].name for n in capture.in_sums}
        renamed = {a: b for a, b in capture.in_sums.values()}
        self.fresh = self._compile(_without_sums(program, capture.in_sums), input_names,
                                   [renamed.get(n, n) for n in fetch], [s for s in capture.steps if s.feed not in skip],
                                   passes, scope)
        self._zeros = {}  # id(param) -> (grad Tensor, version) of the zeros this runner left in .grad

    @staticmethod
    def _compile(program, input_names, fetch, steps, passes, scope):
        from ..passes import apply_passes
        from ..graph.executor import compile_program
        if passes:
            program = apply_passes(program, passes, keep=fetch, scope=scope)
        feeds = list(input_names) + [s.feed for s in steps if s.feed is not None]
        return compile_program(program, feeds, fetch), steps

    def _known_zero(self, t):
        g = t._grad
        if g is None:
            return True
        z = self._zeros.get(id(t))
        return z is not None and z[0] is g and z[1] == g._version

    def __call__(self, *inputs):
        plan, steps = self.fresh
        for t in self.summed:
            if not self._known_zero(t):
                plan, steps = self.full
                break
        vals = [t._data for t in inputs]
        for s in steps:
            r = s.fn()
            if s.feed is not None:
                vals.append(r)
        outs = plan.run_trusted(vals, self.scope)
        n = self.n_out
        if self.post:
            rest = iter(outs[n + self.n_grads:])
            for v, fn in self.post:
                fn(next(rest)) if v is not None else fn()
        for t, a in zip(self.grad_tensors, outs[n:]):
            g = t._grad
            if g is None:
                t._grad = Tensor(a)
            else:
                g._data = a
                g._version += 1
        for t, s in self.cleared:
            g = t._grad
            if g is None:
                continue
            if s is _NONE:
                t._grad = None
            elif not self._known_zero(t):
                if g._data.flags.writeable:
                    g._data.fill(0)
                else:
                    g._data = np.zeros_like(g._data)
                g._version += 1
                self._zeros[id(t)] = (g, g._version)
        return [Tensor(a) for a in outs[:n]]


def _without_sums(program, in_sums):
    """`program` with each ``sum = grad_in + fresh`` add removed and `sum` read as `fresh`."""
    p = program.clone()
    gb = p.global_block()
    renamed = {a: b for a, b in in_sums.values()}
    gb.ops = [op for op in gb.ops if not (op.type == "add" and op.output_names()[0] in renamed)]
    for op in gb.ops:
        for names in op.inputs.values():
            names[:] = [renamed.get(n, n) for n in names]
    p._bump()
    return p


def train_passes():
    """The passes run on every captured or traced training step (`oar.jit.train_step.PASSES.names`): traced steps
    (`oar.jit.traced.Trace`) go through the same pipeline, so both get the same fused plan."""
    return tuple(PASSES.names)


class _Passes:
    """The pass pipeline of captured training steps (change `names` to switch passes off, e.g. in tests)."""

    def __init__(self):
        self.names = ["fold_assign_writes", "fuse_elementwise", "fuse_optimizer_updates"]


PASSES = _Passes()
