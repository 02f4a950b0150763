"""A fuzzer for saved-model files: seed models, mutations (bytes, program structure, hostile shapes, budgets) and
a harness that loads and runs each mutant through `oar.jit.load`, the predictor or `oar inspect`, and classifies
what happened.

Outcomes: ``rejected`` (ValueError/RuntimeError/TypeError whose message names a file of the model), ``ran``, and
the failures: ``crash`` (another exception type), ``unclear`` (an allowed type whose message does not name the file,
or that carries control characters), ``internal`` (a message passing on an internal error such as IndexError),
``hang`` (over the time limit), ``memory`` (traced peak over the limit).
"""
import contextlib
import copy
import gc
import io
import json
import os
import random
import re
import shutil
import signal
import tracemalloc

import numpy as np

import oar
from oar.static import InputSpec

FILES = (".pdmodel", ".pdiparams", ".pdiparams.info")
ALLOWED = (ValueError, RuntimeError, TypeError)
BUDGET = 32 << 20            # max_bytes every trial loads with
PEAK_LIMIT = 160 << 20       # traced peak allowed per trial
LOOP_LIMIT = 20_000
TIME_LIMIT_S = 20
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# a message naming one of these comes from an internal error a file caused (reported, counted as a failure)
_INTERNAL = re.compile(r"\b(IndexError|KeyError|AttributeError|ZeroDivisionError|RecursionError|MemoryError|"
                       r"OverflowError|SyntaxError|NameError|UnboundLocalError|AssertionError)\b")


# ---- seed models ------------------------------------------------------------------------------------------------
class Loop(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(4, 4)

    def forward(self, x, n):
        i = oar.zeros([1], "int64")
        while i < n:
            x = self.fc(x)
            i = i + 1
        return x


class Branch(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.b = oar.nn.Linear(4, 3), oar.nn.Linear(4, 3)

    def forward(self, x, n):
        if n.sum() > 2:
            y = self.a(x)
        else:
            y = oar.tile(self.b(x), [1, 2])[:, :3]
        return y, oar.arange(0, 6).reshape([2, 3])


def build_seeds(root):
    """Saves the seed models under `root`; returns {name: prefix}."""
    specs = [InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")]
    mlp = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 2))
    seeds = {}
    for name, net, spec, train in (("mlp", mlp, specs[:1], False), ("loop", Loop(), specs, False),
                                   ("branch", Branch(), specs, True)):
        net.train() if train else net.eval()
        prefix = os.path.join(root, name, "m")
        oar.jit.save(oar.jit.to_static(net, input_spec=spec) if name != "mlp" else net, prefix,
                     input_spec=spec if name == "mlp" else None)
        seeds[name] = prefix
    return seeds


# ---- mutations --------------------------------------------------------------------------------------------------
ODD = [None, -1, 0, 1, 2, 2 ** 31, 2 ** 62, -2 ** 40, "x", "", [], {}, 1.5, float("nan"), True, [[[]]], {"a": 1},
       "float32", "int64", [-1, 3], [0], "\x1b[2J", "forward", "eval", "__init__"]
BIG = [0, 1, 2, 3, -1, -2, 7, 1 << 10, 1 << 16, 1 << 20, 1 << 28, 1 << 31, 1 << 33, 1 << 62]


def _walk(rng, node, depth=12):
    """A random (container, key) inside `node`."""
    parent = key = None
    for _ in range(depth):
        if isinstance(node, dict) and node:
            k = rng.choice(sorted(node, key=str))
        elif isinstance(node, list) and node:
            k = rng.randrange(len(node))
        else:
            break
        parent, key = node, k
        if rng.random() < 0.3:
            break
        node = node[k]
    return parent, key


def _ops(d):
    return [(b, op) for b in d["program"]["blocks"] for op in b["ops"]]


def _var(name, shape, dtype="float32"):
    return {"name": name, "shape": shape, "dtype": dtype, "persistable": False, "stop_gradient": True,
            "is_parameter": False, "trainable": False, "is_data": False}


def _hostile_op(rng, d):
    """Appends a creation/expansion op with hostile attributes and makes it an output."""
    gb = d["program"]["blocks"][0]
    x = d["inputs"][0]["name"]
    name = f"fz{rng.randrange(10 ** 6)}"
    big = lambda: rng.choice(BIG)  # noqa: E731
    kind = rng.choice(["full", "arange", "linspace", "eye", "tile", "pad", "broadcast_to", "uniform_random",
                       "randperm", "one_hot", "expand_chain"])
    if kind == "full":
        op = ("full", {}, {"shape": [big() for _ in range(rng.randint(0, 4))], "value": 1.0, "dtype": "float32"})
    elif kind == "arange":
        op = ("arange", {}, {"start": 0, "end": big(), "step": rng.choice([1, 1e-9, 0.5, -1]), "dtype": "int64"})
    elif kind == "linspace":
        op = ("linspace", {}, {"start": 0.0, "stop": 1.0, "num": big(), "dtype": "float32"})
    elif kind == "eye":
        op = ("eye", {}, {"num_rows": big(), "num_columns": big(), "dtype": "float32"})
    elif kind == "tile":
        op = ("tile", {"x": [x]}, {"repeat_times": [big() for _ in range(rng.randint(1, 3))]})
    elif kind == "pad":
        op = ("pad", {"x": [x]}, {"pad_width": [[big(), big()], [0, big()]], "mode": "constant", "value": 0.0})
    elif kind == "broadcast_to":
        op = ("broadcast_to", {"x": [x]}, {"shape": [big(), -1, 4][-rng.randint(2, 3):]})
    elif kind == "uniform_random":
        op = ("uniform_random", {}, {"shape": [big(), big()], "dtype": "float32", "min": 0.0, "max": 1.0})
    elif kind == "randperm":
        op = ("randperm", {}, {"n": big(), "dtype": "int64"})
    elif kind == "one_hot":
        op = ("one_hot", {"x": [d["inputs"][-1]["name"]]}, {"num_classes": big()})
    else:  # an expansion fed by another: arange -> broadcast_to
        gb["vars"].append(_var(name + "_a", [-1], "int64"))
        gb["ops"].append({"type": "arange", "inputs": {}, "outputs": {"out": [name + "_a"]},
                          "attrs": {"start": 0, "end": big(), "step": 1, "dtype": "int64"}, "loc": None})
        op = ("tile", {"x": [name + "_a"]}, {"repeat_times": [big()]})
    gb["vars"].append(_var(name, [-1]))
    gb["ops"].append({"type": op[0], "inputs": op[1], "outputs": {"out": [name]}, "attrs": op[2],
                      "loc": ["fuzz.py", 1, "hostile"]})
    d["outputs"].append({"name": name, "shape": [-1], "dtype": "float32"})
    d["output_structure"] = list(range(len(d["outputs"])))


def _structural(rng, d):
    ops = _ops(d)
    blocks = d["program"]["blocks"]
    names = [v["name"] for b in blocks for v in b["vars"]]
    what = rng.randrange(13)
    if what == 0:  # an odd value anywhere
        parent, key = _walk(rng, d)
        if parent is not None:
            parent[key] = copy.deepcopy(rng.choice(ODD))
    elif what == 1:  # a key removed anywhere
        parent, key = _walk(rng, d)
        if parent is not None:
            del parent[key]
    elif what == 2 and ops:  # an op duplicated, possibly into another block
        b, op = rng.choice(ops)
        rng.choice(blocks)["ops"].insert(0, copy.deepcopy(op))
    elif what == 3 and len(ops) > 1:  # two ops swapped
        b, _ = rng.choice(ops)
        if len(b["ops"]) > 1:
            i, j = rng.sample(range(len(b["ops"])), 2)
            b["ops"][i], b["ops"][j] = b["ops"][j], b["ops"][i]
    elif what == 4 and ops:  # an input renamed to another declared variable
        _, op = rng.choice(ops)
        slots = [s for s in op["inputs"] if op["inputs"][s]]
        if slots:
            s = rng.choice(slots)
            op["inputs"][s][rng.randrange(len(op["inputs"][s]))] = rng.choice(names)
    elif what == 5 and ops:  # a sub-block reference moved
        _, op = rng.choice(ops)
        keys = [k for k in op.get("attrs", {}) if k.endswith("block")]
        if keys:
            op["attrs"][rng.choice(keys)] = rng.randint(-1, len(blocks) + 1)
    elif what == 6 and ops:  # a list attribute's entry made hostile
        _, op = rng.choice(ops)
        lists = [k for k, a in op.get("attrs", {}).items() if isinstance(a, list) and a]
        if lists:
            a = op["attrs"][rng.choice(lists)]
            a[rng.randrange(len(a))] = rng.choice(BIG + names[:3])
    elif what == 7:  # a variable's declared shape or dtype changed
        b = rng.choice(blocks)
        if b["vars"]:
            v = rng.choice(b["vars"])
            if rng.random() < 0.5:
                v["shape"] = [rng.choice(BIG) for _ in range(rng.randint(0, 3))]
            else:
                v["dtype"] = rng.choice(["float64", "int32", "bool", "bfloat16", "uint8", "complex64"])
    elif what == 8:  # deep or many blocks
        for _ in range(rng.choice([2, 70, 500])):
            blocks.append({"idx": len(blocks), "parent_idx": len(blocks) - 1 if rng.random() < 0.7 else 0,
                           "vars": [], "ops": []})
    elif what == 9:  # an input/output spec changed
        spec = rng.choice(d["inputs"] + d["outputs"])
        spec[rng.choice(["shape", "dtype", "name"])] = rng.choice(ODD + names)
    elif what == 10:  # a method name
        d["method"] = rng.choice(["eval", "_records", "train", "ok_name", "a b", "parameters", "__class__"])
    elif what == 11 and ops:  # a slot renamed or dropped
        _, op = rng.choice(ops)
        field = rng.choice(["inputs", "outputs"])
        if op.get(field):
            s = rng.choice(sorted(op[field]))
            val = op[field].pop(s)
            if rng.random() < 0.5:
                op[field][rng.choice(["x", "y", "out", "input", "history", "zz"])] = val
    else:
        _hostile_op(rng, d)


def _bytes(rng, data):
    data = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0 and data:
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:
        data = data[:rng.randrange(len(data) + 1)]
    elif kind == 2:
        i = rng.randrange(len(data) + 1)
        data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif kind == 3 and data:
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.randint(1, 64))
        data[i:i] = data[i:j] * rng.randint(1, 4)
    elif data:
        i = rng.randrange(len(data))
        data[i:i + rng.randint(1, 32)] = bytes(rng.randint(1, 32))
    return bytes(data)


def mutate(rng, family, prefix, seed_prefix):
    """Copies the seed's files to `prefix` and applies one mutation of `family`; returns a description."""
    for s in FILES:
        if os.path.exists(seed_prefix + s):
            shutil.copy(seed_prefix + s, prefix + s)
    if family == "bytes":
        s = rng.choice([".pdmodel", ".pdmodel", ".pdiparams", ".pdiparams.info"])
        if os.path.exists(prefix + s):
            data = open(prefix + s, "rb").read()
            open(prefix + s, "wb").write(_bytes(rng, data))
        return f"bytes {s}"
    d = json.load(open(prefix + ".pdmodel"))
    if family == "structure":
        for _ in range(rng.randint(1, 3)):
            try:
                _structural(rng, d)
            except (KeyError, IndexError, TypeError, AttributeError, ValueError):
                pass  # a mutation that did not fit this document: the file still changes or stays as it was
    elif family == "shapes":
        _hostile_op(rng, d)
    method = d.get("method", "forward") if isinstance(d, dict) else "forward"
    if isinstance(method, str) and method != "forward" and method.isidentifier():
        for s in FILES[:2]:  # the file must be named after the method it claims
            if os.path.exists(prefix + s):
                os.replace(prefix + s, f"{prefix}.{method}{s}")
        with open(f"{prefix}.{method}.pdmodel", "w") as f:
            json.dump(d, f)
        open(prefix + ".pdmodel", "w").write("{}")
    else:
        with open(prefix + ".pdmodel", "w") as f:
            json.dump(d, f, allow_nan=True)
    return family


# ---- the harness ------------------------------------------------------------------------------------------------
class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _feeds(specs, rng):
    out = []
    for s in specs:
        shape = [2 if d < 0 else d for d in s["shape"]]
        dt = np.dtype("uint16" if s["dtype"] == "bfloat16" else s["dtype"])
        if int(np.prod(shape)) > 1 << 16:
            raise ValueError("fuzz: a declared input is too large to feed")
        out.append(np.full(shape, rng.randint(0, 4), dt) if dt.kind in "iub" else rng.random() * np.ones(shape, dt))
    return out


def _run_model(how, prefix, rng, budget):
    if how == "inspect":
        from oar.cli import inspect_model
        inspect_model(prefix, out=io.StringIO())
        return
    if how == "predictor":
        config = oar.inference.Config(prefix)
        config.set_max_bytes(budget)
        config.set_max_loop_iterations(LOOP_LIMIT)
        p = oar.inference.create_predictor(config)
        p.run(_feeds(p.inputs, rng))
        return
    m = oar.jit.load(prefix, max_bytes=budget, max_loop_iterations=LOOP_LIMIT)
    rec = m._records["forward"] if "forward" in m._records else next(iter(m._records.values()))
    method = getattr(m, rec.method) if rec.method != "forward" else m
    if how == "train":
        m.train()
        out = method(*[oar.to_tensor(a) for a in _feeds(rec.inputs, rng)])
        flat = [t for t in (out if isinstance(out, (list, tuple)) else [out]) if isinstance(t, oar.Tensor)]
        if flat and not flat[0].stop_gradient and flat[0].dtype.name.startswith("float"):
            flat[0].sum().backward()
    else:
        m.eval()
        with oar.no_grad():
            method(*[oar.to_tensor(a) for a in _feeds(rec.inputs, rng)])


def _where(e):
    import traceback
    tb = (e.__context__ or e).__traceback__  # (a re-raise naming the file hides where it came from)
    return " (at " + " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno}"
                                 for f in reversed(traceback.extract_tb(tb)[-5:])) + ")"


def trial(rng, prefix, budget=BUDGET):
    """Loads and runs the model at `prefix` one way; returns (outcome, detail)."""
    how = rng.choice(["eval", "eval", "train", "predictor", "predictor", "inspect"])
    old = signal.signal(signal.SIGALRM, _alarm)
    gc.collect()  # what earlier trials left in reference cycles is not this trial's peak
    tracemalloc.reset_peak()
    signal.alarm(TIME_LIMIT_S)
    try:
        with np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
            _run_model(how, prefix, rng, budget)
        outcome, detail = "ran", how
    except _Hang:
        outcome, detail = "hang", how
    except ALLOWED as e:
        text = str(e)
        base = os.path.basename(prefix)
        named = any(f"{base}{s}" in text or f"{base}." in text for s in FILES) or text.startswith("fuzz:")
        if not named or _CONTROL.search(text):
            outcome, detail = "unclear", f"{how}: {type(e).__name__}: {text[:300]}"
        elif _INTERNAL.search(text):
            outcome, detail = "internal", f"{how}: {type(e).__name__}: {text[:300]}{_where(e)}"
        else:
            outcome, detail = "rejected", type(e).__name__
    except Exception as e:  # noqa: BLE001
        outcome, detail = "crash", f"{how}: {type(e).__name__}: {str(e)[:300]}{_where(e)}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    peak = tracemalloc.get_traced_memory()[1]
    if outcome in ("ran", "rejected") and peak > PEAK_LIMIT:
        outcome, detail = "memory", f"{how}: traced peak {peak >> 20} MiB"
    return outcome, detail, peak


@contextlib.contextmanager
def frozen_heap():
    """The objects alive before (in a full pytest run, every earlier test's modules and caches) sit in gc's
    permanent generation meanwhile, so each trial's ``gc.collect()`` scans only what the trials made (the fuzz
    campaign took 50 s inside a full run, 6 s alone)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def campaign(root, seeds, n, seed=0, families=("bytes", "structure", "shapes", "budgets")):
    """Runs `n` trials; returns {'counts': {outcome: n}, 'failures': [...], 'max_peak': bytes, 'top': the three
    largest peaks with their cases}."""
    rng = random.Random(seed)
    counts, failures, max_peak, top = {}, [], 0, []
    work = os.path.join(root, "work")
    tracemalloc.start()
    try:
        for i in range(n):
            if os.path.isdir(work):
                shutil.rmtree(work)
            os.makedirs(work)
            prefix = os.path.join(work, "m")
            family = families[i % len(families)]
            seed_name = rng.choice(sorted(seeds))
            budget = BUDGET
            if family == "budgets":
                desc = mutate(rng, rng.choice(["shapes", "structure"]), prefix, seeds[seed_name])
                budget = rng.choice([1 << 10, 1 << 14, 1 << 18, 1 << 22])
            else:
                desc = mutate(rng, family, prefix, seeds[seed_name])
            outcome, detail, peak = trial(rng, prefix, budget)
            max_peak = max(max_peak, peak)
            top = sorted(top + [(peak, f"case {i} ({seed_name}, {desc}, budget {budget}): {outcome} {detail}")],
                         reverse=True)[:3]
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome not in ("ran", "rejected"):
                failures.append(f"case {i} ({seed_name}, {desc}): {outcome}: {detail}")
    finally:
        tracemalloc.stop()
    return {"counts": counts, "failures": failures, "max_peak": max_peak, "top": top}
