"""Malformed and hostile programs in model files are rejected before anything is compiled or allocated, with a
ValueError naming the file; loops and creation ops of loaded models run within their budgets."""
import copy
import json
import os
import shutil

import numpy as np
import pytest

import oar
from oar.inference import Config, create_predictor
from oar.static import InputSpec


class Loop(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(4, 4)

    @oar.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")])
    def forward(self, x, n):
        i = oar.zeros([1], "int64")
        while i < n:
            x = self.fc(x)
            i = i + 1
        return x


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    net = Loop()
    net.eval()
    prefix = str(tmp_path_factory.mktemp("loop") / "m")
    oar.jit.save(net, prefix)
    return prefix, json.load(open(prefix + ".pdmodel"))


@pytest.fixture
def model(saved, tmp_path):
    """(prefix of a fresh copy, its .pdmodel dict, write(d))."""
    src, d = saved
    prefix = str(tmp_path / "m")
    for s in (".pdiparams", ".pdiparams.info"):
        shutil.copy(src + s, prefix + s)

    def write(doc, name="m.pdmodel"):
        with open(os.path.join(tmp_path, name), "w") as f:
            json.dump(doc, f)
    write(d)
    return prefix, copy.deepcopy(d), write


def blocks(d):
    return d["program"]["blocks"]


def while_op(d):
    return next(op for op in blocks(d)[0]["ops"] if op["type"] == "while")


def run(prefix, n=3, **budget):
    m = oar.jit.load(prefix, **budget)
    m.eval()
    return m(oar.ones([2, 4]), oar.to_tensor([n]))


def test_the_loop_model_runs(model):
    prefix, _, _ = model
    assert run(prefix).shape == [2, 4]


MALFORMED = {
    "duplicate body_in": (lambda d: while_op(d)["attrs"].__setitem__("body_in",
                                                                     [while_op(d)["attrs"]["body_in"][0]] * 2),
                          "body_in \\+ input names .* twice"),
    "body_in names a captured input": (lambda d: while_op(d)["attrs"]["body_in"].__setitem__(0, "n"),
                                       "body_in \\+ input names 'n' twice"),
    "missing body_in": (lambda d: while_op(d)["attrs"].pop("body_in"), "missing attribute 'body_in'"),
    "missing cond_out": (lambda d: while_op(d)["attrs"].pop("cond_out"), "missing attribute 'cond_out'"),
    "body_out too short": (lambda d: while_op(d)["attrs"]["body_out"].pop(), "body_out: expected 2 names, got 1"),
    "missing input slot": (lambda d: blocks(d)[2]["ops"][0]["inputs"].pop("y"), "missing a required argument: 'y'"),
    "missing kernel attr": (lambda d: blocks(d)[2]["ops"][0]["attrs"].pop("transpose_x"),
                            "missing a required argument: 'transpose_x'"),
    "two names in a single slot": (lambda d: blocks(d)[2]["ops"][0]["inputs"]["x"].append("n"),
                                   "must name exactly one variable"),
    "body block refers to itself": (lambda d: blocks(d)[2]["ops"].append(dict(copy.deepcopy(while_op(d)), inputs={
        "x": [], "input": []}, outputs={"out": []})), "is not a later block index"),
    "sub-block of another block": (lambda d: while_op(d)["attrs"].__setitem__("cond_block", 0),
                                   "is not a later block index"),
    "one block as condition and body": (lambda d: while_op(d)["attrs"].__setitem__("body_block", 1),
                                        "sub-block 1 is referenced twice"),
    "negative dim in a shape attribute": (lambda d: blocks(d)[0]["ops"][0]["attrs"].__setitem__("shape", [-7, 2]),
                                          "must hold ints >= -1"),
    "version true": (lambda d: d.__setitem__("version", True), "model format version True is not supported"),
    "an input named twice": (lambda d: d["inputs"][1].__setitem__("name", "x"), "'inputs' names a variable twice"),
    "program version true": (lambda d: d["program"].__setitem__("version", True), "version: expected an int"),
    "control characters in a name": (lambda d: blocks(d)[0]["vars"][0].__setitem__("name", "x\x1b[2J"),
                                     "holds control characters"),
    "control characters in an attribute": (lambda d: while_op(d)["attrs"].__setitem__("cond_out", "a\x1b]0;pwn\x07"),
                                           "control characters"),
    "save_history without a history output": (lambda d: while_op(d)["attrs"].__setitem__("save_history", True),
                                              "output 'history': expected 1 names, got 0"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_program_is_rejected_before_compiling(model, case):
    prefix, d, write = model
    mutate, match = MALFORMED[case]
    mutate(d)
    write(d)
    with pytest.raises(ValueError, match=match) as e:
        oar.jit.load(prefix)
    assert "m.pdmodel" in str(e.value)
    with pytest.raises(ValueError, match=match):
        create_predictor(Config(prefix))


def test_deeply_nested_blocks_are_rejected_quickly(model):
    prefix, d, write = model
    bl = blocks(d)
    for i in range(3000):
        bl.append({"idx": len(bl), "parent_idx": len(bl) - 1, "vars": [], "ops": []})
    write(d)
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        oar.jit.load(prefix)


def test_too_many_ops_are_rejected(model, monkeypatch):
    from oar.ir import serialize
    monkeypatch.setattr(serialize, "MAX_OPS", 3)
    prefix, _, _ = model
    with pytest.raises(ValueError, match="more than 3 ops"):
        oar.jit.load(prefix)


def test_slots_listed_out_of_order_still_feed_the_kernel_in_order(model):
    prefix, d, write = model
    expected = run(prefix).numpy()
    mm = blocks(d)[2]["ops"][0]
    assert mm["type"] == "matmul"
    mm["inputs"] = {"y": mm["inputs"]["y"], "x": mm["inputs"]["x"]}
    write(d)
    np.testing.assert_array_equal(run(prefix).numpy(), expected)


@pytest.mark.parametrize("shape", [[2 ** 16, 2 ** 15], [2 ** 31], [1 << 20, 1 << 10]])
def test_creation_op_over_the_budget_is_rejected_at_load(model, shape):
    prefix, d, write = model
    full = blocks(d)[0]["ops"][0]
    full["attrs"]["shape"] = shape
    write(d)
    with pytest.raises(ValueError, match=r"m\.pdmodel: op full\.tmp_0 = full\(\).* would allocate .* over the load "
                                         r"budget of 1\.0 GiB"):
        oar.jit.load(prefix)
    with pytest.raises(ValueError, match="over the load budget"):
        create_predictor(Config(prefix))


def test_budget_is_configurable(model):
    prefix, d, write = model
    blocks(d)[0]["ops"][0]["attrs"]["shape"] = [1024, 1024]  # 8 MiB of int64 zeros
    write(d)
    with pytest.raises(ValueError, match="over the load budget of 1.0 MiB"):
        oar.jit.load(prefix, max_bytes=1 << 20)
    config = Config(prefix)
    config.set_max_bytes(1 << 20)
    with pytest.raises(ValueError, match="over the load budget of 1.0 MiB"):
        create_predictor(config)


def test_dynamic_creation_op_is_checked_at_run_time(model):
    """A `tile` whose output size depends on the input's batch: allowed at load, refused when it runs."""
    prefix, d, write = model
    b0 = blocks(d)[0]
    b0["vars"].append({"name": "big", "shape": [-1, 4], "dtype": "float32", "persistable": False,
                       "stop_gradient": True, "is_parameter": False, "trainable": False, "is_data": False})
    b0["ops"].append({"type": "tile", "inputs": {"x": ["x"]}, "outputs": {"out": ["big"]},
                      "attrs": {"repeat_times": [1 << 16, 1 << 10]}, "loc": ["net.py", 7, "big = x.tile(...)"]})
    d["outputs"].append({"name": "big", "shape": [-1, 4], "dtype": "float32"})
    d["output_structure"] = [0, 1]
    write(d)
    m = oar.jit.load(prefix, max_bytes=64 << 20)
    m.eval()
    with pytest.raises(ValueError, match=r"m\.pdmodel: op 'tile' would allocate 2\.0 GiB, over the load budget(.|\n)*"
                                         r"net\.py\", line 7"):
        m(oar.ones([2, 4]), oar.to_tensor([1]))
    predictor = create_predictor(Config(prefix))
    with pytest.raises(ValueError, match=r"m\.pdmodel: op 'tile' would allocate"):
        predictor.run([np.ones([2, 4], "float32"), np.array([1])])


def test_constants_are_not_folded_past_the_budget(model):
    """`tile` of a constant: constant folding at load must not materialise it (it is refused when it runs)."""
    prefix, d, write = model
    b0 = blocks(d)[0]
    b0["vars"].append({"name": "big", "shape": [-1], "dtype": "int64", "persistable": False,
                       "stop_gradient": True, "is_parameter": False, "trainable": False, "is_data": False})
    b0["ops"].append({"type": "tile", "inputs": {"x": ["full.tmp_0"]}, "outputs": {"out": ["big"]},
                      "attrs": {"repeat_times": [1 << 28]}, "loc": None})
    d["outputs"].append({"name": "big", "shape": [-1], "dtype": "int64"})
    d["output_structure"] = [0, 1]
    write(d)
    config = Config(prefix)
    config.set_max_bytes(256 << 20)
    predictor = create_predictor(config)  # loads: the 2 GiB constant is left for run time
    with pytest.raises(ValueError, match="op 'tile' would allocate 2.0 GiB"):
        predictor.run([np.ones([2, 4], "float32"), np.array([1])])


def test_endless_loop_stops_at_the_iteration_limit(model):
    prefix, _, _ = model
    with pytest.raises(RuntimeError, match=r"m\.pdmodel: while loop ran over 50 iterations"):
        run(prefix, n=10 ** 9, max_loop_iterations=50)
    config = Config(prefix)
    config.set_max_loop_iterations(50)
    predictor = create_predictor(config)
    with pytest.raises(RuntimeError, match="while loop ran over 50 iterations"):
        predictor.run([np.ones([2, 4], "float32"), np.array([10 ** 9])])
    assert predictor.run([np.ones([2, 4], "float32"), np.array([50])])[0].shape == (2, 4)


def test_errors_of_the_backward_name_the_file(model):
    """The backward of a loaded program runs later, from `loss.backward()`: its errors name the file too (here the
    backward plan is broken on purpose; the fuzzer found shape errors that only the backward meets)."""
    prefix, _, _ = model
    m = oar.jit.load(prefix)
    m.train()
    out = m(oar.ones([2, 4]), oar.to_tensor([2]))
    runner = m._runners[("forward", False)]
    runner._bwd = (None,) + runner._bwd[1:]
    with pytest.raises(RuntimeError, match=r"m\.pdmodel: running the model failed \(AttributeError"):
        out.sum().backward()


def test_loop_history_kept_for_gradients_is_bounded(model):
    """With trainable parameters the loop keeps every iteration for the backward: within max_bytes."""
    prefix, _, _ = model
    m = oar.jit.load(prefix, max_bytes=256 << 10)
    m.eval()
    x = oar.ones([2, 4])
    assert not m(x, oar.to_tensor([3])).stop_gradient  # a gradient is possible: history is kept
    with pytest.raises(ValueError, match=r"m\.pdmodel: while loop: after \d+ iterations the history kept for the "
                                         r"gradient takes .* over the load budget of 256\.0 KiB"):
        m(x, oar.to_tensor([10 ** 9]))
    with oar.no_grad():
        with pytest.raises(RuntimeError, match="ran over 1000 iterations"):  # no history: only the loop limit
            oar.jit.load(prefix, max_bytes=256 << 10, max_loop_iterations=1000)(x, oar.to_tensor([10 ** 9]))


def test_no_loop_history_without_gradients(model):
    """In inference (predictor, no_grad, parameters frozen) the while keeps no per-iteration history."""
    prefix, d, write = model
    while_op(d)["attrs"]["save_history"] = True
    while_op(d)["outputs"]["history"] = ["while.history_0"]
    blocks(d)[0]["vars"].append({"name": "while.history_0", "shape": [], "dtype": "float32", "persistable": False,
                                 "stop_gradient": True, "is_parameter": False, "trainable": False, "is_data": False,
                                 "attrs": {"history": True}})
    write(d)
    predictor = create_predictor(Config(prefix))
    assert not any(op.attrs.get("save_history") for b in predictor.program.blocks for op in b.ops)
    m = oar.jit.load(prefix)
    m.eval()
    for p in m.parameters():
        p.stop_gradient = True
    out = m(oar.ones([2, 4]), oar.to_tensor([3]))
    assert out.stop_gradient  # nothing recorded: no history kept for a backward


@pytest.mark.parametrize("method", ["eval", "_records", "parameters", "train", "class"])
def test_method_names_may_not_shadow_layer_attributes(model, method):
    prefix, d, write = model
    d["method"] = method
    write(d, f"m.{method}.pdmodel")
    with pytest.raises(ValueError, match=rf"m\.{method}\.pdmodel: method name '{method}'"):
        oar.jit.load(prefix)


def test_file_text_in_messages_is_sanitised(model):
    prefix, d, write = model
    full = blocks(d)[0]["ops"][0]
    full["loc"] = ["\x1b[2Jevil.py" + "x" * 5000, 1, "\x1b]0;owned\x07 src"]
    full["attrs"]["shape"] = [1 << 30]
    write(d)
    with pytest.raises(ValueError) as e:
        oar.jit.load(prefix)
    text = str(e.value)
    assert "\x1b" not in text and "\x07" not in text and "?[2Jevil.py" in text and len(text) < 1500


def test_wrong_metadata_types_name_the_file(model):
    prefix, d, write = model
    info = json.load(open(prefix + ".pdiparams.info"))
    info["version"] = True
    json.dump(info, open(prefix + ".pdiparams.info", "w"))
    with pytest.raises(ValueError, match=r"m\.pdiparams\.info: parameter info version True"):
        oar.jit.load(prefix)


def test_parse_cost_over_the_budget_is_refused_before_parsing(model):
    prefix, d, write = model
    d["padding"] = [[]] * 200_000  # 600 KB of empty lists: ~15 MB once parsed
    write(d)
    with pytest.raises(ValueError, match=r"m\.pdmodel: parsing this \d+-byte model \(\.pdmodel\) file could take"):
        oar.jit.load(prefix, max_bytes=4 << 20)
