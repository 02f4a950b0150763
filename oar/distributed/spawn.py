"""`spawn(fn, nprocs=N)`: runs ``fn(*args)`` on N ranks started by ``mpiexec`` and waits for them."""
import os
import pickle
import shutil
import sys
import tempfile

from .env import DistributedError


class SpawnContext:
    """The outcome of `spawn`: ``return_values[rank]`` is what ``fn`` returned on that rank."""

    def __init__(self, return_values):
        self.return_values = return_values

    def join(self, timeout=None):
        return True


def _main_path():
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return os.path.abspath(path) if path and not getattr(main, "__spec__", None) else None


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Runs ``func(*args)`` in `nprocs` new processes, the ranks 0..nprocs-1 of one MPI job, and waits for them.

    `func` must be importable by name (defined at the top level of a module, or of the running script whose
    main code sits under ``if __name__ == "__main__":``, as with multiprocessing). Output goes to the console, each
    line prefixed with its rank. When a rank fails every rank is stopped and `spawn` raises `DistributedError`
    with that rank's traceback.

    Args:
        func: the function each rank runs (call `init_parallel_env` in it, as in Paddle).
        args (tuple): its arguments (picklable).
        nprocs (int): number of ranks; -1 means the number of CPUs.
        options: ``timeout`` (seconds a collective waits for the others), ``ips`` / ``hostfile`` (other hosts).

    Returns:
        A `SpawnContext` holding each rank's return value.

    Example:
        >>> # def train(lr): ...  (top level of a module)
        >>> # oar.distributed.spawn(train, args=(0.1,), nprocs=2).return_values  ->  [result_rank0, result_rank1]
    """
    from .launch import mpiexec_command, run_mpiexec
    if not join:
        raise NotImplementedError("spawn(join=False) is not supported by oar: spawn always waits for the ranks")
    nprocs = os.cpu_count() if nprocs in (-1, None) else int(nprocs)
    if nprocs < 1:
        raise ValueError(f"spawn: nprocs must be at least 1, got {nprocs}")
    unknown = set(options) - {"timeout", "ips", "hostfile"}
    if unknown:
        raise TypeError(f"spawn: unknown options {sorted(unknown)} (oar accepts timeout, ips, hostfile)")
    try:
        call = pickle.dumps((func, tuple(args)))
    except Exception as e:
        raise TypeError(f"spawn: the function and its args must be picklable (a top-level function of a module): "
                        f"{e}") from None
    work = tempfile.mkdtemp(prefix="oar_spawn_")
    try:
        with open(os.path.join(work, "payload.pkl"), "wb") as f:
            pickle.dump({"call": call, "sys_path": list(sys.path), "main_path": _main_path()}, f)
        cmd = mpiexec_command(nprocs, ["--spawn", work], options.get("ips"), options.get("hostfile"),
                              options.get("timeout"), prepend_rank=True)
        rc = run_mpiexec(cmd)
        errors = sorted(n for n in os.listdir(work) if n.startswith("error."))
        if rc != 0 or errors:
            detail = ""
            for n in errors:
                with open(os.path.join(work, n)) as f:
                    detail += f.read()
            raise DistributedError(f"spawn: a rank failed (mpiexec exit code {rc}); every rank was stopped.\n"
                                   + (detail or "No rank reported an error: one was killed or exited abnormally."))
        values = []
        for r in range(nprocs):
            with open(os.path.join(work, f"result.{r}.pkl"), "rb") as f:
                values.append(pickle.load(f))
        return SpawnContext(values)
    finally:
        shutil.rmtree(work, ignore_errors=True)
