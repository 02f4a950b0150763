"""`oar.batch`: Paddle 2.x's reader decorator that groups a sample reader's items into lists."""


def batch(reader, batch_size, drop_last=False):
    """Wraps a reader creator (a function returning an iterable of samples) into one yielding lists of
    ``batch_size`` samples; the last short list is dropped when ``drop_last`` is True.

    Paddle keeps this for old ``paddle.dataset`` readers; `oar.io.DataLoader` is the recommended loader.

    Args:
        reader (callable): called with no arguments, returns an iterable of samples.
        batch_size (int): samples per batch, a positive int.
        drop_last (bool): drop a final batch shorter than ``batch_size``. Default False.

    Returns:
        callable: the batched reader creator.

    Example:
        >>> def reader():
        ...     for i in range(5):
        ...         yield i
        >>> list(paddle.batch(reader, batch_size=2)())
        [[0, 1], [2, 3], [4]]
        >>> list(paddle.batch(reader, batch_size=2, drop_last=True)())
        [[0, 1], [2, 3]]
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
    if not callable(reader):
        raise TypeError(f"batch: reader must be a function returning samples (a reader creator), "
                        f"got {type(reader).__name__}; pass the function itself, e.g. paddle.batch(train, 64) "
                        f"rather than paddle.batch(train(), 64) when train() is a generator")

    def batch_reader():
        b = []
        for instance in reader():
            b.append(instance)
            if len(b) == batch_size:
                yield b
                b = []
        if b and not drop_last:
            yield b

    return batch_reader
