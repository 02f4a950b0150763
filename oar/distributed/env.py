"""Who this process is among the ranks, and the one MPI connection all of `oar.distributed` goes through.

The rank and world size are read from the launcher's environment (MPICH/Hydra ``PMI_RANK``/``PMI_SIZE``,
Open MPI ``OMPI_COMM_WORLD_*``, Paddle's ``PADDLE_TRAINER_ID``/``PADDLE_TRAINERS_NUM``) without starting MPI, so
`get_rank` and `DistributedBatchSampler` work in a plain single process. MPI itself (mpi4py, the ``distributed``
extra) is imported only by `init_parallel_env` or the first collective.
"""
import os
import sys
import traceback

_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PADDLE_TRAINER_ID", "OAR_RANK")
_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PADDLE_TRAINERS_NUM", "OAR_WORLD_SIZE")
_LOCAL_RANK_VARS = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "PADDLE_LOCAL_RANK", "OAR_LOCAL_RANK")
DEFAULT_TIMEOUT = 600.0  # seconds a collective waits for the other ranks before it raises


class DistributedError(RuntimeError):
    """A collective could not complete: a rank died, raised, left early, or the ranks disagree.

    Example:
        >>> issubclass(oar.distributed.DistributedError, RuntimeError)
        True
    """


def _env_int(names, default):
    for n in names:
        v = os.environ.get(n)
        if v not in (None, ""):
            return int(v)
    return default


class _Runtime:
    """The process's MPI state: the module, the world communicator, and the collective timeout."""

    __slots__ = ("MPI", "world", "timeout", "hooked")

    def __init__(self):
        self.MPI = self.world = None
        self.timeout = float(os.environ.get("OAR_DISTRIBUTED_TIMEOUT", DEFAULT_TIMEOUT))
        self.hooked = False


RUNTIME = _Runtime()


def mpi():
    """The `mpi4py.MPI` module, importing (and so initialising MPI) on first use."""
    if RUNTIME.MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError("oar.distributed needs mpi4py and an MPI library: pip install 'oar-dl[distributed]' "
                              f"(mpich + mpi4py), or mpi4py built against a system MPI ({e})") from None
        RUNTIME.MPI, RUNTIME.world = MPI, MPI.COMM_WORLD
        RUNTIME.world.Set_errhandler(MPI.ERRORS_RETURN)  # MPI errors become Python exceptions
    return RUNTIME.MPI


def world():
    mpi()
    return RUNTIME.world


class ParallelEnv:
    """This process's place among the ranks, read from the launcher's environment (no MPI call).

    Attributes: ``rank``, ``world_size`` (alias ``nranks``), ``local_rank``, ``device_id`` (``dev_id``, always 0 on
    CPU), ``trainer_endpoints`` and ``current_endpoint`` (host names from the launcher, or empty).

    Example:
        >>> env = oar.distributed.ParallelEnv()
        >>> env.rank, env.world_size   # a plain `python` process is rank 0 of 1
        (0, 1)
    """

    def __init__(self):
        self._rank = _env_int(_RANK_VARS, 0)
        self._world_size = _env_int(_SIZE_VARS, 1)
        self._local_rank = _env_int(_LOCAL_RANK_VARS, self._rank)
        eps = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
        self._trainer_endpoints = [e for e in eps.split(",") if e]
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")

    rank = property(lambda self: self._rank)
    world_size = property(lambda self: self._world_size)
    nranks = world_size
    local_rank = property(lambda self: self._local_rank)
    device_id = property(lambda self: 0)
    dev_id = device_id
    trainer_endpoints = property(lambda self: list(self._trainer_endpoints))
    current_endpoint = property(lambda self: self._current_endpoint)


def is_initialized():
    """True once `init_parallel_env` (or a first collective) has started MPI in this process.

    Example:
        >>> isinstance(oar.distributed.is_initialized(), bool)
        True
    """
    return RUNTIME.MPI is not None


def init_parallel_env(timeout=None):
    """Starts MPI for this process and makes a failing rank stop all the others.

    Call it once at the start of a training script run by ``python -m oar.distributed.launch``, ``mpiexec -n N
    python train.py`` or `spawn`. In a plain ``python train.py`` it is a world of one rank. After it, an uncaught
    exception on any rank prints that rank's traceback and aborts every rank (no survivor waits forever), and
    each collective raises `DistributedError` when the others do not join within `timeout` seconds.

    Args:
        timeout (float, optional): seconds a collective waits; default ``$OAR_DISTRIBUTED_TIMEOUT`` or 600.

    Returns:
        The world `Group`.

    Example:
        >>> g = oar.distributed.init_parallel_env()
        >>> g.nranks == oar.distributed.get_world_size()
        True
    """
    from .group import world_group
    if timeout is not None:
        if not timeout > 0:
            raise ValueError(f"init_parallel_env: timeout must be a positive number of seconds, got {timeout!r}")
        RUNTIME.timeout = float(timeout)
    comm = world()
    env_size = _env_int(_SIZE_VARS, None)
    if env_size is not None and env_size != comm.Get_size():
        raise DistributedError(f"the launcher asked for {env_size} ranks but MPI started {comm.Get_size()}: "
                               "mpi4py is linked to a different MPI than the mpiexec that started this process "
                               "(use the mpiexec installed with the `mpich` wheel, or rebuild mpi4py)")
    if comm.Get_size() > 1 and not RUNTIME.hooked:
        _install_abort_hook()
    return world_group()


def _install_abort_hook():
    """An uncaught exception prints this rank's traceback then aborts the whole job (MPI_Abort)."""
    previous = sys.excepthook
    rank = RUNTIME.world.Get_rank()

    def hook(kind, value, tb):
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(f"[oar.distributed] rank {rank} failed with an uncaught {kind.__name__}; "
                         f"stopping every rank.\n{text}")
        sys.stderr.flush()
        sys.stdout.flush()
        if previous is not sys.__excepthook__:
            previous(kind, value, tb)
        RUNTIME.world.Abort(1)

    sys.excepthook = hook
    RUNTIME.hooked = True


def get_rank(group=None):
    """This process's rank in `group` (default: all ranks), from 0; -1 when it is not a member.

    Example:
        >>> oar.distributed.get_rank()
        0
    """
    if group is not None:
        return group.rank
    return RUNTIME.world.Get_rank() if RUNTIME.world is not None else _env_int(_RANK_VARS, 0)


def get_world_size(group=None):
    """The number of ranks in `group` (default: all ranks).

    Example:
        >>> oar.distributed.get_world_size()
        1
    """
    if group is not None:
        return group.nranks
    return RUNTIME.world.Get_size() if RUNTIME.world is not None else _env_int(_SIZE_VARS, 1)
