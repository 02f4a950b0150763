"""`CompiledProgram`: a Program with the passes of a `BuildStrategy` applied, for `Executor.run` (Paddle 2.x
`paddle.static.CompiledProgram`). The same passes as `to_static` and captured training steps: e.g.
``fuse_all_optimizer_ops`` turns the per-parameter updates `minimize` appended into one multi-tensor update.
"""
from ..graph.build_strategy import BuildStrategy


class CompiledProgram:
    """`program` with `build_strategy`'s passes applied (re-applied when the program changes).

    Args:
        program: the Program to run.
        build_strategy: an `oar.static.BuildStrategy` (defaults when None).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 3])
        ...     loss = oar.static.nn.fc(x, size=2).mean()
        ...     _ = oar.optimizer.Adam(0.01).minimize(loss)
        >>> bs = oar.static.BuildStrategy()
        >>> bs.fuse_all_optimizer_ops = True
        >>> compiled = oar.static.CompiledProgram(main, build_strategy=bs)
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> out, = exe.run(compiled, feed={'x': np.ones([4, 3], 'float32')}, fetch_list=[loss])
        >>> [op.type for op in compiled._program.global_block().ops][-1]
        'multi_adam_update'
        >>> oar.disable_static()
    """

    def __init__(self, program, build_strategy=None):
        self.program = program
        self.build_strategy = build_strategy or BuildStrategy()
        self._cache = None

    @property
    def _program(self):
        """The Program the Executor runs."""
        from . import READS_VALUES, apply_passes, passes_for_build_strategy
        if self._cache is None or self._cache[0] != self.program.version:
            training = any(op.role == "optimize" for op in self.program.global_block().ops)
            # the fetch list is known only at run time: no pass that drops values (the executor prunes anyway);
            # the scope too (`Executor.run(scope=...)`): no pass that bakes parameter values in
            names = [n for n in passes_for_build_strategy(self.build_strategy, training)
                     if n != "dead_code_elimination" and n not in READS_VALUES]
            self._cache = (self.program.version, apply_passes(self.program, names))
        return self._cache[1]

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None, places=None):
        """Accepted for Paddle compatibility (one CPU device): the strategy's passes are applied."""
        if build_strategy is not None:
            self.build_strategy = build_strategy
        return self
