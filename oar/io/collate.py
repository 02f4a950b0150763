"""Batch assembly. Collation stacks samples into NumPy arrays (safe to send between processes); the main process
then wraps every array of the batch into an oar Tensor (`to_tensors`)."""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.devices import is_device_array, to_host
from ..eager.tensor import Tensor


def default_collate_fn(batch):
    """Stacks a list of samples field by field: arrays/numbers/Tensors -> stacked arrays, dicts and tuples kept.

    Example:
        >>> from oar.io.collate import default_collate_fn
        >>> x, y = default_collate_fn([(np.zeros(2), 1), (np.ones(2), 0)])
        >>> x.shape, y.tolist()
        ((2, 2), [1, 0])
    """
    sample = batch[0]
    if isinstance(sample, Tensor):
        return np.stack([to_host(s._data) if is_device_array(s._data) else s._data for s in batch])
    if isinstance(sample, np.ndarray):
        return _numeric(np.stack(batch), "default_collate_fn")
    if isinstance(sample, (numbers.Number, np.number, np.bool_)):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, Mapping):
        return {k: default_collate_fn([d[k] for d in batch]) for k in sample}
    if isinstance(sample, Sequence):
        n = len(sample)
        if any(len(s) != n for s in batch):
            raise RuntimeError("default_collate_fn: the samples of a batch have fields of different lengths")
        return [default_collate_fn(list(f)) for f in zip(*batch)]
    raise TypeError(f"default_collate_fn: cannot batch samples of type {type(sample).__name__}; expected numpy "
                    "arrays, numbers, Tensors, or dicts/lists/tuples of them (or pass collate_fn)")


def default_convert_fn(sample):
    """Used when ``batch_size=None``: a sample is passed through, Tensors turned into arrays.

    Example:
        >>> from oar.io.collate import default_convert_fn
        >>> default_convert_fn({'x': oar.to_tensor([1, 2]), 'y': 3})
        {'x': array([1, 2]), 'y': 3}
    """
    return to_arrays(sample)


def to_arrays(x):
    """Replaces Tensors by their arrays in a nested structure (the form sent from workers)."""
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, dict):
        return {k: to_arrays(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_arrays(v) for v in x) if type(x) in (list, tuple) else x
    return x


def _numeric(a, who):
    """`a` if its dtype can be a Tensor's; else a TypeError saying what to do with strings or objects."""
    if a.dtype.kind in "biufc" or a.dtype.name == "bfloat16":
        return a
    raise TypeError(f"{who}: a batch field holds {a.dtype} values (shape {list(a.shape)}), which cannot become a "
                    "Tensor; oar Tensors hold numbers: encode strings as numbers in the dataset, or return them as "
                    "a Python list (pass a collate_fn that keeps them)")


def to_tensors(x):
    """Replaces NumPy arrays by oar Tensors in a nested structure (non-numeric arrays raise TypeError)."""
    if isinstance(x, np.ndarray):
        return Tensor(_numeric(x, "DataLoader"))
    if isinstance(x, dict):
        return {k: to_tensors(v) for k, v in x.items()}
    if type(x) in (list, tuple):
        return type(x)(to_tensors(v) for v in x)
    return x
