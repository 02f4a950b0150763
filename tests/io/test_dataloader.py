"""DataLoader in the main process and with real worker processes: batching, order, errors, dead workers."""
import os
import signal

import numpy as np
import pytest

import oar
from oar.io import (BatchSampler, DataLoader, Dataset, DistributedBatchSampler, IterableDataset, RandomSampler,
                    SequenceSampler, Subset, TensorDataset, get_worker_info, random_split)


class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __getitem__(self, i):
        return np.full([2], i, np.float32), np.int64(i * i)

    def __len__(self):
        return self.n


class Dicts(Squares):
    def __getitem__(self, i):
        return {"x": np.full([3], i, np.float32), "meta": (i, float(i) / 2)}


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        lo, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(lo, self.n, step):
            yield np.array([i], np.int64)


class Failing(Squares):
    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"no sample {i} here")
        return super().__getitem__(i)


class Dying(Squares):
    def __getitem__(self, i):
        if i == 4:
            os._exit(3)
        return super().__getitem__(i)


class Killed(Squares):
    def __getitem__(self, i):
        if i == 4:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__getitem__(i)


@pytest.mark.parametrize("workers", [0, 2])
def test_batches_in_order(workers):
    loader = DataLoader(Squares(10), batch_size=4, num_workers=workers)
    assert len(loader) == 3
    batches = list(loader)
    assert [b[0].shape for b in batches] == [[4, 2], [4, 2], [2, 2]]
    assert isinstance(batches[0][0], oar.Tensor) and batches[0][1].dtype == oar.int64
    np.testing.assert_array_equal(np.concatenate([b[1].numpy() for b in batches]), np.arange(10) ** 2)
    again = list(loader())   # Paddle's `for b in loader()`
    np.testing.assert_array_equal(again[2][0].numpy(), [[8, 8], [9, 9]])


@pytest.mark.parametrize("workers", [0, 2])
def test_drop_last_shuffle_and_nested(workers):
    oar.seed(1)
    loader = DataLoader(Dicts(10), batch_size=3, shuffle=True, drop_last=True, num_workers=workers)
    batches = list(loader)
    assert len(batches) == 3
    seen = np.concatenate([b["x"].numpy()[:, 0] for b in batches])
    assert len(set(seen.tolist())) == 9 and seen.tolist() != sorted(seen.tolist())
    b = batches[0]
    assert isinstance(b["meta"], list) and b["meta"][0].dtype == oar.int64 and b["meta"][1].dtype == oar.float64


@pytest.mark.parametrize("workers", [0, 2])
def test_iterable_dataset(workers):
    loader = DataLoader(Stream(7), batch_size=2, num_workers=workers)
    got = sorted(np.concatenate([b.numpy().ravel() for b in loader]).tolist())
    assert got == list(range(7))


def test_collate_fn_and_unbatched():
    loader = DataLoader(Squares(4), batch_size=2, collate_fn=lambda s: np.stack([x for x, _ in s]).sum())
    assert [float(b) for b in loader] == [2.0, 10.0]
    un = list(DataLoader(Squares(3), batch_size=None))
    assert un[2][0].shape == [2] and int(un[2][1]) == 4


def test_batch_sampler_and_tensor_dataset():
    ds = TensorDataset([oar.to_tensor(np.arange(12.0).reshape(6, 2)), oar.to_tensor(np.arange(6))])
    bs = BatchSampler(sampler=SequenceSampler(ds), batch_size=4)
    batches = list(DataLoader(ds, batch_sampler=bs))
    assert batches[0][0].shape == [4, 2] and batches[1][1].numpy().tolist() == [4, 5]
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(ds, batch_sampler=bs, batch_size=3)


def test_worker_exception_carries_worker_traceback():
    loader = DataLoader(Failing(10), batch_size=2, num_workers=2)
    with pytest.raises(KeyError) as info:
        list(loader)
    text = str(info.value)
    assert "no sample 5 here" in text and "Worker traceback" in text and "__getitem__" in text


@pytest.mark.parametrize("cls,why", [(Dying, "exit code 3"), (Killed, "signal 9")])
def test_dead_worker_raises_instead_of_hanging(cls, why):
    loader = DataLoader(cls(10), batch_size=2, num_workers=2)
    with pytest.raises(RuntimeError, match="exited unexpectedly") as info:
        list(loader)
    assert why in str(info.value)


def test_worker_init_fn_and_persistent_workers():
    class Pid(Squares):
        def __getitem__(self, i):
            return np.int64(os.getpid())
    loader = DataLoader(Pid(8), batch_size=2, num_workers=2, persistent_workers=True)
    a = {int(v) for b in loader for v in b.numpy()}
    b = {int(v) for b in loader for v in b.numpy()}
    assert a == b and len(a) == 2 and os.getpid() not in a
    with pytest.raises(ZeroDivisionError, match="Worker traceback"):
        list(DataLoader(Squares(4), batch_size=2, num_workers=1, worker_init_fn=lambda w: 1 / 0))


def test_samplers():
    oar.seed(0)
    assert sorted(RandomSampler(range(6))) == list(range(6))
    assert len(list(RandomSampler(range(6), replacement=True, num_samples=9))) == 9
    ds = list(range(10))
    shards = [list(DistributedBatchSampler(ds, batch_size=2, num_replicas=2, rank=r)) for r in range(2)]
    flat = [i for s in shards for b in s for i in b]
    assert sorted(flat) == list(range(10)) and len(shards[0]) == 3
    assert shards[0][0] == [0, 1] and shards[1][0] == [2, 3]
    one = DistributedBatchSampler(ds, batch_size=3, shuffle=True)
    one.set_epoch(5)
    e5 = [i for b in one for i in b]
    assert sorted(e5) == ds


def test_subset_random_split():
    ds = Squares(10)
    a, b = random_split(ds, [7, 3])
    assert len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    c, d = random_split(ds, [0.5, 0.5])
    assert len(c) == len(d) == 5
    assert int(Subset(ds, [3, 1])[1][1]) == 1
    with pytest.raises(ValueError, match="sum"):
        random_split(ds, [4, 4])


class Slow(Squares):
    def __getitem__(self, i):
        import time
        time.sleep(5)
        return super().__getitem__(i)


class FailingStream(IterableDataset):
    def __iter__(self):
        yield np.array([0], np.int64)
        raise ValueError("stream broke at item 1")


class DyingStream(IterableDataset):
    def __iter__(self):
        yield np.array([0], np.int64)
        os._exit(7)


def test_timeout_raises_clearly():
    loader = DataLoader(Slow(4), batch_size=2, num_workers=1, timeout=0.3)
    with pytest.raises(RuntimeError, match="timed out"):
        next(iter(loader))


def test_iterable_worker_error_and_death():
    with pytest.raises(ValueError, match="stream broke") as info:
        list(DataLoader(FailingStream(), batch_size=1, num_workers=2))
    assert "Worker traceback" in str(info.value)
    with pytest.raises(RuntimeError, match="exit code 7"):
        list(DataLoader(DyingStream(), batch_size=1, num_workers=1))


@pytest.mark.parametrize("persistent", [False, True])
def test_breaking_out_early_then_iterating_again(persistent):
    loader = DataLoader(Squares(10), batch_size=2, num_workers=2, persistent_workers=persistent)
    for b in loader():
        break
    full = [b[1].numpy().tolist() for b in loader()]
    assert sum(full, []) == [i * i for i in range(10)]
