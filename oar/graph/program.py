"""The static `Program` users create: an `ir.Program` whose variables are tracing `Variable`s."""
from .. import ir
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
