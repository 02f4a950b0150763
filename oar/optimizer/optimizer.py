"""`Optimizer`: the base class that does everything but the per-parameter update.

A subclass only declares its update: ``_op`` (a registered op from `update_ops`), ``_acc_names`` (accumulator names
in the op's input order after ``grad``), ``_hyper`` (hyper-parameters, which become the op's attrs and may be
overridden per parameter group) and, when needed, ``_acc_init`` / ``_attrs``. The base does parameter groups,
weight decay (regularizers), per-parameter learning rates, LR schedulers, gradient clipping and state dicts.

The static seam: for a parameter ``p`` and its gradient ``g`` (Tensors or static Variables) and a learning-rate
operand ``lr`` (0-D), ``op, inputs, attrs, targets = opt._update_spec(p, g, lr)`` gives the op, its inputs
``(p, g, *accumulators, lr)``, its attrs, and ``targets`` = ``(p, *accumulators)``: output ``i`` of the op must be
written to ``targets[i]``. Accumulators are persistable eager Tensors named ``{p.name}_{acc}_0`` (created on first
use); the static builder turns eager Tensors met while building into persistable Variables bound to them.
``opt._param_lr(p)`` is the float learning rate of ``p`` right now (base LR x group scale x ParamAttr scale) and
``opt._regularizer(p)`` its regularizer (``reg(p, g) -> g`` built from ops) or None. Clipping is
``opt._grad_clip(params_grads) -> params_grads`` and runs before regularization, as in Paddle.

Example:
    >>> model = oar.nn.Linear(2, 1)
    >>> opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    >>> loss = model(oar.ones([3, 2])).mean()
    >>> loss.backward(); opt.step(); opt.clear_grad()
    >>> opt.get_lr()
    0.001
"""
import numpy as np

from ..core.devices import device_of, place_array, to_host
from ..core.state import STATE, mode, no_grad
from ..kernels.optimizer import state_like
from ..ops.registry import apply, get_op, op_error
from ..regularizer import L2Decay, WeightDecayRegularizer
from ..core import capture
from ..eager.tensor import Tensor
from .lr import LRScheduler

_wrap = Tensor._wrap


_ACTIVE_TRACE = []


def _active_trace():
    """`oar.jit.recorder.active` (a higher layer's function, imported on first use rather than on every call)."""
    if not _ACTIVE_TRACE:
        from ..jit.recorder import active
        _ACTIVE_TRACE.append(active)
    return _ACTIVE_TRACE[0]


class Optimizer:
    """Base class of all optimizers (see the module docstring for what a subclass provides).

    Args:
        learning_rate: a float or an `oar.optimizer.lr.LRScheduler`.
        parameters: a list of Parameters, or a list of dicts ``{'params': [...], 'learning_rate': scale,
            'weight_decay': ..., <hyper-parameter>: ...}`` (parameter groups with their own options).
        weight_decay: a float (L2 coefficient) or an `L1Decay`/`L2Decay`.
        grad_clip: a callable ``clip(params_grads) -> params_grads`` (e.g. `oar.nn.ClipGradByGlobalNorm`).

    A parameter's rate is base LR x its group's ``learning_rate`` x its ``ParamAttr(learning_rate)``, and a
    ``ParamAttr(regularizer)`` wins over its group's ``weight_decay``. (Paddle 2.x, given groups, overwrites the
    parameter's own scale and regularizer with the group's; oar keeps both, which agrees whenever only one is set.)

    Example:
        >>> p = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> opt = oar.optimizer.SGD(learning_rate=0.1, parameters=[p])
        >>> isinstance(opt, oar.optimizer.Optimizer)
        True
        >>> (p * p).sum().backward()  # grad = 2p
        >>> opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.8, 1.6]
    """

    _op = None
    _acc_names = ()
    _hyper = ()

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None, name=None, **hyper):
        if not isinstance(learning_rate, (int, float, LRScheduler)):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float or an LRScheduler, got "
                            f"{type(learning_rate).__name__}")
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError(f"{type(self).__name__}: grad_clip must be callable(params_grads) -> params_grads")
        self._learning_rate = learning_rate
        self._name = name
        self._grad_clip = grad_clip
        self.regularization = self._to_regularizer(weight_decay)
        self._default_dict = {"learning_rate": 1.0, "weight_decay": weight_decay, "grad_clip": grad_clip, **hyper}
        self._param_groups = []
        self._parameter_list = None
        self._group_of = {}
        self._acc = {}           # id(param) -> [accumulator Tensors] in _acc_names order
        self._pending = {}       # state loaded before the accumulators existed: name -> array
        self._lr_held = {}       # lazy steps: (id(group), param rate, dtype) -> (rate, its 0-D lr Tensor)
        if parameters is not None:
            parameters = list(parameters)
            if not parameters:
                raise ValueError(f"{type(self).__name__}: the parameter list is empty")
            self._parameter_list = []
            if isinstance(parameters[0], dict):
                for g in parameters:
                    self._add_param_group(dict(g))
            else:
                self._add_param_group({"params": parameters})

    # ---- groups -------------------------------------------------------------------------------------------------
    def _add_param_group(self, group):
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        unknown = set(group) - set(self._default_dict) - {"params"}
        if unknown:
            raise ValueError(f"{type(self).__name__}: unknown option(s) {sorted(unknown)} in a parameter group; "
                             f"known: {sorted(self._default_dict)}")
        for k, v in self._default_dict.items():
            group.setdefault(k, v)
        group["_reg"] = self._to_regularizer(group["weight_decay"])
        group["_attrs"] = {k: group[k] for k in self._hyper}
        for p in group["params"]:
            if id(p) in self._group_of:
                raise ValueError(f"parameter {p.name} appears in more than one parameter group")
            self._group_of[id(p)] = group
            self._parameter_list.append(p)
        self._param_groups.append(group)

    add_param_group = _add_param_group

    def _to_regularizer(self, wd):
        if wd is None or isinstance(wd, WeightDecayRegularizer):
            return wd
        if isinstance(wd, (int, float)):
            return L2Decay(float(wd)) if wd else None
        raise TypeError(f"weight_decay must be a float, L1Decay or L2Decay, got {type(wd).__name__}")

    def _regularizer(self, p):
        reg = getattr(p, "regularizer", None)
        return reg if reg is not None else self._group_of[id(p)]["_reg"]

    # ---- learning rate ------------------------------------------------------------------------------------------
    def get_lr(self):
        """The current base learning rate (a float)."""
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else float(lr)

    def set_lr(self, value):
        """Sets a float learning rate (not allowed when the learning rate is an LRScheduler)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("set_lr: this optimizer's learning rate is an LRScheduler; call its step() instead")
        if not isinstance(value, (int, float)):
            raise TypeError(f"set_lr expects a float, got {type(value).__name__}")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("set_lr_scheduler expects an LRScheduler")
        self._learning_rate = scheduler

    def _param_lr(self, p, base=None):
        base = self.get_lr() if base is None else base
        oa = getattr(p, "optimize_attr", None)
        return base * self._group_of[id(p)]["learning_rate"] * (oa["learning_rate"] if oa else 1.0)

    # ---- the per-parameter update (what subclasses customize) ---------------------------------------------------
    def _acc_init(self, name, p, group):
        """Initial value of accumulator `name` for parameter `p` (zeros by default)."""
        return state_like(p._data)

    def _attrs(self, p, group):
        """The op's attrs for `p` (the group's hyper-parameters by default)."""
        return group["_attrs"]

    def _accumulators(self, p):
        accs = self._acc.get(id(p))
        if accs is None:
            group = self._group_of[id(p)]
            accs = []
            for n in self._acc_names:
                key = f"{p.name}_{n}_0"
                a = self._pending.pop(key, None)
                init = self._acc_init(n, p, group)
                if a is not None:  # loaded state (set_state_dict before the first step), put where `p` lives
                    a = place_array(to_host(getattr(a, "_data", a)).astype(init.dtype).reshape(init.shape),
                                    device_of(init))
                a = init if a is None else a
                t = Tensor(a, name=key)
                t.persistable = True
                accs.append(t)
            self._acc[id(p)] = accs
        return accs

    def _update_spec(self, p, g, lr):
        """(op, inputs, attrs, targets) of the update of parameter `p` (see the module docstring)."""
        accs = self._accumulators(p)
        return self._op, (p, g, *accs, lr), self._attrs(p, self._group_of[id(p)]), (p, *accs)

    # ---- eager step ----------------------------------------------------------------------------------------------
    def _params_grads(self, parameters=None):
        if parameters is None:
            if self._parameter_list is None:
                raise ValueError(f"{type(self).__name__}: parameters must be given in dynamic-graph mode "
                                 "(e.g. parameters=model.parameters())")
            parameters = self._parameter_list
        return [(p, p._grad) for p in parameters if not p.stop_gradient and p._grad is not None]

    def step(self):
        """Updates every parameter that has a gradient, once."""
        if STATE.static:  # in a to_static training step: the updates become ops of its program
            return capture.require("optimizer.step()").step(self)
        with no_grad():
            self._apply_gradients(self._params_grads())

    def _apply_gradients(self, params_grads):
        """Clip, decay, then one update-op kernel call per parameter, results written back in place.

        The eager path runs the registered op's kernel on the arrays directly (no Tensor wrapping of the inputs
        and outputs: that bookkeeping would cost as much as the update itself on small models).
        """
        if self._grad_clip is not None and params_grads:
            params_grads = self._grad_clip(params_grads)
        base = self.get_lr()
        if mode().hook is not None:  # oar.lazy() / oar.jit.trace: the updates are ops they record
            return self._apply_as_ops(params_grads, base)
        op, impl, prepare = self._op, self._op.impl, self._prepare
        for p, g in params_grads:
            if g is None:
                continue
            g, group, accs, p_rate = prepare(p, g)
            lr = base * group["learning_rate"] * p_rate
            pd = p._data
            arrays = [pd, g._data]
            arrays += [a._data for a in accs]
            # the learning rate as a 0-D host array; beside device arrays a NumPy scalar, which CuPy takes as one
            arrays.append(np.asarray(lr, dtype=pd.dtype) if type(pd) is np.ndarray else pd.dtype.type(lr))
            attrs = self._attrs(p, group)
            try:
                outs = impl(*arrays, **attrs)
            except Exception as e:
                raise op_error(op, [p, g, *accs, _wrap(arrays[-1])], attrs, e) from None
            if type(outs) is not tuple:
                p._data = outs
            else:
                p._data = outs[0]
                for t, o in zip(accs, outs[1:]):
                    t._data = o
                    t._vc[0] += 1  # the `_version` property, written out (hot loop)
            p._vc[0] += 1

    def _prepare(self, p, g):
        """What one parameter's update takes, for both paths: its gradient after the regularizer (the parameter's,
        else its group's), its group, its accumulators and its own learning-rate factor (`optimize_attr`)."""
        group = self._group_of[id(p)]
        reg = getattr(p, "regularizer", None) or group["_reg"]
        if reg is not None:
            g = reg(p, g)
        accs = self._acc.get(id(p)) or self._accumulators(p)
        oa = getattr(p, "optimize_attr", None)
        return g, group, accs, (oa["learning_rate"] if oa else 1.0)

    def _apply_as_ops(self, params_grads, base):
        """The updates dispatched as ops (so a lazy graph or a trace holds them), all recorded before the first
        result is written back: one lazy graph computes the step's forward, backward and updates, and writes them
        into the parameters' and accumulators' own arrays (`LazyGraph.write_back`: the captured step's in-place
        fused update) where no other tensor shares those arrays."""
        rec = _active_trace()()
        done, lrs = [], {}
        op, prepare = self._op, self._prepare
        for p, g in params_grads:
            if g is None:
                continue
            g, group, accs, p_rate = prepare(p, g)
            dtype = p._meta()[1]
            # one learning-rate tensor per (group rate, parameter rate, dtype), as the captured step's `lrs`: the
            # updates that share it are one group for `fuse_optimizer_updates`
            key = (id(group), p_rate, dtype)
            lr = lrs.get(key)
            if lr is None:
                rate = self._param_lr(p, base)
                if rec is not None:  # the learning rate is host state: recomputed before every run of the trace
                    lr = _wrap(np.asarray(rate, dtype=dtype))
                    rec.host_value(lr, lambda p=p, dtype=dtype: np.asarray(self._param_lr(p), dtype=dtype))
                else:  # lazy: the last step's tensor while the rate is unchanged (a feed the graph only reads)
                    held = self._lr_held.get(key)
                    if held is None or held[0] != rate:
                        held = self._lr_held[key] = (rate, _wrap(np.asarray(rate, dtype=dtype)))
                    lr = held[1]
                lrs[key] = lr
            outs = apply(op, [p, g, *accs, lr], self._attrs(p, group))
            done.append(((p, *accs), outs if type(outs) is tuple else (outs,)))
        if rec is None and done:  # lazy: the plan writes the values into the targets' arrays (as a captured step)
            p = getattr(done[-1][1][0], "_pending", None)
            if p is not None and p[0] is not None:  # (runs the graph; the rest are handed out then)
                done = [p[0].write_back(done)]
        for targets, outs in done:
            for t, o in zip(targets, outs):
                t._data = o._data
                t._vc[0] += 1  # the `_version` property, written out (hot loop)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Eager: runs ``loss.backward()`` if it has not run yet, then one `step` on `parameters` (default: all).

        Returns ``(None, params_grads)`` as Paddle's dynamic-graph `minimize`.
        """
        if STATE.static:
            cap = capture.active()
            if cap is not None:
                return cap.minimize(self, loss, parameters, no_grad_set)
            return self._static_minimize(loss, startup_program, parameters, no_grad_set)
        node = loss._node
        if node is not None and node.edges is not None:  # the graph is intact: backward has not run
            loss.backward()
        if parameters is not None:
            parameters = [p for p in parameters if not (no_grad_set and (p in no_grad_set or p.name in no_grad_set))]
        with no_grad():
            pg = self._params_grads(parameters)
            self._apply_gradients(pg)
        return None, pg

    def _static_minimize(self, loss, startup_program, parameters, no_grad_set):
        from ..graph.optimize import static_minimize
        return static_minimize(self, loss, startup_program, parameters, no_grad_set)

    def clear_grad(self, set_to_zero=True):
        """Clears the gradients of all parameters (zero-filled when `set_to_zero`, as Paddle)."""
        cap = capture.active()
        if cap is not None:  # in a to_static training step
            return cap.clear_grad(self._parameter_list or (), set_to_zero)
        tracing = set_to_zero and _active_trace()() is not None  # oar.jit.trace records the zeros as ops
        for p in self._parameter_list or ():
            g = p._grad
            if g is None:
                continue
            if tracing:
                g._data = apply(get_op("zeros_like"), [g])._data
                g._vc[0] += 1
                continue
            d = g._data  # (read once: on a lazy gradient `_data` is a property)
            if set_to_zero and d.flags.writeable:  # zero in place, as Paddle: no new allocation
                d.fill(0)
                g._vc[0] += 1  # the `_version` property, written out (hot loop)
                if type(g) is not Tensor:  # a lazy gradient: the next backward's gradient becomes it (no 0 + g)
                    mark = getattr(g, "_mark_zeroed", None)
                    if mark is not None:
                        mark()
            else:
                p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    # ---- state ---------------------------------------------------------------------------------------------------
    def state_dict(self):
        """Accumulators by Paddle-like names (``{param.name}_{acc}_0``) and ``LR_Scheduler`` state."""
        state = {}
        for p in self._parameter_list or ():
            for t in self._acc.get(id(p), ()):
                state[t.name] = t
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Loads a `state_dict` (accumulators not created yet are kept and used on first update)."""
        state = dict(state_dict)
        sched = state.pop("LR_Scheduler", None)
        if sched is not None and isinstance(self._learning_rate, LRScheduler):
            self._learning_rate.set_state_dict(sched)
        state.pop("master_weights", None)
        by_name = {}
        for accs in self._acc.values():
            for t in accs:
                by_name[t.name] = t
        for k, v in state.items():
            a = v._data if isinstance(v, Tensor) else np.asarray(v)
            t = by_name.get(k)
            if t is None:
                self._pending[k] = a
            else:
                if list(a.shape) != t.shape and a.size != t.size:
                    raise ValueError(f"set_state_dict: {k} has shape {list(a.shape)}, expected {t.shape}")
                t._data = a.astype(t._data.dtype).reshape(t._data.shape)

    load_state_dict = set_state_dict

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self._learning_rate!r})"
