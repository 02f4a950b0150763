"""The package as users meet it: its distribution name in pyproject and every install hint, `oar --version`,
`oar.version` (Paddle's `paddle.version`), `oar.utils.run_check()`, and the lazily imported submodules."""
import os
import re
import subprocess
import sys

import pytest

import oar
from oar.cli import main
from oar.core.info import DISTRIBUTION, VERSION
from oar.utils import install_check as rc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pyproject():
    return open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()


def test_distribution_name_and_version_are_written_once():
    text = _pyproject()
    assert re.search(r'^name = "([^"]+)"', text, re.M).group(1) == DISTRIBUTION == "oar-dl"
    assert 'version = {attr = "oar.core.info.VERSION"}' in text and not re.search(r'^version = "', text, re.M)
    assert oar.__version__ == VERSION == oar.version.full_version


def _hint_files():
    for folder in ("oar", "docs", "examples", "bench", "tools"):
        for base, _, names in os.walk(os.path.join(ROOT, folder)):
            yield from (os.path.join(base, n) for n in names if n.endswith((".py", ".md", ".sh")))
    yield os.path.join(ROOT, "README.md")


def test_every_install_hint_names_the_distribution_and_a_real_extra():
    extras = set(re.findall(r"^([a-z]+) = \[", _pyproject().split("[project.optional-dependencies]")[1]
                            .split("\n[")[0], re.M))
    stale, unknown, seen = [], [], 0
    for path in _hint_files():
        text = open(path, encoding="utf-8").read()
        rel = os.path.relpath(path, ROOT)
        stale += [f"{rel}: {m.group(0)}" for m in re.finditer(r"pip install '?oar(\[| |'|`|\)|$)", text, re.M)]
        stale += [f"{rel}: {m.group(0)}" for m in re.finditer(r"(?<![-\w.])oar\[\w+\]", text)]
        for m in re.finditer(r"oar-dl\[(\w+)\]", text):
            seen += 1
            if m.group(1) not in extras:
                unknown.append(f"{rel}: {m.group(0)}")
    assert not stale, f"install hints naming the unrelated distribution 'oar': {stale}"
    assert not unknown, f"hints naming an extra pyproject.toml does not define: {unknown}"
    assert seen >= 15


def test_version_option(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"oar {VERSION} (distribution {DISTRIBUTION}) from {os.path.dirname(oar.__file__)}"), out


def test_paddle_version_module(capsys):
    v = oar.version
    assert (v.major, v.minor, v.patch) == tuple(VERSION.split("."))
    assert v.cuda() == v.cudnn() == "False" and v.rc == "0" and v.is_tagged is True
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", v.commit)
    v.show()
    lines = capsys.readouterr().out.splitlines()
    assert lines[:5] == [f"full_version: {VERSION}", f"major: {v.major}", f"minor: {v.minor}", f"patch: {v.patch}",
                         "rc: 0"]
    assert f"commit: {v.commit}" in lines and "cuda: False" in lines and "cudnn: False" in lines


def test_lazy_submodules_in_a_fresh_interpreter():
    code = ("import oar, sys; assert 'oar.lite' not in sys.modules; "
            "print(oar.lite.load.__module__, oar.serving.Server.__name__, oar.version.full_version)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["oar.lite", "Server", VERSION]


def test_run_check_reports_and_trains(capsys):
    assert rc.run_check() is None
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Running verify oar program ..."
    assert out[1].startswith(f"oar {VERSION} (distribution {DISTRIBUTION}) from ")
    text = "\n".join(out)
    assert f"device: CPU ({os.cpu_count()} cores" in text and "BLAS: " in text
    for name in ("ONNX Runtime", "MPI", "serving"):
        assert re.search(rf"^  {name}: \S", text, re.M), text
    assert re.search(r"converted training step .*: loss \d+\.\d+ -> \d+\.\d+, same as eager", text), text
    assert out[-2:] == ["oar works well on 1 CPU.",
                        "oar is installed successfully! Let's start deep learning with oar now."]


def test_run_check_tiny_step_trains_the_same_eager_and_converted():
    eager, static, dw = rc._tiny_step()
    assert eager[1] < eager[0]                   # the step trained
    assert static == pytest.approx(eager, rel=1e-5) and dw < 1e-5


def test_run_check_names_missing_backends_and_raises_on_disagreement(monkeypatch, capsys):
    monkeypatch.setattr(rc, "_dist_version", lambda name: None)   # nothing optional installed
    found = rc.backends()
    assert found == {"ONNX Runtime": "not installed (pip install 'oar-dl[onnx]')",
                     "MPI": "not installed (pip install 'oar-dl[distributed]')",
                     "serving": "not installed (pip install 'oar-dl[serve]')"}
    monkeypatch.setattr(rc, "_tiny_step", lambda: ([1.0, 0.9], [1.0, 0.8], 0.0))
    with pytest.raises(RuntimeError, match="converted training step disagrees"):
        rc.run_check()
    assert "works well" not in capsys.readouterr().out


def test_blas_info_without_threadpoolctl(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "threadpoolctl"
                        else real(name, *a))
    text, threads = rc.blas_info()
    assert threads is None and text


def _fake_dist(folder, name, installer):
    info = folder / f"{name}-0.0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\nSummary: other\n")
    if installer:
        (info / "INSTALLER").write_text("pip\n")


def test_run_check_warns_about_an_installed_oar_distribution(tmp_path, monkeypatch):
    """A distribution named 'oar' installed beside oar-dl (same import name) is reported; a stale source
    egg-info (no INSTALLER) is not."""
    site = tmp_path / "site"
    _fake_dist(site, "oar", installer=False)
    monkeypatch.setattr(sys, "path", [str(site)])
    assert rc._clash() is None
    _fake_dist(tmp_path / "site2", "oar", installer=True)
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "site2")])
    line = rc._clash()
    assert line.startswith("WARNING: the distribution 'oar' 0.0.1 is installed too ('other')"), line
    assert "pip uninstall -y oar oar-dl" in line and "pip install oar-dl" in line
