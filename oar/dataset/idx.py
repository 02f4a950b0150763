"""The IDX file format of MNIST-style data sets (a magic number, the dimensions, then uint8 values)."""
import gzip
import struct

import numpy as np

IMAGES_MAGIC, LABELS_MAGIC = 2051, 2049


def read_idx(path, magic):
    """Reads an IDX file (uint8 payload) and returns its array; checks the magic number and the size.

    Example:
        >>> import os
        >>> from oar.vision.datasets.mnist import EMBEDDED_DIR
        >>> from oar.dataset.idx import read_idx
        >>> read_idx(os.path.join(EMBEDDED_DIR, "t10k-images-idx3-ubyte.gz"), 2051).shape   # uint8 [N, 28, 28]
        (10000, 28, 28)
    """
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{path}: cannot read this IDX file ({e})") from None
    if len(data) < 8:
        raise ValueError(f"{path}: too short to be an IDX file")
    got = struct.unpack(">I", data[:4])[0]
    if got != magic:
        raise ValueError(f"{path}: IDX magic number is {got}, expected {magic} "
                         f"({'images' if magic == IMAGES_MAGIC else 'labels'} file)")
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    body = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise ValueError(f"{path}: header says {dims} ({int(np.prod(dims))} bytes) but the file holds {body.size}; "
                         "it is truncated or damaged")
    return body.reshape(dims)
