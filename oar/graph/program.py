"""The static `Program` users create: an `ir.Program` whose variables are tracing `Variable`s."""
import warnings

import numpy as np

from .. import ir
from ..core import dtype as D
from . import feeders, op_schema
from .cursor import BUILDER
from .variable import Variable

Block, Operator = ir.Block, ir.Operator


class Program(ir.Program):
    __doc__ = ir.Program.__doc__
    var_class = Variable

    def current_block(self):
        """The block ops are appended to now in this thread (a sub-block while a branch or loop body is traced).

        Example:
            >>> main = oar.static.Program()
            >>> main.current_block() is main.global_block()
            True
        """
        return BUILDER.current_block(self)

    def clone(self, for_test=False):
        p = super().clone(for_test)
        feeders.copy(self, p)   # inputs the executor fills (an LRScheduler's learning rate) stay filled
        return p

    clone.__doc__ = ir.Program.clone.__doc__

    def new_op_role(self):
        return BUILDER.role(self)

    def state_dict(self, mode="all", scope=None):
        """The values of this program's persistable variables in `scope` (the global scope by default), as
        Tensors by variable name: ``mode`` 'param' (parameters), 'opt' (the other persistables: optimizer
        state, batch-norm statistics, learning rates) or 'all'. Variables the scope has no value for (the
        startup program not run yet) are left out.

        Example:
            >>> oar.enable_static()
            >>> main, startup = oar.static.Program(), oar.static.Program()
            >>> with oar.static.program_guard(main, startup):
            ...     w = oar.static.create_parameter([3, 2], 'float32', name='w_sd')
            >>> oar.disable_static()
            >>> _ = oar.static.Executor().run(startup)
            >>> [(k, v.shape) for k, v in main.state_dict('param').items()]
            [('w_sd', [3, 2])]
        """
        from ..eager.tensor import Tensor
        from .scope import global_scope
        if mode not in ("all", "param", "opt"):
            raise ValueError(f"Program.state_dict: mode must be 'all', 'param' or 'opt', got {mode!r}")
        scope = scope if scope is not None else global_scope()
        out = {}
        for v in self.list_vars():
            if not v.persistable or v.name in out or (mode == "param" and not v.is_parameter) or \
                    (mode == "opt" and v.is_parameter):
                continue
            a = scope.array(v.name)
            if a is not None:
                out[v.name] = Tensor(np.array(a), name=v.name)
        return out

    def set_state_dict(self, state_dict, scope=None):
        """Writes `state_dict` (variable name -> Tensor or array, e.g. from `state_dict` or `oar.load`) into the
        persistable variables of this program in `scope` (the global scope by default). A shape or dtype that
        does not match the variable raises; a variable the dict lacks and a key no variable has are warned
        about and skipped, as Paddle does.

        Example:
            >>> oar.enable_static()
            >>> main, startup = oar.static.Program(), oar.static.Program()
            >>> with oar.static.program_guard(main, startup):
            ...     w = oar.static.create_parameter([3, 2], 'float32', name='w_ssd')
            >>> oar.disable_static()
            >>> _ = oar.static.Executor().run(startup)
            >>> main.set_state_dict({'w_ssd': np.full([3, 2], 7.0, 'float32')})
            >>> main.state_dict()['w_ssd'].numpy()[0].tolist()
            [7.0, 7.0]
        """
        from .scope import global_scope
        scope = scope if scope is not None else global_scope()
        persist = {}
        for v in self.list_vars():
            if v.persistable:
                persist.setdefault(v.name, v)
        for name, v in persist.items():
            if name not in state_dict:
                warnings.warn(f"Program.set_state_dict: skip loading {name!r}: the state dict has no value for it")
                continue
            value = state_dict[name]
            a = np.asarray(getattr(value, "_data", value))
            want = [int(d) for d in v.shape]
            if len(want) != a.ndim or any(w >= 0 and w != s for w, s in zip(want, a.shape)):
                raise ValueError(f"Program.set_state_dict: {name!r} has shape {list(a.shape)}, the program's "
                                 f"variable has {want}")
            if a.dtype != D.np_dtype(v.dtype):
                raise ValueError(f"Program.set_state_dict: {name!r} has dtype {a.dtype}, the program's variable "
                                 f"has {v.dtype.name}")
            scope.set(name, a.copy())
        for name in state_dict:
            if name not in persist:
                warnings.warn(f"Program.set_state_dict: skip {name!r}: no persistable variable of the program has "
                              "that name")

    def _rollback(self):
        """Moves this thread's cursor back to the parent of the current block."""
        BUILDER.set_block(self, self.current_block().parent_idx)


def verify(program, feeds=()):
    """`oar.ir.verify` against the op registry: raises `ir.VerifyError` naming the first malformed op.

    Example:
        >>> from oar.graph.program import verify
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     y = oar.static.data('x', [2], 'float32') * 2
        >>> oar.disable_static()
        >>> verify(main) is main
        True
    """
    return ir.verify(program, op_schema.REGISTRY_SCHEMA, feeds)
