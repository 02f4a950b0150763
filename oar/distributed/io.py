"""`paddle.distributed.io`: saving and loading the persistable variables of a (distributed) static program.
oar has no parameter server, so these act on this process's scope; the file is a safetensors file of arrays by
variable name, not Paddle's per-variable LoDTensor files."""
import os

from ..graph.builder import default_main_program

DEFAULT_FILE = "__persistables__"


def is_persistable(var):
    """Whether `var` keeps its value between runs (parameters, optimizer state, statistics); fed inputs and
    intermediate values do not.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('io_x', [2])
        ...     w = oar.static.create_parameter([2], 'float32', name='io_w')
        >>> oar.disable_static()
        >>> oar.distributed.io.is_persistable(x), oar.distributed.io.is_persistable(w)
        (False, True)
    """
    return bool(getattr(var, "persistable", False))


def save_persistables(executor, dirname, main_program=None, filename=None):
    """Saves every persistable variable of `main_program` (the default main program when None) that the scope
    holds into ``dirname/filename`` (``__persistables__`` when None).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([2], 'float32', name='io_sw',
        ...                                     default_initializer=oar.nn.initializer.Constant(3.0))
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> oar.distributed.io.save_persistables(exe, 'persist', main)
        >>> main.set_state_dict({'io_sw': np.zeros(2, 'float32')})
        >>> oar.distributed.io.load_persistables(exe, 'persist', main)
        >>> oar.disable_static()
        >>> main.state_dict()['io_sw'].numpy().tolist()
        [3.0, 3.0]
    """
    from ..core import safetensors_file
    program = main_program if main_program is not None else default_main_program()
    os.makedirs(dirname, exist_ok=True)
    state = {k: v.numpy() for k, v in program.state_dict("all").items()}
    safetensors_file.write(os.path.join(dirname, filename or DEFAULT_FILE), state)


def load_persistables(executor, dirname, main_program=None, filename=None):
    """Loads `save_persistables`' file into the persistable variables of `main_program` (every variable it names
    must be one of the program's)."""
    from ..core import safetensors_file
    program = main_program if main_program is not None else default_main_program()
    path = os.path.join(dirname, filename or DEFAULT_FILE)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_persistables: {path} not found (written by save_persistables)")
    state = safetensors_file.read_all(path)
    known = {v.name for v in program.list_vars() if v.persistable}
    unknown = sorted(set(state) - known)
    if unknown:
        raise ValueError(f"load_persistables: {unknown} in {path} are not persistable variables of the program")
    program.set_state_dict(state)

