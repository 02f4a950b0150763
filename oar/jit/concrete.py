"""`ConcreteProgram` (one traced Program of a converted function, its runner and output packing) and
`ProgramCache` (a StaticFunction's programs by call signature, with the reasons a new one was built).

Example:
    >>> net = oar.jit.to_static(oar.nn.Linear(3, 2))
    >>> cp = net.forward.get_concrete_program(oar.ones([4, 3]))
    >>> len(net.forward.program_cache), cp.outputs[0].shape
    (1, [4, 2])
"""
import threading
import warnings

import numpy as np

from ..graph import pytree
from ..graph.input_spec import InputSpec
from ..graph.scope import Scope
from ..graph.variable import Variable
from ..core.tensor_methods import TensorMethods
from . import log
from .replay import check_no_variables, make

MAX_PROGRAMS_WARN = 8
_RUNNER_LOCK = threading.Lock()  # a program called from two threads at once gets one runner


class ConcreteProgram:
    """One traced Program of a function.

    Attributes: main_program, startup_program, inputs (feed Variables, in the order of the flattened tensor
    arguments), outputs (output Variables), scope (the `oar.static.Scope` holding the values of the program's
    persistable variables: the eager Tensors the function read, live), parameters (``scope.vars``: var name ->
    eager Tensor), input_spec (flat InputSpecs of the inputs), function_name, training.

    Example:
        >>> net = oar.jit.to_static(oar.nn.Linear(3, 2))
        >>> cp = net.forward.get_concrete_program(oar.ones([4, 3]))
        >>> [v.shape for v in cp.inputs], [v.shape for v in cp.outputs]
        ([[4, 3]], [[4, 2]])
    """

    def __init__(self, main_program, startup_program, inputs, outputs, out_tree, out_leaves, function_name,
                 training, scope=None):
        self.main_program, self.startup_program = main_program, startup_program
        self.scope = scope if scope is not None else Scope()
        self.inputs, self.outputs = inputs, outputs
        self._out_tree, self._out_leaves = out_tree, out_leaves
        self.function_name, self.training = function_name, training
        self.input_spec = [InputSpec(v.shape, v.dtype, v.name) for v in inputs]
        self._runner = None
        self._single = out_tree == "*" and len(outputs) == 1
        self.run_program = main_program   # the Program actually run (after the build strategy's passes)
        self.run_scope = self.scope       # its values: `scope`, plus what folding passes computed from it
        self.passes = []
        self._frozen = None               # (tensor, array) pairs baked into run_program by folding passes
        self.replay = None                # replay.Replay: the changes to outside objects, made after each run
        self.out_template = None          # the returned value as a replay template (when flattening can't)
        self.guards = None                # guards.GuardSet: what the trace read from outside, checked per call
        self.guard = None                 # its checks as one function (args, kwargs) -> bool
        self._escape_checked = False
        self.train = None                 # the TrainCapture when the function is a whole training step

    @property
    def parameters(self):
        return self.scope.vars

    def apply_build_strategy(self, build_strategy):
        """Runs the passes `build_strategy` selects (training or eval ones) to make `run_program`."""
        from ..passes import passes_for_build_strategy
        self.passes = passes_for_build_strategy(build_strategy, self.training)
        self._optimize()

    def _optimize(self):
        from ..passes import READS_VALUES, apply_passes
        if not self.passes:
            return
        keep = list(dict.fromkeys(v.name for v in self.outputs))
        folding = set(self.passes) & set(READS_VALUES)
        # folded values go to a scope of their own: the function's scope keeps exactly its parameters
        self.run_scope = Scope(self.scope.vars) if folding else self.scope
        self.run_program = apply_passes(self.main_program, self.passes, keep=keep, scope=self.run_scope)
        self._runner = None
        if folding:  # parameter values were baked in: rebuild when they change
            self._frozen = [(t, t._data) for t in self.scope.vars.values()]
            log.info(1, f"'{self.function_name}': passes {self.passes} baked parameter values into the program; "
                     "it is rebuilt when a parameter changes")

    @property
    def runner(self):
        if self._frozen is not None:
            for t, a in self._frozen:
                if t._data is not a:
                    self._optimize()
                    break
        if self._runner is None:
            with _RUNNER_LOCK:
                if self._runner is None:
                    self._runner = self._new_runner()
        return self._runner

    def _new_runner(self):
        names = [v.name for v in self.inputs], [v.name for v in self.outputs + self.side_outputs]
        if self.train is not None:
            from .train_step import TrainStepRunner, train_passes
            return TrainStepRunner(self.main_program, *names, self.train, train_passes(), scope=self.scope)
        from .runner import ProgramRunner
        return ProgramRunner(self.run_program, *names, scope=self.run_scope)

    @property
    def side_outputs(self):
        """Variables the replay writes into outside objects (or the returned template holds): fetched too."""
        return list(self.replay.variables) if self.replay is not None else []

    def pack_outputs(self, flat_values, args=(), kwargs=None):
        """What a run returns. The values after those for `outputs` feed the replay of the function's changes to
        outside objects (`effects.Replay`), made first, in program order; then the output is rebuilt."""
        if self.replay is None:
            return self.pack(flat_values)
        n = len(self.outputs)
        extra, memo = flat_values[n:], {}
        check = not self._escape_checked  # once per program: nothing static reached the caller's objects
        self._escape_checked = True
        self.replay.apply(extra, memo, args, kwargs, self.function_name if check else None)
        result = make(self.out_template, extra, memo) if self.out_template is not None else \
            self.pack(flat_values[:n])
        if check:
            check_no_variables(result, "the returned value", self.function_name)
        return result

    def pack(self, flat_values):
        """The function's output structure rebuilt from values for `outputs` (in order)."""
        if self._single:
            return flat_values[0]
        it = iter(flat_values)
        leaves = [next(it) if isinstance(v, Variable) else v for v in self._out_leaves]
        return pytree.unflatten(self._out_tree, leaves)


class ProgramCache:
    """The ConcretePrograms of one StaticFunction, keyed by call signature."""

    def __init__(self):
        self._programs = {}
        self._reasons = []
        self._warned = False

    def concrete_programs(self):
        return list(self._programs.values())

    def __len__(self):
        return len(self._programs)

    def get(self, key):
        return self._programs.get(key)

    def replace(self, key, cp):
        """`cp` instead of the program cached for `key` (whose guards failed)."""
        self._programs[key] = cp

    def add(self, key, cp, name, arg_names=()):
        if self._programs:
            reason = _why(key, list(self._programs), arg_names)
            self._reasons.append(reason)
            log.info(1, f"building a new program for '{name}' ({len(self._programs) + 1} so far): {reason}")
        else:
            log.info(1, f"building the first program for '{name}'")
        self._programs[key] = cp
        if len(self._programs) > MAX_PROGRAMS_WARN and not self._warned:
            self._warned = True
            warnings.warn(f"to_static: '{name}' has been converted into {len(self._programs)} programs; the "
                          f"reasons were: {'; '.join(self._reasons[-8:])}. Pass an input_spec with None dims, or "
                          "make the changing Python arguments tensors", stacklevel=4)


def _why(key, old, arg_names=()):
    """Why `key` needs a new program: what differs from the closest cached key (fewest differences)."""
    best = None
    for prev in old:
        if len(prev) != len(key):
            continue
        diffs = [i for i, (a, b) in enumerate(zip(prev, key)) if a != b]
        if best is None or len(diffs) <= len(best[1]):  # ties: the most recent
            best = (prev, diffs)
    if best is None:
        return "the arguments' structure changed"
    prev, diffs = best
    out = []
    for i in diffs:
        a, b = prev[i], key[i]
        if i == len(key) - 1:
            out.append("the nesting of the arguments' lists, tuples and dicts changed")
        elif i == len(key) - 2:
            out.append(f"auto_cast changed from {a or 'off'} to {b or 'off'}")
        elif i == len(key) - 3:
            out.append(f"train/eval mode changed to {'train' if b else 'eval'}")
        else:
            name = f"'{arg_names[i]}'" if i < len(arg_names) else str(i)
            out.append(f"argument {name} changed from {_describe_key(a)} to {_describe_key(b)}")
    return "; ".join(out)


def _describe_key(part):
    if part[0] == "py":
        return f"the Python value {part[1]!r}"
    if part[0] == "py-id":
        return "another unhashable Python object"
    if part[0] == "spec":
        return f"InputSpec(shape={list(part[1])}, dtype={part[2]})"
    return f"a tensor of shape {list(part[0])} and dtype {np.dtype(part[1]).name}"


def _spec_of(leaf):
    if isinstance(leaf, InputSpec):
        return leaf
    if isinstance(leaf, TensorMethods):
        return InputSpec(leaf.shape, leaf.dtype, None)
    return None
