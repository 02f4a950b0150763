"""``python -m oar.distributed.launch --nproc_per_node N [--ips host1,host2] train.py [args]``: Paddle's launcher
form, run through MPI's ``mpiexec``.

Each rank runs ``train.py`` with its output in ``<log_dir>/workerlog.<rank>``; rank 0's log is also shown on the
console. When a rank fails, every rank stops (see `oar.distributed._worker`) and the launcher prints which rank
failed with the end of its log, then exits with a non-zero code.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from ._worker import FAILED


def find_mpiexec():
    """``$OAR_MPIEXEC``, else the mpiexec installed beside this Python (the `mpich` wheel), else the one on PATH."""
    env = os.environ.get("OAR_MPIEXEC")
    if env:
        return env
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError("mpiexec not found: pip install 'oar-dl[distributed]' (installs MPICH's mpiexec), "
                                "install an MPI, or set $OAR_MPIEXEC")
    return found


def mpiexec_command(nprocs, worker_args, ips=None, hostfile=None, timeout=None, prepend_rank=False):
    """The mpiexec command line starting `nprocs` ranks per host of `ips` (default: this machine) on the worker."""
    cmd = [find_mpiexec()]
    hosts = [h for h in (ips or "").split(",") if h]
    if hostfile:
        cmd += ["-f", hostfile, "-n", str(nprocs)]
    elif len(hosts) > 1 or (hosts and hosts[0] not in ("127.0.0.1", "localhost")):
        cmd += ["-hosts", ",".join(hosts), "-ppn", str(nprocs), "-n", str(nprocs * len(hosts))]
    else:
        cmd += ["-n", str(nprocs)]
    if timeout is not None:
        cmd += ["-genv", "OAR_DISTRIBUTED_TIMEOUT", str(timeout)]
    if prepend_rank:
        cmd += ["-prepend-rank"]
    return cmd + [sys.executable, "-m", "oar.distributed._worker"] + list(worker_args)


def run_mpiexec(cmd, follow=None, out=None):
    """Runs `cmd`, copying new text of the file `follow` to `out` while it runs; returns the exit code."""
    proc = subprocess.Popen(cmd, start_new_session=True)
    pos = 0
    try:
        while True:
            done = proc.poll() is not None
            if follow is not None and os.path.exists(follow):
                with open(follow, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
                pos += len(chunk)
                if chunk:
                    out.write(chunk.decode(errors="replace"))
                    out.flush()
            if done:
                return proc.returncode
            time.sleep(0.05)
    except BaseException:  # Ctrl-C or a kill of the launcher: take the ranks down with it
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        raise


def failed_ranks(log_dir):
    """``{rank: tail of its log}`` for every rank whose log reports a failure."""
    found = {}
    if not os.path.isdir(log_dir):
        return found
    for name in sorted(os.listdir(log_dir)):
        m = re.fullmatch(r"workerlog\.(\d+)", name)
        if not m:
            continue
        with open(os.path.join(log_dir, name), errors="replace") as f:
            text = f.read()
        if FAILED.format(rank=m.group(1)) in text:
            found[int(m.group(1))] = "\n".join(text[text.index("[oar.distributed] rank"):].splitlines()[-30:])
    return found


def _parser():
    p = argparse.ArgumentParser(prog="python -m oar.distributed.launch",
                                description="Start a data-parallel training script on N ranks per host with MPI.")
    p.add_argument("--nproc_per_node", type=int, default=1, help="ranks per host")
    p.add_argument("--ips", default="127.0.0.1", help="comma-separated hosts (default: this machine)")
    p.add_argument("--hostfile", default=None, help="an MPI hostfile (host:slots lines) instead of --ips")
    p.add_argument("--log_dir", default="log", help="where workerlog.<rank> files go (default: ./log)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds a collective waits for the other ranks before failing (default 600)")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def main(argv=None):
    a = _parser().parse_args(argv)
    if a.nproc_per_node < 1:
        raise SystemExit("--nproc_per_node must be at least 1")
    os.makedirs(a.log_dir, exist_ok=True)
    for name in os.listdir(a.log_dir):  # logs of an earlier run would be mistaken for this one's
        if re.fullmatch(r"workerlog\.\d+", name):
            os.remove(os.path.join(a.log_dir, name))
    cmd = mpiexec_command(a.nproc_per_node, ["--log_dir", a.log_dir, "--script", a.training_script,
                                             *a.training_script_args],
                          a.ips, a.hostfile, a.timeout)
    rc = run_mpiexec(cmd, follow=os.path.join(a.log_dir, "workerlog.0"), out=sys.stdout)
    if rc != 0:
        failed = failed_ranks(a.log_dir)
        for rank, tail in failed.items():
            sys.stderr.write(f"\noar.distributed.launch: rank {rank} failed (log: "
                             f"{os.path.join(a.log_dir, f'workerlog.{rank}')}):\n{tail}\n")
        if not failed:
            sys.stderr.write(f"\noar.distributed.launch: a rank was killed or exited abnormally (mpiexec exit code "
                             f"{rc}); every rank was stopped. Logs: {a.log_dir}/workerlog.<rank>\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
