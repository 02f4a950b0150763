"""tests/run_acceptance.py: an absent ../shared/acceptance is said in one line and its scripts count as skipped."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def _runner():
    spec = importlib.util.spec_from_file_location("run_acceptance", os.path.join(HERE, "run_acceptance.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_absent_folder_counts_scripts_as_skipped(tmp_path, capsys):
    listed = [l.split("#")[0].strip() for l in open(os.path.join(HERE, "acceptance.txt"))]
    n = len([l for l in listed if l])
    assert n > 0
    absent = str(tmp_path / "acceptance")
    assert _runner().main(absent) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2, lines
    assert absent in lines[0] and "absent" in lines[0] and f"{n} scripts" in lines[0] and "NOT run" in lines[0]
    assert lines[1] == f"acceptance: 0 passed, 0 failed, {n} skipped"
