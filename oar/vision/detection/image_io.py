"""read_file / decode_jpeg: image bytes into uint8 tensors (Paddle decodes JPEG with nvJPEG on a GPU; here Pillow
decodes on the CPU, installed with ``pip install pillow``)."""
import io

import numpy as np


def read_file(filename, name=None):
    """The bytes of a file as a 1-D uint8 tensor.

    Example:
        >>> with open('bytes.bin', 'wb') as f:
        ...     _ = f.write(bytes([1, 2, 255]))
        >>> oar.vision.ops.read_file('bytes.bin').numpy().tolist()
        [1, 2, 255]
    """
    from ...eager.tensor import to_tensor
    with open(filename, "rb") as f:
        return to_tensor(np.frombuffer(f.read(), np.uint8).copy())


def decode_jpeg(x, mode="unchanged", name=None):
    """Decodes JPEG bytes (a 1-D uint8 tensor, e.g. from `read_file`) into a [C, H, W] uint8 tensor; `mode` is
    'unchanged', 'gray' or 'rgb'.

    Example:
        >>> from PIL import Image
        >>> Image.new('RGB', (4, 2), (200, 10, 10)).save('red.jpg')
        >>> img = oar.vision.ops.decode_jpeg(oar.vision.ops.read_file('red.jpg'))
        >>> img.shape, img.dtype == oar.uint8
        ([3, 2, 4], True)
    """
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("decode_jpeg needs Pillow: pip install pillow") from None
    from ...eager.tensor import to_tensor
    if mode not in ("unchanged", "gray", "rgb"):
        raise ValueError(f"decode_jpeg: mode must be 'unchanged', 'gray' or 'rgb', got {mode!r}")
    img = Image.open(io.BytesIO(np.asarray(x.numpy(), np.uint8).tobytes()))
    if mode != "unchanged":
        img = img.convert("L" if mode == "gray" else "RGB")
    a = np.asarray(img)
    return to_tensor(np.ascontiguousarray(a[None] if a.ndim == 2 else a.transpose(2, 0, 1)))
