"""Files written and read safely: saves of a set of files that a crash leaves old or new, whole (`write_files`),
the reader's view of such a set (`committed_path`, `committed_listing`), reads that refuse special files
(`regular_file`) and bound what parsing JSON may cost (`parse_cost`). Used by `oar.save`/`oar.load` and
`oar.jit.save`/`oar.jit.load`.

Each new file is written in full to a temporary file beside it (``.<name>.<pid>.tmp``), flushed and fsynced.
A save of one file then moves it into place with `os.replace` (atomic). A save of several files first writes a
commit record ``.oar-commit.<pid>.json`` in their folder (atomically: written, fsynced, renamed) listing each
temporary file, its target and the files to delete; that rename is the commit point. Only then are the files
renamed one by one, and the record deleted last. A process killed before the commit point leaves the old files
intact; killed after it, the record says which temporary files hold the new version: readers read through it
(`committed_path`) and the next save to the folder finishes the renames (roll forward). Either way a reader sees
the old set or the new set, whole (docs/format.md, "Writes"). A failure that is not a crash (an exception, a full
disk, Ctrl-C) removes the temporary files before the commit point; after it the record stays and is honoured
as after a crash. A process
killed mid-save cannot clean up, so every save first removes the temporary files of its targets that a process
no longer running left behind.
"""
import glob
import json
import os
import stat

_TMP_SUFFIX = ".tmp"
COMMIT_FORMAT, COMMIT_VERSION = "oar.commit", 1
_COMMIT_GLOB = ".oar-commit.*.json"
_ACTIVE = set()  # commit records of saves running in this process (never rolled forward by another save)


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
    """Replaces a set of files all together: after any crash a reader sees the old set or the new one, whole.

    Every new file is first written in full to a temporary file; a single file is then renamed into place
    (`os.replace` is atomic); several files (or a save that deletes files) go through a commit record (see the
    module docstring), so a crash between the renames is finished by readers and the next save.

    Args:
        files: path -> bytes; with several files, they must share one folder.
        remove: paths deleted as part of the new set (stale files of an earlier save).
        fsync: flush each file (and the folders) to the disk before renaming; False is faster but a power loss
            right after the save may lose it.

    Example:
        >>> write_files({'m/net.pdmodel': b'...', 'm/net.pdiparams': b'...'})
    """
    folders = {os.path.dirname(os.path.abspath(p)) for p in list(files) + list(remove)}
    journal = len(files) + len(remove) > 1
    if journal and len(folders) != 1:
        raise ValueError(f"write_files: the files of one save must share a folder, got {sorted(folders)}")
    for d in folders:
        os.makedirs(d, exist_ok=True)
        roll_forward(d)
    for path in files:
        remove_stale_temps(path)
    staged = []
    try:
        for path, data in files.items():
            staged.append((_write_temp(path, data, fsync), path))
    except BaseException:
        for tmp, _ in staged:
            _discard(tmp)
        raise
    if not journal:
        try:
            os.replace(staged[0][0], staged[0][1])
        except BaseException:
            _discard(staged[0][0])
            raise
    else:
        _commit(folders.pop(), staged, remove, fsync)
    if fsync:
        for d in {os.path.dirname(os.path.abspath(p)) for p in files}:
            _fsync_dir(d)


def _commit(folder, staged, remove, fsync):
    record = os.path.join(folder, f".oar-commit.{os.getpid()}.json")
    doc = {"format": COMMIT_FORMAT, "version": COMMIT_VERSION, "pid": os.getpid(),
           "files": [[os.path.basename(t), os.path.basename(p)] for t, p in staged],
           "remove": [os.path.basename(p) for p in remove]}
    try:
        tmp = _write_temp(record, json.dumps(doc).encode(), fsync)
        os.replace(tmp, record)  # the commit point
    except BaseException:
        for t, _ in staged:
            _discard(t)
        _discard(record)
        raise
    if fsync:
        _fsync_dir(folder)
    _ACTIVE.add(record)
    try:
        _apply(folder, doc)
        os.remove(record)
    finally:  # interrupted (Ctrl-C): the record stays; readers read through it, the next save finishes it
        _ACTIVE.discard(record)


def _apply(folder, doc):
    for tmp, target in doc["files"]:
        try:
            os.replace(os.path.join(folder, tmp), os.path.join(folder, target))
        except FileNotFoundError:  # renamed already (a roll forward interrupted in its turn)
            pass
    for name in doc["remove"]:
        try:
            os.remove(os.path.join(folder, name))
        except FileNotFoundError:
            pass


def _read_commit(record):
    """The validated commit record at `record` (a dict), or ValueError naming it."""
    bad = (f"{record}: not a valid oar commit record (left by an interrupted save); delete it to load the files "
           "as they are")
    try:
        if os.path.getsize(record) > 1 << 20:
            raise ValueError(bad)
        with open(record, "rb") as f:
            doc = json.loads(f.read())
    except (OSError, ValueError, RecursionError):
        raise ValueError(bad) from None

    def plain(n):
        return isinstance(n, str) and n not in ("", ".", "..") and "/" not in n and os.sep not in n
    ok = (isinstance(doc, dict) and doc.get("format") == COMMIT_FORMAT and doc.get("version") == COMMIT_VERSION
          and isinstance(doc.get("files"), list) and isinstance(doc.get("remove"), list)
          and all(isinstance(e, list) and len(e) == 2 and plain(e[0]) and plain(e[1])
                  and e[0].startswith(f".{e[1]}.") and e[0].endswith(_TMP_SUFFIX) for e in doc["files"])
          and all(plain(n) for n in doc["remove"]))
    if not ok:
        raise ValueError(bad)
    return doc


def _records(folder):
    return sorted(glob.glob(os.path.join(glob.escape(folder), _COMMIT_GLOB)))


def roll_forward(folder):
    """Finishes the saves into `folder` that were killed after their commit point (their process no longer runs):
    renames their temporary files into place, deletes what they deleted, removes their records; returns how many.

    Example:
        >>> from oar.core.safe_files import roll_forward
        >>> roll_forward('model')
        0
    """
    done = 0
    for tmp in glob.glob(os.path.join(glob.escape(folder), "." + _COMMIT_GLOB + "*" + _TMP_SUFFIX)):
        remove_stale_temps(os.path.join(folder, os.path.basename(tmp)[1:].rsplit(".", 2)[0]))  # torn records
    for record in _records(folder):
        pid = os.path.basename(record)[len(".oar-commit."):-len(".json")]
        if record in _ACTIVE or not pid.isdigit() or (int(pid) != os.getpid() and _pid_alive(int(pid))):
            continue
        _apply(folder, _read_commit(record))
        os.remove(record)
        done += 1
    return done


def committed_listing(folder):
    """{absolute target path: the file holding its committed content, or None when the committed set deletes
    it} for the saves into `folder` past their commit point whose renames are not finished (usually empty)."""
    view = {}
    for record in _records(os.path.abspath(folder)):
        try:
            doc = _read_commit(record)
        except ValueError:
            if not os.path.exists(record):  # finished meanwhile
                continue
            raise
        d = os.path.dirname(record)
        for tmp, target in doc["files"]:
            if os.path.exists(os.path.join(d, tmp)):
                view[os.path.join(d, target)] = os.path.join(d, tmp)
        for name in doc["remove"]:
            view[os.path.join(d, name)] = None
    return view


def committed_path(path):
    """The file to read for `path`: itself, or the temporary file of a save killed after its commit point that
    holds its new content; None when that save deletes `path`.

    Example:
        >>> from oar.core.safe_files import committed_path
        >>> committed_path('model/net.pdmodel')
        'model/net.pdmodel'
    """
    return committed_listing(os.path.dirname(os.path.abspath(path))).get(os.path.abspath(path), path)


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
