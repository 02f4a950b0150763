"""Samplers: which sample indices, in which order, and how they are grouped into batches."""
import itertools
import math

import numpy as np

from ..core.state import rng


class Sampler:
    """Base class: an iterable of indices into `data_source`.

    Example:
        >>> class Reverse(oar.io.Sampler):
        ...     def __iter__(self):
        ...         return iter(range(len(self.data_source) - 1, -1, -1))
        ...     def __len__(self):
        ...         return len(self.data_source)
        >>> list(Reverse([7, 8, 9]))
        [2, 1, 0]
    """

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        return len(self.data_source)


class SequenceSampler(Sampler):
    """Indices 0, 1, ..., len(data_source) - 1 in order.

    Example:
        >>> list(oar.io.SequenceSampler([7, 8, 9]))
        [0, 1, 2]
    """

    def __iter__(self):
        return iter(range(len(self.data_source)))


class RandomSampler(Sampler):
    """A random permutation (or `num_samples` draws with `replacement`) drawn, as in Paddle, by NumPy's global
    generator (``np.random.choice``), so ``np.random.seed(s)`` reproduces Paddle's order. `generator` is, as in
    Paddle, an iterator yielding the indices (a `numpy.random.Generator` draws the permutation instead).

    Example:
        >>> np.random.seed(2023)
        >>> list(oar.io.RandomSampler(list(range(10))))
        [8, 2, 5, 0, 3, 4, 1, 9, 6, 7]
        >>> len(list(oar.io.RandomSampler(list(range(5)), replacement=True, num_samples=8)))
        8
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        self.replacement, self.generator = replacement, generator
        self._num_samples = num_samples
        if num_samples is not None and not replacement:
            raise ValueError("RandomSampler: num_samples can only be given with replacement=True")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator
        if g is None:
            return iter(np.random.choice(np.arange(n), self.num_samples, replace=self.replacement).tolist())
        if hasattr(g, "__next__"):  # Paddle's form: the indices themselves
            return itertools.islice(g, self.num_samples)
        if self.replacement:
            return iter(g.integers(0, n, self.num_samples).tolist())
        return iter(g.permutation(n).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order.

    Example:
        >>> _ = oar.seed(0)
        >>> sorted(oar.io.SubsetRandomSampler([4, 2, 7]))
        [2, 4, 7]
    """

    def __init__(self, indices):
        super().__init__(None)
        self.indices = list(indices)

    def __iter__(self):
        return iter([self.indices[i] for i in rng().permutation(len(self.indices))])

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights`, by NumPy's global generator as in
    Paddle (``np.random.seed`` reproduces Paddle's draws).

    Example:
        >>> list(oar.io.WeightedRandomSampler([0.0, 1.0, 0.0], num_samples=3))
        [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True):
        super().__init__(None)
        w = np.asarray(weights, dtype=np.float64)
        self.p, self.num_samples, self.replacement = w / w.sum(), num_samples, replacement

    def __iter__(self):
        return iter(np.random.choice(len(self.p), self.num_samples, replace=self.replacement, p=self.p).tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups indices into lists of `batch_size`.

    Give either `sampler` or `dataset` (then `shuffle` picks a RandomSampler or a SequenceSampler).

    Example:
        >>> list(oar.io.BatchSampler(dataset=range(5), batch_size=2))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give exactly one of dataset and sampler")
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size must be a positive int, got {batch_size!r}")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        elif shuffle:
            raise ValueError("BatchSampler: shuffle must be False when a sampler is given")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last
        self.shuffle = shuffle

    def __iter__(self):
        return _chunks(self.sampler, self.batch_size, self.drop_last)

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """A BatchSampler that gives rank `rank` of `num_replicas` its share of every epoch (Paddle's split).

    The index list is padded to a multiple of `num_replicas`; `set_epoch(e)` reseeds the shuffle so all ranks agree.
    `num_replicas` and `rank` default to the world size and rank of the job (`oar.distributed.ParallelEnv`); in a
    plain single process they are 1 and 0.

    Example:
        >>> ds = oar.io.TensorDataset([oar.arange(10)])
        >>> bs = oar.io.DistributedBatchSampler(ds, batch_size=4, num_replicas=2, rank=0)
        >>> list(bs)  # rank 0 of 2 takes every other block of batch_size indices
        [[0, 1, 2, 3], [8]]
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"DistributedBatchSampler: batch_size must be a positive int, got {batch_size!r}")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        if num_replicas is None or rank is None:  # from the launcher's environment (no MPI call)
            from ..distributed.env import ParallelEnv
            env = ParallelEnv()
        self.nranks = env.world_size if num_replicas is None else int(num_replicas)
        self.local_rank = env.rank if rank is None else int(rank)
        if not 0 <= self.local_rank < self.nranks:
            raise ValueError(f"DistributedBatchSampler: rank {rank} out of range for {self.nranks} replicas")
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) * 1.0 / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        n = len(self.dataset)
        indices = list(range(n))
        indices += indices[:(self.total_size - len(indices))]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            last = self.total_size % (self.batch_size * self.nranks)
            last_local = last // self.nranks
            sub = []
            for i in range(self.local_rank * self.batch_size, len(indices) - last, self.batch_size * self.nranks):
                sub.extend(indices[i:i + self.batch_size])
            tail = indices[len(indices) - last:]
            sub.extend(tail[self.local_rank * last_local:(self.local_rank + 1) * last_local])
            indices = sub
        yield from _chunks(indices, self.batch_size, self.drop_last)

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


def _chunks(indices, batch_size, drop_last):
    """Lists of `batch_size` consecutive indices; a shorter last one unless `drop_last`."""
    batch = []
    for i in indices:
        batch.append(i)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch
