"""Distributed tensors (Paddle's auto-parallel `shard_tensor`, `dtensor_from_fn`, `reshard`), as far as oar can
honour them without SPMD op rules.

A `DistTensor` is a Tensor that carries a `ProcessMesh` and one placement per mesh dim. Its value is the **global**
value, held whole on every rank (Paddle's `.shape` is the global shape too), so every op on it computes what Paddle
computes; the result of an op is a plain Tensor (Paddle's carries placements its SPMD rules infer). The placements
describe the layout: `_local_value()` is this rank's shard by Paddle's rule (a `Shard(d)` over a mesh dim of size
n splits dim d into n chunks of ``ceil(size / n)``; several mesh dims sharding one dim split it in mesh-dim order).
No memory is saved and `reshard` moves no data: it changes the layout the tensor describes. `Partial` placements
(a value that is a pending sum over ranks) are refused: with the whole value on every rank there is none.

Example:
    >>> mesh = oar.distributed.ProcessMesh([0, 1], dim_names=['x'])
    >>> d = oar.distributed.shard_tensor(oar.arange(6.0).reshape([3, 2]), mesh, [oar.distributed.Shard(0)])
    >>> d.is_dist(), d.shape, d.placements
    (True, [3, 2], [Shard(dim=0)])
    >>> d._local_value().numpy().tolist()   # rank 0: rows 0-1 of 3 (chunks of ceil(3 / 2) = 2)
    [[0.0, 1.0], [2.0, 3.0]]
"""
import numpy as np

from ..eager.tensor import Parameter, Tensor, to_tensor
from .auto_parallel import Partial, Placement, ProcessMesh, Shard
from .env import get_rank


class _Dist:
    """What a distributed tensor adds to a Tensor (shared by `DistTensor` and `DistParameter`)."""

    __slots__ = ()

    def is_dist(self):
        return True

    placements = property(lambda self: list(self._placements), doc="One placement per mesh dim.")
    process_mesh = property(lambda self: self._mesh, doc="The ProcessMesh the tensor is laid out on.")

    def _local_value(self):
        """This rank's part of the value by the placements (Paddle's rule; see the module docstring)."""
        where = np.argwhere(self._mesh.mesh == get_rank())
        if not len(where):
            raise ValueError(f"_local_value: rank {get_rank()} is not in the mesh {self._mesh}; it holds no part")
        part = self
        for mesh_dim, p in enumerate(self._placements):
            if isinstance(p, Shard):
                n, c = self._mesh.shape[mesh_dim], int(where[0][mesh_dim])
                size = part.shape[p.get_dim()]
                chunk = -(-size // n)
                part = part.slice([p.get_dim()], [min(c * chunk, size)], [min((c + 1) * chunk, size)])
        return Tensor(np.array(part._data), stop_gradient=self.stop_gradient)


class DistTensor(_Dist, Tensor):
    """A Tensor with a `process_mesh` and `placements` (see the module docstring); make one with `shard_tensor`.

    Example:
        >>> mesh = oar.distributed.ProcessMesh([0], dim_names=['x'])
        >>> d = oar.distributed.shard_tensor(oar.ones([2]), mesh, [oar.distributed.Replicate()])
        >>> d.process_mesh == mesh, (d * 2).is_dist()
        (True, False)
    """

    __slots__ = ("_mesh", "_placements")


class DistParameter(_Dist, Parameter):
    """A Parameter laid out on a mesh (what `shard_tensor` of a Parameter gives, as Paddle's dist parameters):
    still trainable by an optimizer, with `process_mesh` and `placements`.

    Example:
        >>> mesh = oar.distributed.ProcessMesh([0], dim_names=['x'])
        >>> w = oar.distributed.shard_tensor(oar.nn.Linear(2, 2).weight, mesh, [oar.distributed.Shard(1)])
        >>> isinstance(w, oar.Tensor), w.trainable, w.placements
        (True, True, [Shard(dim=1)])
    """

    __slots__ = ("_mesh", "_placements")

    def __deepcopy__(self, memo):
        """A DistParameter again, with the same layout and settings (a deep-copied sharded layer stays sharded)."""
        return _make(Parameter.__deepcopy__(self, memo), self._mesh, list(self._placements), self.stop_gradient)

    def __repr__(self):
        return f"DistParameter(mesh={self._mesh}, placements={self._placements}):\n" + Tensor.__repr__(self)

    __str__ = __repr__


def _checked(x, mesh, placements, who):
    if not isinstance(mesh, ProcessMesh):
        raise TypeError(f"{who}: mesh must be a ProcessMesh, got {type(mesh).__name__}")
    placements = list(placements)
    if len(placements) != mesh.ndim or not all(isinstance(p, Placement) for p in placements):
        raise ValueError(f"{who}: a mesh of {mesh.ndim} dims needs {mesh.ndim} placements (Shard, Replicate), "
                         f"got {placements}")
    for p in placements:
        if isinstance(p, Partial):
            raise NotImplementedError(f"{who}: Partial placements are not supported: oar holds a distributed "
                                      "tensor's whole value on every rank, so no sum over ranks is pending")
        if isinstance(p, Shard) and not -x.ndim <= p.get_dim() < x.ndim:
            raise ValueError(f"{who}: {p} of a tensor with {x.ndim} dims")
    return [Shard(p.get_dim() % x.ndim) if isinstance(p, Shard) else p for p in placements]


def _make(value, mesh, placements, stop_gradient):
    if isinstance(value, Parameter):  # a parameter stays one (trainable, with its settings), as in Paddle
        out = DistParameter(value._data.copy(), name=value._name, trainable=value.trainable)
        for k in ("optimize_attr", "regularizer", "need_clip", "is_distributed", "do_model_average"):
            object.__setattr__(out, k, getattr(value, k))
        if stop_gradient is not None:
            out.stop_gradient = stop_gradient
        out._mesh, out._placements = mesh, placements
        return out
    out = DistTensor(value._data.copy(), stop_gradient=value.stop_gradient if stop_gradient is None
                     else stop_gradient, name=value._name)
    out._mesh, out._placements = mesh, placements
    return out


def shard_tensor(data, mesh, placements, dtype=None, place=None, stop_gradient=None):
    """A distributed tensor of the global value `data` laid out on `mesh` by `placements` (one per mesh dim).

    Args:
        data: the global value (a Tensor, array or nested list), the same on every rank (as in Paddle).
        mesh: a `ProcessMesh`.
        placements: `Shard(d)` or `Replicate()` per mesh dim (`Partial` is refused, see the module docstring).
        dtype, place: as `oar.to_tensor`.
        stop_gradient: default: that of `data` when it is a Tensor, else True.

    Example:
        >>> mesh = oar.distributed.ProcessMesh([[0, 1], [2, 3]], dim_names=['x', 'y'])
        >>> d = oar.distributed.shard_tensor(oar.ones([4, 6]), mesh,
        ...                                  [oar.distributed.Shard(0), oar.distributed.Shard(1)])
        >>> d.shape, d._local_value().shape
        ([4, 6], [2, 3])
    """
    value = data if isinstance(data, Tensor) and dtype is None and place is None else \
        to_tensor(data, dtype=dtype, place=place)
    return _make(value, mesh, _checked(value, mesh, placements, "shard_tensor"), stop_gradient)


def dtensor_from_fn(fn, mesh, placements, *args, **kwargs):
    """``shard_tensor(fn(*args, **kwargs), mesh, placements)``.

    Example:
        >>> mesh = oar.distributed.ProcessMesh([0], dim_names=['x'])
        >>> d = oar.distributed.dtensor_from_fn(oar.ones, mesh, [oar.distributed.Shard(0)], shape=[1])
        >>> d.is_dist(), d.numpy().tolist()
        (True, [1.0])
    """
    return shard_tensor(fn(*args, **kwargs), mesh, placements)


def reshard(dist_tensor, mesh, placements):
    """The same global value laid out on `mesh` by `placements` (no data moves: every rank holds it whole).

    Example:
        >>> mesh = oar.distributed.ProcessMesh([0, 1], dim_names=['x'])
        >>> d = oar.distributed.shard_tensor(oar.arange(4.0), mesh, [oar.distributed.Shard(0)])
        >>> r = oar.distributed.reshard(d, mesh, [oar.distributed.Replicate()])
        >>> r.placements, r._local_value().numpy().tolist()
        ([Replicate()], [0.0, 1.0, 2.0, 3.0])
    """
    if not (isinstance(dist_tensor, Tensor) and dist_tensor.is_dist()):
        raise TypeError("reshard: takes a distributed tensor (made by shard_tensor), got "
                        f"{type(dist_tensor).__name__}")
    return _make(dist_tensor, mesh, _checked(dist_tensor, mesh, placements, "reshard"), None)
