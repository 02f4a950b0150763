"""Runs the hostile files of issue 25 against an oar source tree, each in a subprocess with a time limit and an
address-space limit, and prints one table row per case: seconds, peak RSS, and how it ended.

    python tools/hostile_files_report.py                 # this checkout
    python tools/hostile_files_report.py /tmp/old_tree   # another tree (e.g. `git archive <commit> oar | tar -x`)

Pickle cases come from tests/io/hostile_pickles.py; the model cases are built here (scaled down where noted).
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT_S, MEMORY_LIMIT = 30, 4 << 30

SETUP = {  # name -> python code run in the tree; it prints nothing on success
    "7 tiles x 8 MiB held together, max_bytes=32 MiB (run)": """
import oar
from oar.static import InputSpec
class T(oar.nn.Layer):
    def forward(self, x):
        return oar.add_n([oar.tile(x + float(i), [1, 1024]) for i in range(7)])
oar.jit.save(T(), D + '/t', input_spec=[InputSpec([None, 1024], 'float32', 'x')])
m = oar.jit.load(D + '/t', max_bytes=32 << 20); m.eval()
m(oar.ones([2, 1024]))
""",
    "30 MB [{},{},...] .pdiparams.info (jit.load)": """
import oar
from oar.static import InputSpec
oar.jit.save(oar.nn.Linear(2, 2), D + '/n', input_spec=[InputSpec([None, 2])])
open(D + '/n.pdiparams.info', 'wb').write(b'[' + b'{},' * 10_000_000 + b'{}]')
oar.jit.load(D + '/n')
""",
    "30 MB [[],[],...] .pdmodel (oar inspect --dot)": """
import oar, sys
from oar.static import InputSpec
from oar.cli import main
oar.jit.save(oar.nn.Linear(2, 2), D + '/n', input_spec=[InputSpec([None, 2])])
open(D + '/n.pdmodel', 'wb').write(b'[' + b'[],' * 10_000_000 + b'[]]')
sys.exit(main(['inspect', D + '/n', '--dot', D + '/g.dot']))
""",
    "oar.save of a 400-deep dict": """
import oar
obj = {'w': 1}
for _ in range(400):
    obj = {'k': obj}
oar.save(obj, D + '/deep.pdparams')
""",
}


def pickle_code(name):
    return f"""
import sys, oar
sys.path.insert(0, {os.path.join(HERE, 'tests', 'io')!r})
from hostile_pickles import CASES
open(D + '/evil.pdparams', 'wb').write(CASES[{name!r}][0])
oar.load(D + '/evil.pdparams')
"""


def _hwm(pid):
    """Peak resident memory (KiB) of a running process, from /proc (0 when unknown)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def run_case(tree, code):
    """(seconds, peak RSS in MiB, outcome) of `code` run by a fresh interpreter on `tree`."""
    with tempfile.TemporaryDirectory() as d:
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        env = dict(os.environ, PYTHONPATH=tree)
        with open(os.path.join(d, "err"), "w+b") as err:
            t0 = time.perf_counter()
            script = os.path.join(d, "case.py")  # a file: to_static reads the source of what it converts
            with open(script, "w") as f:
                f.write(f"D = {d!r}\n" + code)
            p = subprocess.Popen([sys.executable, script], cwd=d, env=env, preexec_fn=limit,
                                 stdout=subprocess.DEVNULL, stderr=err)
            peak, ended = 0, None
            while p.poll() is None:
                peak = max(peak, _hwm(p.pid))
                if time.perf_counter() - t0 > TIMEOUT_S:
                    p.kill()
                    p.wait()
                    ended = f"killed after {TIMEOUT_S} s"
                    break
                time.sleep(0.02)
            seconds = time.perf_counter() - t0
            err.seek(0)
            text = err.read().decode(errors="replace")
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if ended is None:
            top = [ln for ln in lines if not ln[0].isspace() and not ln.startswith("Traceback")]  # the error line
            ended = "ok" if p.returncode == 0 else ((top or lines)[-1][:160] if lines else f"exit {p.returncode}")
            if len(lines) > 30:
                ended += f" [{len(lines)} lines on stderr]"
        return seconds, peak // 1024, ended.replace("|", "/")


def main(tree=HERE):
    sys.path.insert(0, os.path.join(HERE, "tests", "io"))
    from hostile_pickles import CASES
    cases = dict(SETUP)
    cases.update({f".pdparams: {n}": pickle_code(n) for n in CASES})
    print(f"tree: {tree}\n| case | seconds | peak RSS (MiB) | outcome |\n|---|---|---|---|")
    for name, code in cases.items():
        seconds, rss, ended = run_case(tree, code)
        print(f"| {name} | {seconds:.1f} | {rss} | {ended} |", flush=True)


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else HERE)
