"""Files written and read safely: atomic saves (`write_files`), reads that refuse special files
(`regular_file`) and bound what parsing JSON may cost (`parse_cost`). Used by `oar.save`/`oar.load` and
`oar.jit.save`/`oar.jit.load`.

Saves replace a set of files atomically.
Each new file is written in full to a temporary file beside it (``.<name>.<pid>.tmp``), flushed and fsynced, and
only then moved into place with `os.replace`; the folder is fsynced after the renames so they survive a power
loss. A failure (an exception, a full disk, Ctrl-C) removes the temporary files and leaves the previous files
intact. A process killed mid-save cannot clean up, so every save first removes the temporary files of its targets
that a process no longer running left behind.
"""
import glob
import os
import stat

_TMP_SUFFIX = ".tmp"


def _tmp_name(path):
    d, base = os.path.split(os.path.abspath(path))
    return os.path.join(d, f".{base}.{os.getpid()}{_TMP_SUFFIX}")


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: leave its file alone
    return True


def remove_stale_temps(path):
    """Removes ``.<name>.<pid>.tmp`` files beside `path` left by processes that no longer run; returns how many.

    Example:
        >>> remove_stale_temps('model/net.pdmodel')
        0
    """
    d, base = os.path.split(os.path.abspath(path))
    removed = 0
    for f in glob.glob(os.path.join(glob.escape(d), f".{glob.escape(base)}.*{_TMP_SUFFIX}")):
        pid = os.path.basename(f)[len(base) + 2:-len(_TMP_SUFFIX)]
        if not pid.isdigit() or int(pid) == os.getpid() or _pid_alive(int(pid)):
            continue
        try:
            os.remove(f)
            removed += 1
        except OSError:
            pass
    return removed


def _write_temp(path, data, fsync):
    tmp = _tmp_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
    except BaseException:
        _discard(tmp)
        raise
    return tmp


def _discard(tmp):
    try:
        os.remove(tmp)
    except OSError:
        pass


def _fsync_dir(d):
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:  # a platform without directory handles (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_files(files, remove=(), fsync=True):
    """Replaces a set of files all together: every new file is first written in full to a temporary file, and
    only then are they moved into place (`os.replace`, atomic per file) and the `remove` paths deleted.

    A failure while writing leaves every previous file intact; only a crash during the final renames, which take
    microseconds, could leave a mix.

    Args:
        files: path -> bytes.
        remove: paths deleted after the renames (stale files of an earlier save).
        fsync: flush each file (and the folders) to the disk before renaming; False is faster but a power loss
            right after the save may lose it.

    Example:
        >>> write_files({'m/net.pdmodel': b'...', 'm/net.pdiparams': b'...'})
    """
    staged = []
    try:
        for path in files:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            remove_stale_temps(path)
        for path, data in files.items():
            staged.append((_write_temp(path, data, fsync), path))
        for i, (tmp, path) in enumerate(staged):
            os.replace(tmp, path)
            staged[i] = (None, path)
    except BaseException:
        for tmp, _ in staged:
            if tmp is not None:
                _discard(tmp)
        raise
    for path in remove:
        if os.path.exists(path):
            os.remove(path)
    if fsync:
        for d in {os.path.dirname(os.path.abspath(p)) for p in files}:
            _fsync_dir(d)


# ---- reading -------------------------------------------------------------------------------------------------
def regular_file(path, what):
    """Checks that `path` is a regular file (a FIFO, device or folder would block or mislead a reader); returns
    its size. Raises ValueError naming the file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: {what} file not found") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot read the {what} file ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: the {what} file is not a regular file (a folder, pipe or device)")
    return st.st_size


def parse_cost(raw):
    """An upper bound of the memory (bytes) `json.loads(raw)` takes, from a few byte counts (no parsing): every
    bracket may open a container, every comma add a slot holding a new number, every colon a dict entry, every
    quote pair a string object; the decoded text takes up to 4 bytes per character. Measured worst cases (lists
    of empty lists, of floats, of short strings, wide dicts, non-ASCII text) stay under it.

    Example:
        >>> parse_cost(b'[[],[],[]]') > 10 * len(b'[[],[],[]]')
        True
    """
    containers = raw.count(b"[") + raw.count(b"{")
    text = len(raw) if raw.isascii() else 4 * len(raw)
    return (len(raw) + text + 72 * containers + 40 * raw.count(b",") + 112 * raw.count(b":")
            + 64 * (raw.count(b'"') // 2))
