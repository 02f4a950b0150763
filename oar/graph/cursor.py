"""The `Builder`: this thread's build cursor (see `oar.graph.builder`, which re-exports it). It lives apart from
builder.py so that `Program` can ask it for the current block and op role without a cycle."""
import contextlib
import threading
import weakref


class _Cursor:
    """Where one program is being built: the block ops are appended to and the role they get."""
    __slots__ = ("block_idx", "role", "scope")

    def __init__(self):
        self.block_idx, self.role, self.scope = 0, None, None


class Builder(threading.local):
    """The build cursor of this thread: the (main, startup) programs static ops go to (`program_guard`), and per
    program the block being traced (a branch or loop body) and the role new ops get (``"backward"`` /
    ``"optimize"``, see `Operator.role`). The programs themselves stay plain data; unique names are a program's
    own counter (``Program.unique_name``), since they are part of what is saved.

    Example:
        >>> from oar.graph.builder import BUILDER
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     BUILDER.main is main, BUILDER.current_block() is main.global_block()
        (True, True)
    """

    def __init__(self):
        self._main = self._startup = None   # this thread's default programs, made on first use
        self._cursors = weakref.WeakKeyDictionary()

    def _default(self):
        from .program import Program  # program.py imports this module
        if self._main is None:
            self._main = Program()
        if self._startup is None:
            self._startup = Program()

    @property
    def main(self):
        """The Program static ops go to (`default_main_program`, or the one of the innermost `program_guard`)."""
        if self._main is None:
            self._default()
        return self._main

    @main.setter
    def main(self, program):
        self._main = program

    @property
    def startup(self):
        """The Program parameter initialisers go to."""
        if self._startup is None:
            self._default()
        return self._startup

    @startup.setter
    def startup(self, program):
        self._startup = program

    def _cursor(self, program):
        c = self._cursors.get(program)
        if c is None:
            c = self._cursors[program] = _Cursor()
        return c

    def block_idx(self, program=None):
        """The index of the block ops go to in `program` (the main program when None)."""
        c = self._cursors.get(self.main if program is None else program)
        return 0 if c is None else c.block_idx

    def current_block(self, program=None):
        """The block ops go to in `program` (the main program when None)."""
        program = self.main if program is None else program
        return program.blocks[self.block_idx(program)]

    def set_block(self, program, idx):
        self._cursor(program).block_idx = idx

    def role(self, program):
        """The role of the ops appended to `program` now (None: forward)."""
        c = self._cursors.get(program)
        return None if c is None else c.role

    def new_block(self, program, parent_idx=None):
        """A new block of `program` (child of the current block by default) that becomes the current one."""
        b = program.create_block(self.block_idx(program) if parent_idx is None else parent_idx)
        self.set_block(program, b.idx)
        return b

    @contextlib.contextmanager
    def in_block(self, block):
        """Ops go to `block` inside (its program's cursor is put back afterwards)."""
        c = self._cursor(block.program)
        prev, c.block_idx = c.block_idx, block.idx
        try:
            yield block
        finally:
            c.block_idx = prev

    def scope(self, program):
        """Where eager Tensors that ops of `program` read while it is built are recorded (`binding`), else None:
        then `oar.static.global_scope()`, where `Executor.run` looks by default."""
        c = self._cursors.get(program)
        return None if c is None else c.scope

    @contextlib.contextmanager
    def binding(self, program, scope):
        """Eager Tensors read by ops appended to `program` inside are recorded in `scope` (an `oar.static.Scope`,
        owned by whoever will run the program: a converted function keeps its parameters there)."""
        c = self._cursor(program)
        prev, c.scope = c.scope, scope
        try:
            yield scope
        finally:
            c.scope = prev

    @contextlib.contextmanager
    def role_guard(self, program, role):
        """Ops appended to `program` inside get `role` (``"backward"`` / ``"optimize"``)."""
        c = self._cursor(program)
        prev, c.role = c.role, role
        try:
            yield
        finally:
            c.role = prev


BUILDER = Builder()
