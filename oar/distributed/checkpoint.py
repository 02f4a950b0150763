"""`paddle.distributed.save_state_dict` / `load_state_dict`: a checkpoint folder that every rank writes its own
part of and reads back by key.

Layout (version `FORMAT_VERSION`): ``{rank}_0.distcp``, a safetensors file of that rank's tensors by state-dict
key, and ``{rank}.metadata``, JSON ``{"version": 1, "tensors": {key: {"shape": [...], "dtype": "float32"}}}``.
A key found in several ranks' files (a replicated tensor) is read from the lowest rank. These are oar's files:
Paddle's `.distcp` files are pickles and are not read.

Changelog:
    1 (2026-11-27): first version.
"""
import glob
import json
import os
import re

import numpy as np

from ..core import safetensors_file
from ..core.safe_files import write_files
from .env import get_rank

FORMAT_VERSION = 1


def _arrays(state_dict):
    out = {}
    for k, v in state_dict.items():
        if not hasattr(v, "numpy"):
            raise TypeError(f"save_state_dict: {k!r} is a {type(v).__name__}, not a Tensor")
        out[k] = v.numpy()
    return out


def save_state_dict(state_dict, path, process_group=None, coordinator_rank=0, unique_id=None, async_save=False,
                    safetensors=False, save_replicas=False):
    """Writes this rank's `state_dict` (str -> Tensor) into the folder `path` (every rank calls it with its own).
    `process_group`, `coordinator_rank`, `save_replicas` and `safetensors` choose how Paddle's ranks share the
    writing and its file format; every oar rank writes its own safetensors file, so they change nothing.

    Example:
        >>> lin = oar.nn.Linear(2, 2)
        >>> oar.distributed.save_state_dict(lin.state_dict(), 'dist_ckpt')
        >>> fresh = oar.nn.Linear(2, 2)
        >>> target = fresh.state_dict()
        >>> oar.distributed.load_state_dict(target, 'dist_ckpt')
        >>> bool((fresh.weight.numpy() == lin.weight.numpy()).all())
        True
    """
    if async_save:
        raise NotImplementedError("save_state_dict: async_save=True is not supported (the save is synchronous)")
    if unique_id is not None:
        raise NotImplementedError("save_state_dict: unique_id (several checkpoints in one folder) is not supported")
    if process_group is not None and not process_group.is_member():
        return  # only the group's ranks save
    arrays = _arrays(state_dict)
    rank = get_rank()
    os.makedirs(path, exist_ok=True)
    meta = {"version": FORMAT_VERSION,
            "tensors": {k: {"shape": list(a.shape), "dtype": a.dtype.name} for k, a in arrays.items()}}
    safetensors_file.write(os.path.join(path, f"{rank}_0.distcp"), arrays)
    write_files({os.path.join(path, f"{rank}.metadata"): json.dumps(meta).encode()})


def _where(path):
    """key -> (rank, shape, dtype), the lowest rank holding it."""
    found = {}
    files = sorted(glob.glob(os.path.join(path, "*.metadata")),
                   key=lambda f: int(re.match(r"(\d+)", os.path.basename(f)).group(1)))
    if not files:
        raise FileNotFoundError(f"load_state_dict: no checkpoint in {path} (written by save_state_dict)")
    for f in files:
        meta = json.loads(open(f).read())
        if meta.get("version") != FORMAT_VERSION:
            raise ValueError(f"load_state_dict: {f} is version {meta.get('version')}, this oar reads "
                             f"{FORMAT_VERSION}")
        rank = int(re.match(r"(\d+)", os.path.basename(f)).group(1))
        for k, m in meta["tensors"].items():
            found.setdefault(k, (rank, m["shape"], m["dtype"]))
    return found


def load_state_dict(state_dict, path, process_group=None, coordinator_rank=0, unique_id=None, offload=False,
                    mw_name_compatibility=True, aoa_config=None, safetensors=False, worker_groups=None,
                    comm_method="broadcast"):
    """Fills the tensors of `state_dict` in place from the checkpoint folder `path` (`save_state_dict`'s),
    by key; a key the checkpoint lacks, or a shape that differs, raises. The remaining arguments tune how Paddle's
    ranks exchange pieces; each oar rank reads the files it needs itself.

    Example:
        >>> oar.distributed.save_state_dict({'w': oar.to_tensor([1.0, 2.0])}, 'ckpt_w')
        >>> target = {'w': oar.zeros([2])}
        >>> oar.distributed.load_state_dict(target, 'ckpt_w')
        >>> target['w'].numpy().tolist()
        [1.0, 2.0]
    """
    if aoa_config is not None:
        raise NotImplementedError("load_state_dict: aoa_config (renaming and reshaping keys) is not supported")
    if unique_id is not None:
        raise NotImplementedError("load_state_dict: unique_id (several checkpoints in one folder) is not supported")
    if process_group is not None and not process_group.is_member():
        return  # only the group's ranks load
    where = _where(path)
    missing = sorted(set(state_dict) - set(where))
    if missing:
        raise KeyError(f"load_state_dict: {missing} are not in the checkpoint {path}")
    files = {}
    for k, t in state_dict.items():
        rank, shape, dtype = where[k]
        if list(t.shape) != shape:
            raise ValueError(f"load_state_dict: {k!r} has shape {list(t.shape)} here and {shape} in {path}")
        if rank not in files:
            files[rank] = safetensors_file.read_all(os.path.join(path, f"{rank}_0.distcp"))
        t.set_value(np.asarray(files[rank][k]).astype(t.numpy().dtype, copy=False))
