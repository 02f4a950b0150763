"""`paddle.utils.download`: `get_path_from_url` (`oar.dataset.download`) and `get_weights_path_from_url`, which
fetch a file on request into Paddle's cache folders (nothing is downloaded unless called and absent)."""
import os

from ..dataset.download import get_path_from_url

WEIGHTS_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hapi", "weights"))

__all__ = ["get_weights_path_from_url", "get_path_from_url", "WEIGHTS_HOME", "is_url"]


def is_url(path):
    """True when `path` starts with ``http://`` or ``https://``.

    Example:
        >>> from oar.utils.download import is_url
        >>> is_url('https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams'), is_url('resnet18.pdparams')
        (True, False)
    """
    return path.startswith(("http://", "https://"))


def get_weights_path_from_url(url, md5sum=None):
    """The local path of a weights file under `WEIGHTS_HOME` (``~/.cache/paddle/hapi/weights``), downloading it
    when absent or when its MD5 differs from `md5sum`.

    Example:
        >>> import os
        >>> from oar.utils import download
        >>> os.makedirs('w', exist_ok=True)
        >>> _ = open('w/net.pdparams', 'wb').write(b'x')
        >>> download.WEIGHTS_HOME, saved = 'w', download.WEIGHTS_HOME
        >>> download.get_weights_path_from_url('https://example.com/net.pdparams')   # present: no download
        'w/net.pdparams'
        >>> download.WEIGHTS_HOME = saved
    """
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)
