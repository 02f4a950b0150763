"""Fetching a data file on request: resumable download into Paddle's cache folder, with a progress bar and an MD5
check. Nothing in oar calls it unless the user passes ``download=True`` and the file is not there yet."""
import hashlib
import os
import sys
import urllib.request

from . import common


def md5file(path):
    """The hex MD5 of a file.

    Example:
        >>> from oar.dataset.download import md5file
        >>> _ = open("x.bin", "wb").write(b"abc")
        >>> md5file("x.bin")
        '900150983cd24fb0d6963f7d28e17f72'
    """
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _progress(done, total):
    if total:
        n = int(30 * done / total)
        sys.stdout.write(f"\r[{'=' * n}{'.' * (30 - n)}] {done / 2 ** 20:.1f}/{total / 2 ** 20:.1f} MB")
    else:
        sys.stdout.write(f"\r{done / 2 ** 20:.1f} MB")
    sys.stdout.flush()


def get_path_from_url(url, root_dir=None, md5sum=None, check_exist=True, verbose=True):
    """The local path of `url`'s file under `root_dir` (default ``DATA_HOME``), downloading it first when absent
    or when its MD5 differs from `md5sum`. An interrupted download resumes from its ``.part`` file (HTTP Range).

    Example:
        >>> from oar.dataset.download import get_path_from_url
        >>> _ = open("here.txt", "w").write("hi")
        >>> get_path_from_url("https://example.com/here.txt", root_dir=".")   # present: no download
        './here.txt'
    """
    root_dir = common.DATA_HOME if root_dir is None else root_dir
    path = os.path.join(root_dir, url.split("/")[-1].split("?")[0])
    if check_exist and os.path.isfile(path) and (md5sum is None or md5file(path) == md5sum):
        return path
    os.makedirs(root_dir, exist_ok=True)
    part = path + ".part"
    have = os.path.getsize(part) if os.path.exists(part) else 0
    req = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    if verbose:
        print(f"Downloading {url} -> {path}")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            resumed = have and r.status == 206
            total = int(r.headers.get("Content-Length") or 0) + (have if resumed else 0)
            done = have if resumed else 0
            with open(part, "ab" if resumed else "wb") as f:
                for chunk in iter(lambda: r.read(1 << 16), b""):
                    f.write(chunk)
                    done += len(chunk)
                    if verbose:
                        _progress(done, total)
    except OSError as e:
        kept = os.path.getsize(part) if os.path.exists(part) else 0
        if os.path.exists(part) and not kept:
            os.remove(part)   # opened but nothing received: no partial file to resume
        where = (f"the partial file {part} ({kept} bytes) is kept and the next try resumes it" if kept else
                 "nothing was received, so no partial file was written")
        raise RuntimeError(f"download of {url} failed ({e}); {where}. Or fetch the file by hand and put it at "
                           f"{path}") from None
    if verbose:
        sys.stdout.write("\n")
    got = md5file(part) if md5sum is not None else None
    if got != md5sum:
        os.remove(part)
        raise RuntimeError(f"download of {url}: MD5 {got} differs from the expected {md5sum}; the file was "
                           "removed, try again")
    os.replace(part, path)
    return path


def resolve_data_file(who, path, folder, url, md5=None, download=True):
    """The file a data set reads: `path` when given, else ``DATA_HOME/folder/<url's file name>`` (DATA_HOME read
    at call time, so it can be pointed elsewhere), downloaded first
    when absent and `download` is set; a missing file raises FileNotFoundError saying how to get it.

    Example:
        >>> from oar.dataset.download import resolve_data_file
        >>> resolve_data_file("Demo", None, "demo", "https://example.com/d.tgz", download=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        FileNotFoundError: Demo: '.../demo/d.tgz' does not exist; pass its path or download=True ...
    """
    if path is None:
        path = os.path.join(common.DATA_HOME, folder, url.split("/")[-1])
        if not os.path.isfile(path) and download:
            path = get_path_from_url(url, os.path.dirname(path), md5)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{who}: {path!r} does not exist; pass its path or download=True (source: {url})")
    return path


WEIGHTS_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hapi", "weights"))  # Paddle's cache


def get_weights_path_from_url(url, md5sum=None):
    """The local path of a weights file (Paddle's ``paddle.utils.download.get_weights_path_from_url``): the copy
    in ``WEIGHTS_HOME`` when present and its MD5 matches, else downloaded there first (with a progress bar).

    Example:
        >>> import oar.dataset.download as download
        >>> download.WEIGHTS_HOME = "."
        >>> _ = open("w.pdparams", "wb").write(b"...")
        >>> download.get_weights_path_from_url("https://example.com/w.pdparams")   # present: no download
        './w.pdparams'
    """
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)

