"""The descriptions of Paddle's auto-parallel API: `ProcessMesh` (an n-d array of ranks with named dims), the
placements `Shard`, `Replicate`, `Partial` and `DistAttr`. They answer questions about meshes and placements as
Paddle's do; oar does not split tensors by them (`shard_tensor` and SPMD op rules are not provided)."""
import numpy as np

from .collective_more import ReduceType
from .env import get_rank


class ProcessMesh:
    """An n-d arrangement of ranks: ``mesh`` (nested lists, or `shape` + `process_ids`) and one name per dim
    (``d0``, ``d1``, ... by default).

    Example:
        >>> m = oar.distributed.ProcessMesh([[0, 1], [2, 3]], dim_names=['x', 'y'])
        >>> m.shape, m.process_ids, m.get_dim_size('y')
        ([2, 2], [0, 1, 2, 3], 2)
        >>> m.get_mesh_with_dim('y')
        shape [2, 2], process_ids [0, 2, 1, 3], dim_names ['y', 'x']
    """

    def __init__(self, mesh=None, dim_names=None, shape=None, process_ids=None):
        if mesh is None:
            if shape is None or process_ids is None:
                raise ValueError("ProcessMesh: give mesh, or shape and process_ids")
            mesh = np.asarray(list(process_ids)).reshape(shape)
        arr = np.array(mesh.mesh if isinstance(mesh, ProcessMesh) else mesh)
        if arr.dtype.kind not in "iu" or arr.ndim == 0:
            raise ValueError(f"ProcessMesh: mesh must be a non-empty nested list of int ranks, got {mesh!r}")
        if len(set(arr.ravel().tolist())) != arr.size:
            raise ValueError(f"ProcessMesh: the ranks of {arr.tolist()} must be unique")
        names = list(dim_names) if dim_names is not None else [f"d{i}" for i in range(arr.ndim)]
        if len(names) != arr.ndim or len(set(names)) != len(names):
            raise ValueError(f"ProcessMesh: {arr.ndim} dims need {arr.ndim} distinct dim_names, got {names}")
        self._mesh, self._dim_names = arr.astype(np.int64), names

    mesh = property(lambda self: self._mesh)
    shape = property(lambda self: list(self._mesh.shape))
    ndim = property(lambda self: self._mesh.ndim)
    size = property(lambda self: int(self._mesh.size))
    process_ids = property(lambda self: self._mesh.ravel().tolist())
    dim_names = property(lambda self: list(self._dim_names))

    def _axis(self, dim_name):
        if dim_name not in self._dim_names:
            raise ValueError(f"ProcessMesh: no dim named {dim_name!r} (dims {self._dim_names})")
        return self._dim_names.index(dim_name)

    def get_dim_size(self, dim):
        """The size of dim `dim` (a name or an index)."""
        return self._mesh.shape[self._axis(dim) if isinstance(dim, str) else dim]

    dim_size = get_dim_size

    def contains(self, process_id):
        return int(process_id) in self.process_ids

    def get_mesh_with_dim(self, dim_name, index=None):
        """The mesh with `dim_name` moved first (and, with `index`, only that slice of it)."""
        a = self._axis(dim_name)
        order = [a] + [i for i in range(self.ndim) if i != a]
        names = [self._dim_names[i] for i in order]
        moved = np.transpose(self._mesh, order)
        if index is None:
            return ProcessMesh(moved, names)
        return ProcessMesh(moved[index], names[1:]) if moved.ndim > 1 else ProcessMesh([moved[index]], names)

    def get_submesh_with_dim(self, dim_name):
        """The 1-d mesh along `dim_name` through this process's rank (None when the rank is not in the mesh)."""
        where = np.argwhere(self._mesh == get_rank())
        if not len(where):
            return None
        a = self._axis(dim_name)
        index = list(where[0])
        index[a] = slice(None)
        return ProcessMesh(self._mesh[tuple(index)], [dim_name])

    __getitem__ = get_submesh_with_dim

    def get_rank_by_dim_and_process_id(self, dim, process_id):
        """The coordinate along `dim` of rank `process_id` (-1 when it is not in the mesh)."""
        where = np.argwhere(self._mesh == process_id)
        return int(where[0][self._axis(dim) if isinstance(dim, str) else dim]) if len(where) else -1

    def __eq__(self, other):
        return isinstance(other, ProcessMesh) and self.shape == other.shape and \
            self.process_ids == other.process_ids and self.dim_names == other.dim_names

    def __hash__(self):
        return hash((tuple(self.shape), tuple(self.process_ids), tuple(self._dim_names)))

    def __repr__(self):
        return f"shape {self.shape}, process_ids {self.process_ids}, dim_names {self._dim_names}"


class Placement:
    """How a tensor is laid out along one mesh dim: `Shard`, `Replicate` or `Partial`.

    Example:
        >>> p = oar.distributed.Shard(1)
        >>> isinstance(p, oar.distributed.Placement), p.is_shard(), p.is_replicated()
        (True, True, False)
    """

    def is_shard(self, dim=None):
        return False

    def is_replicated(self):
        return False

    def is_partial(self):
        return False

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return ()


class Shard(Placement):
    """The tensor is split along its dim `dim` over the mesh dim.

    Example:
        >>> oar.distributed.Shard(0), oar.distributed.Shard(1).get_dim()
        (Shard(dim=0), 1)
    """

    def __init__(self, dim):
        if not isinstance(dim, int):
            raise TypeError(f"Shard: dim must be an int, got {type(dim).__name__}")
        self._dim = dim

    def get_dim(self):
        return self._dim

    def is_shard(self, dim=None):
        return dim is None or dim == self._dim

    def _key(self):
        return (self._dim,)

    def __repr__(self):
        return f"Shard(dim={self._dim})"


class Replicate(Placement):
    """Every rank of the mesh dim holds the whole tensor.

    Example:
        >>> oar.distributed.Replicate().is_replicated()
        True
    """

    def is_replicated(self):
        return True

    def __repr__(self):
        return "Replicate()"


class Partial(Placement):
    """Each rank of the mesh dim holds a part; the tensor is their `reduce_type` reduction (sum by default).

    Example:
        >>> oar.distributed.Partial(), oar.distributed.Partial(oar.distributed.ReduceType.kRedMax)
        (Partial(reduce_type=SUM), Partial(reduce_type=MAX))
    """

    def __init__(self, reduce_type=ReduceType.kRedSum):
        self._reduce_type = ReduceType(reduce_type)

    @property
    def reduce_type(self):
        return self._reduce_type

    def is_partial(self):
        return True

    def _key(self):
        return (int(self._reduce_type),)

    def __repr__(self):
        return f"Partial(reduce_type={self._reduce_type.name[len('kRed'):].upper()})"


class DistAttr:
    """A tensor's distribution in the older form: a `ProcessMesh` and, per tensor dim, the mesh dim name it is
    split over (None: not split). `dims_mapping` gives the mesh dim indices (-1: not split).

    Example:
        >>> m = oar.distributed.ProcessMesh([[0, 1], [2, 3]], dim_names=['x', 'y'])
        >>> oar.distributed.DistAttr(m, ['x', None]).dims_mapping
        [0, -1]
    """

    def __init__(self, mesh, sharding_specs):
        if not isinstance(mesh, ProcessMesh):
            raise TypeError(f"DistAttr: mesh must be a ProcessMesh, got {type(mesh).__name__}")
        specs = list(sharding_specs)
        for s in specs:
            if s is not None and s not in mesh.dim_names:
                raise ValueError(f"DistAttr: sharding spec {s!r} is not a dim of the mesh {mesh.dim_names}")
        named = [s for s in specs if s is not None]
        if len(set(named)) != len(named):
            raise ValueError(f"DistAttr: a mesh dim may split only one tensor dim, got {specs}")
        self.process_mesh, self.sharding_specs = mesh, specs

    @property
    def dims_mapping(self):
        return [-1 if s is None else self.process_mesh.dim_names.index(s) for s in self.sharding_specs]

    def __repr__(self):
        return f"DistAttr(process_mesh={self.process_mesh!r}, sharding_specs={self.sharding_specs})"
