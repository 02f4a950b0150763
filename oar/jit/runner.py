"""`ProgramRunner`: runs a forward Program as ONE eager op (`run_program`) whose gradient rule runs the
backward program (built once with `oar.static.gradients`), so `loss.backward()` accumulates `.grad` on the
eager Tensors its scope holds (a converted layer's Parameters) and on inputs that need gradients. Eager
optimizers, LR schedulers, clipping and `clear_grad()` work unchanged.

The forward plan fetches the outputs and the intermediates the backward reads; they travel as extra
outputs of the op, so nothing is stored between the two calls.

Example:
    >>> from oar.jit.runner import ProgramRunner
    >>> net = oar.jit.to_static(oar.nn.Linear(3, 2))
    >>> x = oar.ones([4, 3])
    >>> concrete = net.forward.get_concrete_program(x)
    >>> runner = ProgramRunner(concrete.main_program, [v.name for v in concrete.inputs],
    ...                        [v.name for v in concrete.outputs], scope=concrete.scope)
    >>> outs = runner(x)                 # eager Tensors
    >>> outs[0].shape
    [4, 2]
    >>> outs[0].sum().backward()
    >>> net.weight.grad.shape
    [3, 2]
"""
import threading

import numpy as np

from ..core.state import STATE
from ..ops.common import not_differentiable_again
from ..ops.registry import apply, defop
from ..graph.budget import naming_source, swap
from ..graph.cursor import BUILDER
from ..graph.scope import global_scope
from ..eager.tensor import Tensor
from ..graph.executor import compile_program
from ..graph.liveness import read_before_written

# The ops' `runner` attribute is the ProgramRunner itself: whatever holds the op (a tape Node until backward has
# run, a Program that calls a converted function) keeps its runner alive, and nothing else does.


def _fwd_impl(*arrays, runner, save):
    return runner.run_forward(arrays, save)


def _fwd_infer(metas, runner, save):
    r = runner
    gb = r.program.global_block()
    out = [(list(gb.var(n).shape), gb.var(n).dtype) for n in r.output_names]
    return out + ([(list(gb.var(n).shape), gb.var(n).dtype) for n in r.saved_names] if save else [])


def _fwd_grad(gouts, outs, *inputs, runner, save):
    r = runner
    mask = [not t.stop_gradient and t.dtype.kind in "fc" for t in inputs]
    n = len(r.output_names)
    want = [i for i, m in enumerate(mask) if m]
    args = tuple(inputs[:r.n_in]) + tuple(gouts[:n]) + tuple(outs[n:])
    grads = apply(RUN_PROGRAM_GRAD, args, {"runner": runner, "want": want})
    if not isinstance(grads, tuple):
        grads = (grads,)
    result = [None] * len(inputs)
    for i, g in zip(want, grads):
        result[i] = g
    return tuple(result)


def _bwd_impl(*arrays, runner, want):
    return runner.run_backward(arrays, want)


def _bwd_infer(metas, runner, want):
    return [runner.in_meta(i) for i in want]


RUN_PROGRAM = defop("run_program", _fwd_impl, inputs=("x",), outputs=("out*",), variadic=True, infer=_fwd_infer,
                    grad=_fwd_grad, amp="skip",
                    onnx_reason="eager call of a converted program (the exporter lowers the program itself)")
RUN_PROGRAM_GRAD = defop("run_program_grad", _bwd_impl, inputs=("x",), outputs=("out*",), variadic=True,
                         infer=_bwd_infer, grad=not_differentiable_again(
                             "run_program_grad", "the gradient of a @to_static function called eagerly",
                             "take higher-order gradients in eager mode (without to_static)"), amp="skip")


class ProgramRunner:
    """Runs `program` (feeds `input_names`, fetches `output_names`) as one differentiable eager op.

    Args:
        program: a forward Program.
        input_names: feed variable names, in the order of the tensors given to `__call__`.
        output_names: fetched variable names, in the order returned.
        scope: the `oar.static.Scope` holding the values of the program's persistable variables, read at every
            call (`global_scope()` when None); those that are eager Tensors (parameters, buffers) are inputs of
            the eager op, so gradients reach them.

    Example:
        >>> from oar.jit.runner import ProgramRunner
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2])
        ...     x.stop_gradient = False   # else the backward program computes no gradient for x
        ...     y = x * x
        >>> oar.disable_static()
        >>> runner = ProgramRunner(main, ['x'], [y.name])
        >>> a = oar.to_tensor([[1.0, 3.0]], stop_gradient=False)
        >>> out, = runner(a)
        >>> out.sum().backward()
        >>> out.numpy().tolist(), a.grad.numpy().tolist()
        ([[1.0, 9.0]], [[2.0, 6.0]])
    """

    def __init__(self, program, input_names, output_names, scope=None):
        self.program = program
        self.scope = scope if scope is not None else global_scope()
        self.input_names = list(input_names)
        self.output_names = list(dict.fromkeys(output_names))  # `return y, y`: fetched once, returned twice
        self._picks = [self.output_names.index(n) for n in output_names]
        self.n_in = len(self.input_names)
        gb = program.global_block()
        reads = set()
        for b in program.blocks:
            for op in b.ops:
                reads.update(op.input_names())
        values = self.scope.vars
        self.param_names = [n for n, v in gb.vars.items() if v.persistable and n in reads
                            and isinstance(values.get(n), Tensor)]
        self._fwd = [None, None]   # the forward plans, without and with the values the backward reads
        self._bwd = None
        self._bwd_plans = {}
        self.saved_names = []
        self._lock = threading.Lock()
        self.budget = None  # a loaded model's oar.graph.budget.Budget: applied to, and named in errors of, backward

    def __repr__(self):  # as an op attribute in printed programs and error messages
        return f"<ProgramRunner {self.output_names} at {id(self):#x}>"

    # ---- calling ------------------------------------------------------------------------------------------
    def __call__(self, *inputs):
        values = self.scope.vars
        params = [values[n] for n in self.param_names]
        args = tuple(inputs) + tuple(params)
        save = False
        if STATE.grad_enabled:
            for t in args:
                if not t.stop_gradient:
                    save = True
                    break
        if save and self._bwd is None:
            with self._lock:  # two threads' first backward-recording calls: built once
                if self._bwd is None:
                    self._build_backward()
        outs = apply(RUN_PROGRAM, args, {"runner": self, "save": save})
        if not isinstance(outs, tuple):
            outs = (outs,)
        outs = list(outs[:len(self.output_names)])
        for t, n in zip(outs, self.output_names):  # named like the program's outputs: jit.save(output_spec=[t])
            t._name = n
        return [outs[i] for i in self._picks]

    def run_forward(self, arrays, save):
        c = self._fwd[save]   # the runner owns its program: it recompiles only when it changed it (_sync_history)
        if c is None:
            fetch = self.output_names + (self.saved_names if save else [])
            c = self._fwd[save] = compile_program(self.program, self.input_names, fetch)
        outs = tuple(c.run_trusted(list(arrays[:self.n_in]), self.scope))
        if save and any(type(a) is list for a in outs):
            outs = tuple(_box(a) if type(a) is list else a for a in outs)
        return outs

    # ---- backward -----------------------------------------------------------------------------------------
    def _build_backward(self):
        from ..graph.backward import gradients
        from ..graph.builder import program_guard, static_mode, data
        bp = self.program.clone()
        gb = bp.global_block()
        n_fwd = len(gb.ops)
        outs = [gb.var(n) for n in self.output_names]
        targets = [v for v in outs if v.dtype.kind in "fc" and not v.stop_gradient]
        wrt_names = self.input_names + self.param_names
        with program_guard(bp), static_mode(True), BUILDER.binding(bp, self.scope):
            seeds = [data(f"{v.name}@OUT_GRAD", v.shape, v.dtype) for v in targets]
            wrt = [gb.var(n) for n in wrt_names]
            grads = gradients(targets, wrt, seeds) if targets else [None] * len(wrt)
        grad_ops = gb.ops[n_fwd:]
        if _sync_history(gb.ops[:n_fwd], self.program.global_block()):
            self._fwd = [None, None]
        gb.ops = grad_ops
        bp._bump()
        free = read_before_written(grad_ops)  # what the backward reads from outside: inputs, seeds, forward values
        seed_names = [s.name for s in seeds]
        params = set(self.param_names)
        self.saved_names = [n for n in free if n not in params and n not in seed_names and n not in self.input_names
                            and n in self.program.global_block().vars]
        self._bwd = (bp, [g.name if g is not None else None for g in grads], seed_names, [v.name for v in targets])

    def run_backward(self, arrays, want):
        if self.budget is None:
            return self._run_backward(arrays, want)
        prev = swap(self.budget)
        try:
            return self._run_backward(arrays, want)
        except Exception as e:
            new = naming_source(e, self.budget)
            if new is e:
                raise
            raise new from None
        finally:
            swap(prev)

    def _run_backward(self, arrays, want):
        bp, grad_names, seed_names, target_names = self._bwd
        n_in, n_out = self.n_in, len(self.output_names)
        key = tuple(want)
        plan = self._bwd_plans.get(key)
        if plan is None:
            # feed order: inputs, the seeds (gradients of the differentiable outputs), saved intermediates
            feed_names = self.input_names + seed_names + self.saved_names
            pick = list(range(n_in)) + [n_in + self.output_names.index(t) for t in target_names] + \
                list(range(n_in + n_out, n_in + n_out + len(self.saved_names)))
            names = [grad_names[i] for i in want]
            fetch = [n for n in names if n is not None]
            plan = self._bwd_plans[key] = (compile_program(bp, feed_names, fetch), pick, names, fetch)
        c, pick, names, fetch = plan
        vals = tuple(c.run_trusted([_unbox(arrays[i]) for i in pick], self.scope))
        if len(fetch) == len(names):
            return vals
        inputs = arrays[:n_in]
        got = dict(zip(fetch, vals))
        out = []
        for i, n in zip(want, names):
            if n is None:  # no path from the outputs to this input: a zero gradient
                shape = np.shape(inputs[i]) if i < n_in else self.scope.vars[self.param_names[i - n_in]].shape
                got[n] = np.zeros(shape, self.in_meta(i)[1].np)
            out.append(got[n])
        return tuple(out)

    def in_meta(self, i):
        gb = self.program.global_block()
        name = (self.input_names + self.param_names)[i]
        v = gb.var(name)
        return list(v.shape), v.dtype


def _sync_history(cloned_ops, fwd_block):
    """Static backward switches `while` ops to keep their per-iteration history (a saved value the backward
    program reads); the same switch is made on the forward program that the runner executes. Returns whether it
    changed the forward program."""
    changed = False
    for src, dst in zip(cloned_ops, fwd_block.ops):
        if src.attrs.get("save_history") and not dst.attrs.get("save_history"):
            dst.attrs["save_history"] = True
            dst.outputs["history"] = list(src.outputs["history"])
            for n in dst.outputs["history"]:
                v = src.block.var(n)
                nv = fwd_block.create_var(n, v.shape, v.dtype, stop_gradient=True)
                nv.attrs = dict(v.attrs)
            fwd_block.program._bump()
            changed = True
    return changed


def _box(value):
    """A list value (tensor array, while history) as a 0-D object array, to travel as an eager op output."""
    a = np.empty((), object)
    a[()] = value
    return a


def _unbox(a):
    return a[()] if type(a) is np.ndarray and a.dtype == object and a.ndim == 0 else a


