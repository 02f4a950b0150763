"""Device feeding for `DataLoader`: batches delivered on the loader's place (Paddle's `places=`, by default the
current device), the next ones copied to the device in a background thread while the current one is used
(Paddle's ``use_buffer_reader=True`` with ``reader_buffer_size`` batches ahead).

The main thread keeps driving the loader (its worker pool and Ctrl-C handling stay where they are); only the
host -> device copies run in the feeding thread, on fresh batch Tensors nobody else holds yet. On the CPU nothing
here runs: the loader yields its host batches as before.

Example:
    >>> place_for_loader(None)  # the current device
    'cpu'
"""
import collections
from concurrent.futures import ThreadPoolExecutor

from ..core.devices import place_array
from ..core.state import place_name
from ..eager.tensor import Tensor


def place_for_loader(places):
    """The one place ('cpu' or 'gpu:N') batches go to: `places` (a place, a name, or a list of one), or the current
    device when None, as Paddle resolves it when the loader is made. An eager loader feeds one device."""
    if isinstance(places, (list, tuple)):
        if len(places) != 1:
            raise ValueError(f"DataLoader: places={places!r}: an eager DataLoader feeds one device; give one place "
                             "(DataParallel runs one process per device)")
        places = places[0]
    return place_name(places)


def move_batch(batch, place):
    """Puts every Tensor of the nested `batch` on `place` (in place: the batch's Tensors are fresh); returns it."""
    if isinstance(batch, Tensor):
        batch._data = place_array(batch._data, place)
    elif isinstance(batch, dict):
        for v in batch.values():
            move_batch(v, place)
    elif type(batch) in (list, tuple):
        for v in batch:
            move_batch(v, place)
    return batch


class DeviceFeed:
    """Iterates over the batches of the iterator `batches` on `place`; with `buffer_size` > 0 up to that many of
    the next batches are already being copied there in a background thread. `pool` is the loader's worker pool
    (None without workers)."""

    def __init__(self, batches, place, buffer_size):
        self.pool = getattr(batches, "pool", None)
        self._batches = _feed(batches, place, buffer_size)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)


def _feed(batches, place, buffer_size):
    if buffer_size <= 0:
        for batch in batches:
            yield move_batch(batch, place)
        return
    pending = collections.deque()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="oar-device-feed") as copier:
        try:
            for batch in batches:
                pending.append(copier.submit(move_batch, batch, place))
                if len(pending) > buffer_size:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()
