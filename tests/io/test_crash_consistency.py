"""A save killed at any point leaves the old files or the new ones, whole (docs/format.md, "Writes").

A forked child saves two versions of a model (different parameter names, values and `.pdiparams.info`) to one
prefix in turn and is killed with SIGKILL at a random moment; the files must then load as one version or the
other. Same for `oar.save` and `oar.save(protocol="paddle")`. 10 rounds each here; OAR_SOAK=1 runs 150.
`test_crash_between_any_two_renames` kills a save after each of its renames in turn (deterministic).
"""
import os
import random
import signal
import time

import numpy as np
import pytest

import oar
from oar.core import safe_files
from oar.static import InputSpec

ROUNDS = 150 if os.environ.get("OAR_SOAK") == "1" else 10
X = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)


def _versions():
    a = oar.nn.Linear(4, 3)
    b = oar.nn.Sequential(oar.nn.Linear(4, 5), oar.nn.Linear(5, 3))
    for value, net in ((1.0, a), (2.0, b)):
        for p in net.parameters():
            p.set_value(np.full(p.shape, value, "float32"))
        net.eval()
    return [(net, net(oar.to_tensor(X)).numpy(), sorted(net.state_dict())) for net in (a, b)]


def _jit_save(net, prefix):
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])


def _check_jit(prefix, versions):
    loaded = oar.jit.load(prefix)
    y = loaded(oar.to_tensor(X)).numpy()
    names = sorted(m["structured_name"] for m in loaded._info.values())
    state = oar.load(prefix)
    hits = [i for i, (_, out, structured) in enumerate(versions)
            if np.array_equal(y, out) and names == structured and sorted(state.name_map) == structured]
    assert len(hits) == 1, f"a mixed model: outputs {y.tolist()}, .pdiparams.info names {names}"


def _fork_saving(save, versions):
    """A child saving the versions in turn forever; returns (pid, read end of a pipe it writes a byte to per save)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(r)
            i = 0
            while True:
                save(versions[i % 2][0])
                os.write(w, b".")
                i += 1
        finally:
            os._exit(1)
    os.close(w)
    return pid, r


def _kill_at_random(save, versions, rng):
    pid, r = _fork_saving(save, versions)
    try:
        t0 = time.perf_counter()
        os.read(r, 1)  # the first save is done: a version exists on disk
        os.read(r, 1)
        period = (time.perf_counter() - t0) / 2
        time.sleep(rng.uniform(0, 2 * period))
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)


def test_jit_save_killed_at_random_points(tmp_path):
    versions, rng, prefix = _versions(), random.Random(25), str(tmp_path / "net")
    for _ in range(ROUNDS):
        _kill_at_random(lambda net: _jit_save(net, prefix), versions, rng)
        _check_jit(prefix, versions)
    _jit_save(versions[0][0], prefix)  # the next save finishes or discards what the killed one left
    assert sorted(os.listdir(tmp_path)) == ["net.pdiparams", "net.pdiparams.info", "net.pdmodel"]


@pytest.mark.parametrize("protocol", [4, "paddle"])
def test_oar_save_killed_at_random_points(tmp_path, protocol):
    states = [{"w": np.full([64, 64], 1.0, "float32"), "step": 1},
              {"w": np.full([64, 64], 2.0, "float32"), "v": np.zeros(3, "float32"), "step": 2}]
    versions, rng, path = [(s, None, None) for s in states], random.Random(7), str(tmp_path / "ckpt.pdparams")
    for _ in range(ROUNDS):
        _kill_at_random(lambda s: oar.save(s, path, protocol=protocol), versions, rng)
        got = oar.load(path, return_numpy=True)
        want = states[got["step"] - 1]
        assert sorted(got) == sorted(want) and np.array_equal(got["w"], want["w"])


def _killed_after_renames(k, save):
    """Runs `save` in a child that dies (os._exit, no clean-up) right after its k-th os.replace."""
    pid = os.fork()
    if pid == 0:
        try:
            calls = []
            real = os.replace

            def replace(a, b):
                real(a, b)
                calls.append(b)
                if len(calls) == k:
                    os._exit(0)
            safe_files.os.replace = replace
            save()
        finally:
            os._exit(3)  # the save finished before its k-th rename
    return os.waitpid(pid, 0)[1] >> 8


def test_crash_between_any_two_renames(tmp_path):
    versions, prefix = _versions(), str(tmp_path / "net")
    for k in range(1, 12):
        _jit_save(versions[0][0], prefix)
        status = _killed_after_renames(k, lambda: _jit_save(versions[1][0], prefix))
        _check_jit(prefix, versions)
        if status == 3:  # every rename of the save happened
            break
    assert k > 3  # a commit record and three files


def test_files_of_two_saves_are_refused(tmp_path):
    (a, _, _), (b, _, _) = _versions()
    _jit_save(a, str(tmp_path / "a"))
    _jit_save(b, str(tmp_path / "b"))
    os.replace(tmp_path / "b.pdiparams.info", tmp_path / "a.pdiparams.info")
    with pytest.raises(ValueError, match="a.pdiparams.info: written by another save than .*a.pdmodel"):
        oar.jit.load(str(tmp_path / "a"))
    _jit_save(a, str(tmp_path / "a"))
    _jit_save(a, str(tmp_path / "c"))
    os.replace(tmp_path / "c.pdiparams", tmp_path / "a.pdiparams")  # the same weights, another save
    with pytest.raises(ValueError, match="a.pdiparams: written by another save than .*a.pdmodel"):
        oar.jit.load(str(tmp_path / "a"))


def test_a_reader_sees_the_committed_save_before_it_is_rolled_forward(tmp_path):
    versions, prefix = _versions(), str(tmp_path / "net")
    _jit_save(versions[0][0], prefix)
    assert _killed_after_renames(2, lambda: _jit_save(versions[1][0], prefix)) == 0  # the record and one file
    assert any(f.startswith(".oar-commit.") for f in os.listdir(tmp_path))
    _check_jit(prefix, versions)
    assert np.array_equal(oar.jit.load(prefix)(oar.to_tensor(X)).numpy(), versions[1][1])
    assert safe_files.roll_forward(str(tmp_path)) == 1
    assert sorted(os.listdir(tmp_path)) == ["net.pdiparams", "net.pdiparams.info", "net.pdmodel"]
    _check_jit(prefix, versions)
