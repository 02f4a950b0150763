"""What each rank runs under the launcher or `spawn`: ``python -m oar.distributed._worker [--log_dir D]
(--script train.py args... | --spawn DIR)``.

It sends the rank's output to ``D/workerlog.<rank>``, starts MPI, runs the script (as ``__main__``) or the spawned
function, and turns any failure — an exception, or ``sys.exit`` with a non-zero code — into a report naming the
rank followed by MPI_Abort, which stops every other rank at once instead of leaving them waiting.
"""
import os
import pickle
import runpy
import sys
import traceback
import types

FAILED = "[oar.distributed] rank {rank} failed"  # the launcher looks for this line in the logs


def _redirect(log_dir, rank):
    os.makedirs(log_dir, exist_ok=True)
    fd = os.open(os.path.join(log_dir, f"workerlog.{rank}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)


def _run_spawned(spawn_dir, rank):
    with open(os.path.join(spawn_dir, "payload.pkl"), "rb") as f:
        payload = pickle.load(f)
    sys.path[:0] = [p for p in payload["sys_path"] if p not in sys.path]
    main_path = payload["main_path"]
    if main_path:  # a function of the parent's script: load the script as `__mp_main__`, as multiprocessing does
        mod = types.ModuleType("__mp_main__")
        mod.__dict__.update(runpy.run_path(main_path, run_name="__mp_main__"))
        sys.modules["__main__"] = sys.modules["__mp_main__"] = mod
    fn, args = pickle.loads(payload["call"])
    result = fn(*args)
    with open(os.path.join(spawn_dir, f"result.{rank}.pkl"), "wb") as f:
        pickle.dump(result, f)


def main(argv):
    log_dir = spawn_dir = None
    while argv and argv[0].startswith("--"):
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--log_dir":
            log_dir = value
        elif flag == "--spawn":
            spawn_dir = value
            break
        elif flag == "--script":
            argv = [value] + argv
            break
    from .env import ParallelEnv
    rank = ParallelEnv().rank
    if log_dir:
        _redirect(log_dir, rank)
    from .env import RUNTIME, init_parallel_env
    init_parallel_env()
    code = 0
    try:
        if spawn_dir is not None:
            _run_spawned(spawn_dir, rank)
        else:
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code:
            _report(rank, f"{FAILED.format(rank=rank)}: sys.exit({e.code!r})\n", spawn_dir)
    except BaseException as e:
        text = "".join(traceback.format_exception(type(e), e, _user_frames(e.__traceback__)))
        _report(rank, f"{FAILED.format(rank=rank)}: {type(e).__name__}: {e}\n{text}", spawn_dir)
        code = 1
    if code and RUNTIME.world is not None and RUNTIME.world.Get_size() > 1:
        RUNTIME.world.Abort(code)  # the other ranks stop now instead of waiting in a collective
    sys.exit(code)


def _user_frames(tb):
    """The traceback from the first frame that is not this wrapper's or runpy's (the user's code)."""
    while tb is not None and tb.tb_next is not None:
        name = tb.tb_frame.f_code.co_filename
        if name not in (__file__, runpy.__file__) and not name.startswith("<frozen"):
            break
        tb = tb.tb_next
    return tb


def _report(rank, text, spawn_dir):
    sys.stderr.write(text)
    sys.stderr.write("[oar.distributed] stopping every rank\n")
    sys.stderr.flush()
    sys.stdout.flush()
    if spawn_dir is not None:
        with open(os.path.join(spawn_dir, f"error.{rank}"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
