"""Where the legacy datasets look for their files."""
import os

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def data_file(module_name, filename, url):
    """The path of ``DATA_HOME/module_name/filename``; raises FileNotFoundError naming it when it is absent,
    since oar does not download (``url`` is where the file can be fetched by hand).

    Example:
        >>> import oar.dataset.common as common
        >>> common.data_file("no-such-set", "labels.gz", "https://...")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        FileNotFoundError: ...oar does not download data...
    """
    path = os.path.join(DATA_HOME, module_name, filename)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"paddle.dataset.{module_name}: {path} does not exist and oar does not download data; "
                                f"fetch it from {url} into {os.path.dirname(path)} (or set "
                                f"oar.dataset.common.DATA_HOME to the folder holding '{module_name}/')")
    return path
