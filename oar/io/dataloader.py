"""`DataLoader`: batches from a dataset, in the main process or in worker processes (see `worker.py`)."""
from ..core.state import rng
from .collate import default_collate_fn, default_convert_fn, to_arrays, to_tensors
from .dataset import IterableDataset
from .prefetch import DeviceFeed, place_for_loader
from .sampler import BatchSampler
from .worker import MapIter, StreamIter, WorkerPool


class DataLoader:
    """Iterates over batches of `dataset` as lists/dicts of oar Tensors.

    Args:
        dataset: a `Dataset` (map-style) or an `IterableDataset`.
        batch_size: samples per batch (None: samples one by one, unbatched).
        shuffle / drop_last: used to build a `BatchSampler` when `batch_sampler` is not given.
        collate_fn: ``fn(list of samples) -> batch``; default stacks arrays/numbers/Tensors field by field.
        num_workers: 0 loads in the main process; > 0 uses that many worker processes.
        batch_sampler: yields lists of indices (excludes batch_size/shuffle/drop_last).
        timeout: seconds to wait for a worker's batch before raising (0 waits while workers are alive).
        worker_init_fn: called as ``fn(worker_id)`` in each worker at start.
        persistent_workers: keep the worker processes alive between epochs.
        feed_list: static `data` variables; with ``return_list=False`` each batch comes as Paddle's static loader
            gives it, ``[{variable name: field}]`` (one dict for the one place), ready for ``Executor.run(feed=)``.
        return_list, use_shared_memory, places, use_buffer_reader, prefetch_factor: accepted for compatibility
            (apart from the feed dicts above).
        places: where batches are delivered (a place, 'cpu' / 'gpu:N', or a list of one); None: the current
            device when the loader is made (`oar.set_device`), as in Paddle.
        use_buffer_reader: on a GPU place, copy the next ``reader_buffer_size`` batches to the device in a
            background thread while the current batch is used (False: each batch is copied when it is asked for).
            On the CPU there is nothing to copy and batches come as loaded.
        prefetch_factor: batches in flight per worker process (``num_workers > 0``).
        return_list, use_shared_memory: accepted for compatibility (workers send batches through pipes; an eager
            loader always returns lists).

    Workers end with the main process (even when it is killed), on Ctrl-C and on any error of the iteration; a
    batch a worker cannot send (an object that does not pickle) and a batch field of strings or objects raise a
    clear error in the main process instead of hanging or making a broken Tensor.

    Example:
        >>> dataset = oar.io.TensorDataset([oar.randn([40, 3]), oar.arange(40)])
        >>> loader = oar.io.DataLoader(dataset, batch_size=16, shuffle=True)
        >>> [(x.shape, y.shape) for x, y in loader]
        [([16, 3], [16]), ([16, 3], [16]), ([8, 3], [8])]
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None, batch_size=1,
                 shuffle=False, drop_last=False, collate_fn=None, num_workers=0, use_buffer_reader=True,
                 reader_buffer_size=2, prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        if num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be >= 0, got {num_workers}")
        if timeout < 0:
            raise ValueError(f"DataLoader: timeout must be >= 0, got {timeout}")
        if reader_buffer_size < 1:
            raise ValueError(f"DataLoader: reader_buffer_size must be >= 1, got {reader_buffer_size}")
        self.dataset = dataset
        self._feed_names = None if feed_list is None or return_list else [getattr(v, "name", v) for v in feed_list]
        self.places = [place_for_loader(places)]
        self.use_buffer_reader, self.reader_buffer_size = bool(use_buffer_reader), int(reader_buffer_size)
        self.return_list, self.num_workers, self.timeout = return_list, int(num_workers), timeout
        self.worker_init_fn, self.persistent_workers = worker_init_fn, persistent_workers
        self.use_shared_memory, self.prefetch_factor = use_shared_memory, max(1, int(prefetch_factor))
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_sampler excludes batch_size, shuffle and drop_last")
            if self._iterable:
                raise ValueError("DataLoader: an IterableDataset takes no batch_sampler")
            self.batch_size, self.drop_last = getattr(batch_sampler, "batch_size", None), False
        elif batch_size is None:
            self.batch_size, self.drop_last = None, False
        else:
            if not isinstance(batch_size, int) or batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size must be a positive int or None, got {batch_size!r}")
            if self._iterable and shuffle:
                raise ValueError("DataLoader: an IterableDataset cannot be shuffled by the loader")
            self.batch_size, self.drop_last = batch_size, drop_last
            if not self._iterable:
                batch_sampler = BatchSampler(dataset=dataset, shuffle=shuffle, batch_size=batch_size,
                                             drop_last=drop_last)
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate_fn if self.batch_size is not None or batch_sampler is not None \
                else default_convert_fn
        self.collate_fn = collate_fn
        self._pool = None

    def _unbatched_map(self):
        return not self._iterable and self.batch_sampler is None

    def _base_seed(self):
        return rng().integers(0, 2 ** 31 - 1)

    def __len__(self):
        if self._iterable:
            raise TypeError("len() of a DataLoader over an IterableDataset is unknown")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __call__(self):
        return self.__iter__()

    def __iter__(self):
        batches = self._batches()
        return batches if self._feed_names is None else self._feeds(batches)

    def _feeds(self, batches):
        names = self._feed_names
        for batch in batches:
            fields = list(batch.values()) if isinstance(batch, dict) else list(batch)
            if len(fields) != len(names):
                raise ValueError(f"DataLoader: a batch has {len(fields)} fields but feed_list names {len(names)} "
                                 f"variables {names}")
            yield [dict(zip(names, fields))]

    def _batches(self):
        batches = self._host_batches()
        if self.places[0] == "cpu":
            return batches
        return DeviceFeed(batches, self.places[0], self.reader_buffer_size if self.use_buffer_reader else 0)

    def _host_batches(self):
        if self.num_workers == 0:
            return self._single()
        pool = self._pool
        if pool is None or pool.closed:
            pool = WorkerPool(self)
            if self.persistent_workers:
                self._pool = pool
        return StreamIter(self, pool) if self._iterable else MapIter(self, pool)

    def _single(self):
        collate = self.collate_fn
        if self._iterable:
            batch = []
            for sample in self.dataset:
                if self.batch_size is None:
                    yield to_tensors(to_arrays(collate(sample)))
                    continue
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield to_tensors(to_arrays(collate(batch)))
                    batch = []
            if batch and not self.drop_last:
                yield to_tensors(to_arrays(collate(batch)))
        elif self.batch_sampler is None:
            for i in range(len(self.dataset)):
                yield to_tensors(to_arrays(collate(self.dataset[i])))
        else:
            ds = self.dataset
            for idx in self.batch_sampler:
                yield to_tensors(to_arrays(collate([ds[i] for i in idx])))

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown()
