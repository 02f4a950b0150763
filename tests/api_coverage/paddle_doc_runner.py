"""Runs Paddle's docstring examples on oar: ``import paddle`` (and ``paddle.x.y``) resolves to ``oar`` (``oar.x.y``).

A worker process imports oar once and runs one example per request, each in a fresh namespace, with the framework
state reset between examples (dynamic mode, float32 default dtype, seed 0, printing options); the parent kills and
restarts it when an example overruns its timeout or kills the process. Requests and answers are JSON lines.

Usage: python tests/api_coverage/paddle_doc_runner.py SITE_PACKAGES [OUT.json]  (the full run with a summary)."""
import collections
import importlib
import importlib.abc
import importlib.util
import json
import os
import pathlib
import selectors
import subprocess
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


# --- the worker -----------------------------------------------------------------------------------------------

class PaddleIsOar(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``paddle`` and ``paddle.*`` as the already imported ``oar`` modules of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "paddle" and not fullname.startswith("paddle."):
            return None
        oar_name = "oar" + fullname[len("paddle"):]
        try:
            importlib.import_module(oar_name)
        except ImportError:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return sys.modules["oar" + spec.name[len("paddle"):]]

    def exec_module(self, module):
        pass


def _reset(oar, np):
    """Each example starts as a fresh process would: dynamic mode, empty default programs and global scope (an
    earlier example's static ops and parameter names do not leak into the next), default dtype, seeds, printing."""
    from oar.core.state import STATE
    from oar.graph import scope
    from oar.graph.cursor import BUILDER
    if STATE.static:
        oar.disable_static()
    BUILDER.main = BUILDER.startup = None
    scope._GLOBAL[-1] = scope.Scope()
    STATE.grad_enabled = True
    oar.set_default_dtype("float32")
    oar.seed(0)
    np.random.seed(0)
    np.set_printoptions()
    oar.set_printoptions(precision=8, threshold=1000, edgeitems=3, linewidth=80, sci_mode=False)


def _compiled(source):
    """The code objects of one part: all statements, the last one as the interactive prompt runs it (an
    expression's value is printed)."""
    import ast
    tree = ast.parse(source, "<example>")
    if not tree.body:
        return []
    head = ast.Module(body=tree.body[:-1], type_ignores=[])
    return [compile(head, "<example>", "exec"), compile(ast.Interactive(body=tree.body[-1:]), "<example>", "single")]


def _run_parts(parts):
    """Runs the parts in one namespace: ("ran" | "failed", first error line, [printed output per part])."""
    import contextlib
    import io
    ns, outputs = {"__name__": "__main__"}, []
    for source, _, skip in parts:
        if skip:
            outputs.append(None)
            continue
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                for code in _compiled(source):
                    exec(code, ns)
        except BaseException as e:  # noqa: BLE001 - an example's error of any kind is the result being measured
            tb = traceback.extract_tb(e.__traceback__)
            where = next((f"{pathlib.Path(f.filename).name}:{f.lineno}" for f in reversed(tb)
                          if f.filename != "<example>" and f.filename != __file__), "example")
            msg = (str(e).strip().split("\n") or [""])[0][:200]
            return "failed", f"{type(e).__name__}: {msg} [{where}]", outputs
        outputs.append(buf.getvalue())
    return "ran", "", outputs


def worker():
    import numpy as np

    import oar
    sys.meta_path.insert(0, PaddleIsOar())
    sys.modules["paddle"] = oar
    for line in sys.stdin:
        req = json.loads(line)
        _reset(oar, np)
        status, error, outputs = _run_parts(req["parts"])
        sys.__stdout__.write(json.dumps({"status": status, "error": error, "outputs": outputs}) + "\n")
        sys.__stdout__.flush()


# --- the parent -----------------------------------------------------------------------------------------------

class Runner:
    """Sends examples to a worker; restarts it after a timeout or a crash. The worker runs in a temporary
    directory, removed on `close` (examples save models and write files where they run)."""

    def __init__(self):
        self.proc = None
        self.workdir = None

    def _start(self):
        if self.workdir is None:
            self.workdir = tempfile.TemporaryDirectory(prefix="oar-paddle-doc-")
        env = dict(os.environ, PYTHONPATH=str(ROOT), OAR_DOCTEST_WORKER="1")
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], cwd=self.workdir.name, env=env,
                                     text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

    def run(self, example):
        """{"status": "ran" | "failed" | "timeout" | "crashed", "error", "outputs"} for one Example."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(json.dumps({"parts": [list(p) for p in example.parts]}) + "\n")
        self.proc.stdin.flush()
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        ready = sel.select(timeout=example.timeout)
        sel.close()
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        self._stop()
        why = "timeout" if not ready else "crashed"
        return {"status": why, "error": f"{why} after {example.timeout:.0f} s" if not ready else "worker died",
                "outputs": []}

    def close(self):
        self._stop()
        if self.workdir is not None:
            self.workdir.cleanup()
            self.workdir = None

    def _stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


Result = collections.namedtuple("Result", "example status error checks matched")


def run_all(examples, progress=None):
    """Runs every CPU-runnable example; [Result]. `checks` counts parts with expected output that ran, `matched`
    those whose output matches (see paddle_docstrings.output_matches)."""
    from paddle_docstrings import checkable, output_matches
    runner, results = Runner(), []
    try:
        for i, ex in enumerate(examples):
            if ex.requires:
                results.append(Result(ex, "not CPU-runnable", ex.requires, 0, 0))
                continue
            if all(p.skip for p in ex.parts):
                results.append(Result(ex, "skipped by Paddle", "every statement is +SKIP", 0, 0))
                continue
            r = runner.run(ex)
            checks = matched = 0
            for part, check, got in zip(ex.parts, checkable(ex.parts), r["outputs"]):
                if check and got is not None:
                    checks += 1
                    matched += output_matches(part.want, got)
            results.append(Result(ex, r["status"], r["error"], checks, matched))
            if progress:
                progress(i, len(examples), results[-1])
    finally:
        runner.close()
    return results


def summary(results):
    """The table printed per namespace."""
    rows = collections.defaultdict(collections.Counter)
    for r in results:
        c = rows[r.example.namespace]
        c["total"] += 1
        c["runnable"] += r.status not in ("not CPU-runnable", "skipped by Paddle")
        c["ran"] += r.status == "ran"
        c["checks"] += r.checks
        c["matched"] += r.matched
    rows["all"] = sum(rows.values(), collections.Counter())
    lines = [f"{'namespace':28s} {'ran/CPU-runnable':>18s} {'values matched':>16s}  (all examples)"]
    for ns, c in rows.items():
        lines.append(f"{ns:28s} {c['ran']:7d}/{c['runnable']:<5d} {_pct(c['ran'], c['runnable'])} "
                     f"{c['matched']:5d}/{c['checks']:<5d} {_pct(c['matched'], c['checks'])}  ({c['total']})")
    return "\n".join(lines), rows["all"]


def _pct(a, b):
    return f"{100 * a / b:5.1f}%" if b else "    -"


def failures(results):
    """[{name, index, status, error, mismatched}] for every example that did not run or printed other values."""
    return [{"name": r.example.name, "block": r.example.index, "status": r.status, "error": r.error,
             "mismatched": r.checks - r.matched}
            for r in results if r.status in ("failed", "timeout", "crashed") or r.matched < r.checks]


def main(argv):
    sys.path.insert(0, str(HERE))
    from paddle_docstrings import collect
    from report import namespaces
    examples = collect(argv[1], {ns: names for ns, (_, names) in namespaces().items()})
    start = time.time()
    results = run_all(examples)
    table, _ = summary(results)
    print(table)
    print(f"{time.time() - start:.0f} s")
    if len(argv) > 2:
        pathlib.Path(argv[2]).write_text(json.dumps(failures(results), indent=1))


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        main(sys.argv)
