"""Where a text dataset's file is: the given path, Paddle's cache, or a download on request."""
import os


def resolve(who, data_file, folder, url, md5, download):
    if data_file is None:
        from ...dataset.common import DATA_HOME
        data_file = os.path.join(DATA_HOME, folder, url.split("/")[-1])
        if not os.path.isfile(data_file) and download:
            from ...dataset.download import get_path_from_url
            data_file = get_path_from_url(url, os.path.dirname(data_file), md5)
    if not os.path.isfile(data_file):
        raise FileNotFoundError(f"{who}: {data_file!r} does not exist; pass data_file= or download=True "
                                f"(source: {url})")
    return data_file


def check_mode(who, mode, modes=("train", "test")):
    mode = mode.lower()
    if mode not in modes:
        raise ValueError(f"{who}: mode must be one of {modes}, got {mode!r}")
    return mode
