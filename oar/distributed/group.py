"""Process groups: a subset of the ranks with its own MPI communicator, found by id from program ops."""
from .env import get_rank as _world_rank, world


class Group:
    """A set of ranks that run collectives together (Paddle's ``Group``).

    Attributes: ``id`` (0 is every rank; programs name groups by it as ``ring_id``), ``ranks`` (global ranks),
    ``rank`` (this process's rank inside the group, -1 when not a member) and ``nranks``.

    Example:
        >>> g = oar.distributed.new_group([0])
        >>> g.ranks, g.rank, g.nranks, g.is_member()
        ([0], 0, 1, True)
    """

    def __init__(self, gid, ranks, comm):
        self.id, self.ranks, self._comm = gid, list(ranks), comm
        me = _world_rank()
        self.rank = self.ranks.index(me) if me in self.ranks else -1
        self.nranks = len(self.ranks)

    @property
    def process_group(self):
        return self

    def is_member(self):
        return self.rank >= 0

    def get_group_rank(self, rank):
        """The rank inside this group of global rank `rank` (-1 when it is not a member)."""
        return self.ranks.index(rank) if rank in self.ranks else -1

    @property
    def comm(self):
        """The MPI communicator (None on ranks outside the group)."""
        return self._comm

    def __repr__(self):
        return f"Group(id={self.id}, ranks={self.ranks}, rank={self.rank})"


_GROUPS = {}


def world_group():
    """The group of every rank (id 0), created on first use."""
    g = _GROUPS.get(0)
    if g is None:
        comm = world()
        g = _GROUPS[0] = Group(0, range(comm.Get_size()), comm)
    return g


def get_group(gid=0):
    """The group with id `gid` (0: every rank); a program's collective ops find their communicator here.

    Example:
        >>> oar.distributed.get_group(0).nranks == oar.distributed.get_world_size()
        True
    """
    if gid == 0:
        return world_group()
    try:
        return _GROUPS[gid]
    except KeyError:
        raise ValueError(f"no process group with id {gid}: create it with oar.distributed.new_group(ranks) on every "
                         "rank, in the same order, before running a program that uses it") from None


def resolve(group):
    """`group` or the world group when None."""
    return world_group() if group is None else group


def new_group(ranks=None, backend=None, timeout=None):
    """A new group of the global `ranks` (default: all). Every rank must call it, in the same order.

    Args:
        ranks (list[int], optional): global ranks of the members, in the order that defines their group ranks.
        backend (str, optional): None or 'mpi' (oar's only backend); others ('nccl', 'gloo', ...) raise.
        timeout: not supported per group (one process-wide timeout, `init_parallel_env`): a value raises.

    Example:
        >>> g = oar.distributed.new_group()
        >>> g.nranks == oar.distributed.get_world_size()
        True
    """
    if backend not in (None, "mpi"):
        raise ValueError(f"new_group: backend={backend!r} is not supported; oar's collectives run on MPI "
                         "(backend=None or 'mpi')")
    if timeout is not None:
        raise NotImplementedError("new_group(timeout=...): per-group timeouts are not supported; one timeout "
                                  "covers every collective: init_parallel_env(timeout=...) or "
                                  "$OAR_DISTRIBUTED_TIMEOUT")
    comm = world()
    size = comm.Get_size()
    ranks = list(range(size)) if ranks is None else sorted(set(int(r) for r in ranks))
    bad = [r for r in ranks if not 0 <= r < size]
    if bad or not ranks:
        raise ValueError(f"new_group: ranks must be a non-empty list of ranks in [0, {size}), got {ranks}")
    from . import env
    mpi = env.mpi()
    sub = comm.Create(comm.Get_group().Incl(ranks))  # collective over the world; COMM_NULL for non-members
    gid = max(_GROUPS, default=0) + 1
    _GROUPS[gid] = g = Group(gid, ranks, None if sub == mpi.COMM_NULL else sub)
    if g.comm is not None:
        g.comm.Set_errhandler(mpi.ERRORS_RETURN)
    return g

