"""Datasets: map-style `Dataset` (``__getitem__`` + ``__len__``), `IterableDataset` (``__iter__``), and helpers."""
import bisect
import math

import numpy as np


class Dataset:
    """A map-style dataset: subclasses implement ``__getitem__(idx)`` and ``__len__()``.

    Example:
        >>> class Squares(oar.io.Dataset):
        ...     def __getitem__(self, i): return np.float32(i * i)
        ...     def __len__(self): return 10
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


class IterableDataset(Dataset):
    """A stream of samples: subclasses implement ``__iter__``. With worker processes each worker iterates its own
    copy; use `oar.io.get_worker_info()` inside ``__iter__`` to split the stream.

    Example:
        >>> class Stream(oar.io.IterableDataset):
        ...     def __iter__(self): yield from (np.float32(i) for i in range(5))
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __getitem__(self, idx):
        raise TypeError("an IterableDataset has no __getitem__; iterate it")

    def __len__(self):
        raise TypeError("an IterableDataset has no len()")


class TensorDataset(Dataset):
    """Samples are the i-th rows of the given tensors (all with the same first dimension).

    Example:
        >>> ds = oar.io.TensorDataset([oar.randn([8, 3]), oar.arange(8)])
        >>> x, y = ds[0]
    """

    def __init__(self, tensors):
        tensors = list(tensors)
        n = {t.shape[0] for t in tensors}
        if len(n) != 1:
            raise ValueError(f"TensorDataset: tensors must have the same first dimension, got "
                             f"{[t.shape[0] for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(t[idx] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ComposeDataset(Dataset):
    """Zips map-style datasets of equal length: sample i is the concatenation of their i-th sample fields.

    Example:
        >>> a = oar.io.TensorDataset([oar.to_tensor([1.0, 2.0])])
        >>> b = oar.io.TensorDataset([oar.to_tensor([10, 20])])
        >>> ds = oar.io.ComposeDataset([a, b])
        >>> len(ds), [float(v) for v in ds[1]]
        (2, [2.0, 20.0])
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len({len(d) for d in self.datasets}) != 1:
            raise ValueError("ComposeDataset: datasets must have the same length")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        out = []
        for d in self.datasets:
            s = d[idx]
            out.extend(s if isinstance(s, (list, tuple)) else [s])
        return tuple(out)


class ChainDataset(IterableDataset):
    """Iterates several iterable datasets one after the other.

    Example:
        >>> class Count(oar.io.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(oar.io.ChainDataset([Count(2), Count(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Concatenates map-style datasets.

    Example:
        >>> a = oar.io.TensorDataset([oar.to_tensor([1.0, 2.0])])
        >>> b = oar.io.TensorDataset([oar.to_tensor([3.0])])
        >>> ds = oar.io.ConcatDataset([a, b])
        >>> len(ds), float(ds[2][0])
        (3, 3.0)
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self):
        return int(self.cumulative_sizes[-1]) if self.cumulative_sizes else 0

    def __getitem__(self, idx):
        if idx < 0:
            idx += len(self)
        i = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[i][idx - (int(self.cumulative_sizes[i - 1]) if i else 0)]


class Subset(Dataset):
    """The samples of `dataset` at `indices`.

    Example:
        >>> ds = oar.io.TensorDataset([oar.to_tensor([10.0, 20.0, 30.0])])
        >>> sub = oar.io.Subset(ds, [2, 0])
        >>> len(sub), float(sub[0][0])
        (2, 30.0)
    """

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Splits `dataset` into non-overlapping random `Subset`s of the given lengths (ints, or fractions summing to 1).

    Example:
        >>> ds = oar.io.TensorDataset([oar.arange(10)])
        >>> train, val = oar.io.random_split(ds, [0.8, 0.2])
        >>> len(train), len(val)
        (8, 2)
    """
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1 and not all(isinstance(x, int) for x in lengths):
        sizes = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths {lengths} sum to {sum(lengths)}, but the dataset has {n} samples")
    from ..core.state import rng
    perm = (generator if generator is not None else rng()).permutation(n).tolist()
    out, start = [], 0
    for k in lengths:
        out.append(Subset(dataset, perm[start:start + k]))
        start += k
    return out
