"""`paddle.nn.functional.extension`: `sequence_mask` (`oar/ops/nn/common.py`)."""
from ...ops.nn.common import sequence_mask  # noqa: F401
from ...ops import indexing as _I
from ...ops import manipulation as _S


def gather_tree(ids, parents):
    """Full beam-search sequences from the per-step ids and parent beams ([max_time, batch, beam]): walking back
    from the last step, each step's id is taken at the beam the later step came from.

    Example:
        >>> import oar.nn.functional as F
        >>> ids = oar.to_tensor([[[2, 2]], [[6, 1]]])
        >>> parents = oar.to_tensor([[[0, 0]], [[1, 0]]])
        >>> F.gather_tree(ids, parents).numpy().tolist()
        [[[2, 2]], [[6, 1]]]
    """
    if ids.ndim != 3 or list(ids.shape) != list(parents.shape):
        raise ValueError(f"gather_tree: ids and parents must be [max_time, batch, beam] of one shape, got "
                         f"{ids.shape} and {parents.shape}")
    if ids.dtype.name not in ("int32", "int64") or parents.dtype.name != ids.dtype.name:
        raise TypeError(f"gather_tree: ids and parents must be int32 or int64 alike, got {ids.dtype.name} and "
                        f"{parents.dtype.name}")
    steps = ids.shape[0]
    if steps == 0:
        return ids
    beam = parents[steps - 1]
    out = [ids[steps - 1]]
    for t in range(steps - 2, -1, -1):
        out.append(_I.take_along_axis(ids[t], beam, axis=1))
        beam = _I.take_along_axis(parents[t], beam, axis=1)
    return _S.stack(out[::-1], axis=0)
