"""Load budgets cover what a run holds at once, not one op at a time (seven `tile`s each under the budget but
over it together), at load from the declared shapes and at run time from the real ones; `.pdiparams.info` and
`oar inspect --dot` parse within the budget. Each hostile file fails with a ValueError naming it."""
import json
import tracemalloc

import numpy as np
import pytest

import oar
from oar.cli import main
from oar.inference import Config, create_predictor
from oar.static import InputSpec
from oar.graph import budget as budget_module

MiB = 1 << 20


class Tiles(oar.nn.Layer):
    """Seven tiles of 8 MiB (batch 2) kept until one add_n: 56 MiB held at once, though each op makes 8 MiB."""

    def forward(self, x):
        return oar.add_n([oar.tile(x + float(i), [1, 1 << 10]) for i in range(7)])


def save_tiles(tmp_path, batch):
    prefix = str(tmp_path / "tiles")
    oar.jit.save(Tiles(), prefix, input_spec=[InputSpec([batch, 1 << 10], "float32", "x")])
    return prefix


X = np.ones([2, 1 << 10], "float32")


def test_tiles_held_together_are_over_the_budget_at_run_time(tmp_path):
    prefix = save_tiles(tmp_path, None)  # the batch is unknown at load: checked when it runs
    m = oar.jit.load(prefix, max_bytes=32 * MiB)  # each tile (8 MiB) fits on its own
    m.eval()
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"tiles\.pdmodel: (op 'tile' would allocate 8\.0 MiB while the run "
                                             r"holds 2[0-9.]+ MiB|the values the run holds).*over the load budget "
                                             r"of 32\.0 MiB"):
            m(oar.to_tensor(X))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 48 * MiB  # stopped before the budget was passed by more than one op's output
    predictor_config = Config(prefix)
    predictor_config.set_max_bytes(32 * MiB)
    with pytest.raises(ValueError, match=r"tiles\.pdmodel: .*over the load budget of 32\.0 MiB"):
        create_predictor(predictor_config).run([X])
    ok = oar.jit.load(prefix, max_bytes=256 * MiB)  # a budget that covers them all: the same result as eager
    ok.eval()
    np.testing.assert_array_equal(ok(oar.to_tensor(X)).numpy(), Tiles()(oar.to_tensor(X)).numpy())


def test_tiles_held_together_are_over_the_budget_at_load(tmp_path):
    prefix = save_tiles(tmp_path, 2)  # every shape known: refused before anything runs
    with pytest.raises(ValueError, match=r"tiles\.pdmodel: the values a run holds at once take [0-9.]+ MiB after op "
                                         r".*tile.*over the load budget of 32\.0 MiB"):
        oar.jit.load(prefix, max_bytes=32 * MiB)
    config = Config(prefix)
    config.set_max_bytes(32 * MiB)
    with pytest.raises(ValueError, match=r"tiles\.pdmodel: the values a run holds at once"):
        create_predictor(config)
    oar.jit.load(prefix, max_bytes=256 * MiB)


def test_values_freed_after_their_last_use_do_not_count(tmp_path):
    class Chain(oar.nn.Layer):
        def forward(self, x):
            for i in range(7):  # each tile is summed and freed before the next one is made
                x = oar.tile(x, [1, 1 << 10]).sum(axis=1, keepdim=True) + float(i)
            return x
    prefix = str(tmp_path / "chain")
    for batch in (None, 2):
        oar.jit.save(Chain(), prefix, input_spec=[InputSpec([batch, 1], "float32", "x")])
        m = oar.jit.load(prefix, max_bytes=MiB)  # 8 KiB at a time
        m.eval()
        assert m(oar.ones([2, 1])).shape == [2, 1]


def test_info_file_parse_cost_is_bounded(tmp_path):
    prefix = str(tmp_path / "net")
    oar.jit.save(oar.nn.Linear(2, 2), prefix, input_spec=[InputSpec([None, 2])])
    with open(prefix + ".pdiparams.info", "wb") as f:  # 3 MB of empty objects: ~110 MB of Python objects
        f.write(b"[" + b"{}," * (1 << 20) + b"{}]")
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"net\.pdiparams\.info: parsing this .* could take up to .* over the "
                                             r"load budget of 16\.0 MiB"):
            oar.jit.load(prefix, max_bytes=16 * MiB)
        assert tracemalloc.get_traced_memory()[1] < 16 * MiB
    finally:
        tracemalloc.stop()
    with pytest.raises(ValueError, match=r"net\.pdiparams\.info: not an oar parameter info"):
        oar.jit.load(prefix)  # within the default budget it parses, and is refused as what it is


def test_inspect_and_dot_apply_the_same_parse_budget(tmp_path, monkeypatch, capsys):
    prefix = str(tmp_path / "net")
    oar.jit.save(oar.nn.Linear(2, 2), prefix, input_spec=[InputSpec([None, 2])])
    with open(prefix + ".pdmodel", "wb") as f:
        f.write(b"[" + b"[]," * (1 << 16) + b"[]]")  # 192 KiB, ~7 MiB to parse
    defaults = list(budget_module.Budget.__init__.__defaults__)
    monkeypatch.setattr(budget_module.Budget.__init__, "__defaults__", (MiB,) + tuple(defaults[1:]))
    for argv in (["inspect", prefix], ["inspect", prefix, "--dot", str(tmp_path / "g.dot")]):
        assert main(argv) == 1
        assert "net.pdmodel: parsing this" in capsys.readouterr().err
    with open(prefix + ".pdmodel", "w") as f:
        json.dump({"format": "nope"}, f)
    for argv in (["inspect", prefix], ["inspect", prefix, "--dot", str(tmp_path / "g.dot")]):
        assert main(argv) == 1
        assert "net.pdmodel: not an oar model file" in capsys.readouterr().err
