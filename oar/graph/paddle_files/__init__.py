"""Paddle's own model files, loaded as oar models: the legacy format (``.pdmodel`` = a `ProgramDesc` protobuf)
and Paddle 3's PIR format (``.json``), each with its combined ``.pdiparams``.

`load_files` returns what `oar.graph.model_files.load_files` returns for oar's own files (a `ModelRecord` and the
weights), so `jit.load`, the predictor, `oar serve`, `oar.lite` and ONNX export run them unchanged. Nothing in a
file is executed; sizes are checked before anything is allocated; an op type oar cannot translate is refused
naming the file and the op.

Example:
    >>> from oar.graph.paddle_files import sniff
    >>> sniff("model.json"), sniff("no-such-file.pdmodel")
    ('pir', None)
"""
import json
import os

from ...core.safe_files import parse_cost, regular_file
from .. import budget as B
from ..model_files import MAX_JSON_BYTES, ModelRecord
from . import legacy, params, pir, translate

MAX_MODEL_BYTES = 256 << 20
_PROTOBUF_FIRST_BYTE = 0x0A  # ProgramDesc field 1 (blocks), length-delimited


def sniff(path):
    """'pir' for a ``.json`` model, 'legacy' for a ProgramDesc protobuf, None for anything else (oar's own JSON
    model files, missing files)."""
    if path.endswith(".json"):
        return "pir"
    if not os.path.isfile(path):  # (a FIFO or device would block the read: the loaders refuse those by name)
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(1)
    except OSError:
        return None
    return "legacy" if head and head[0] == _PROTOBUF_FIRST_BYTE else None


def _read(path, what, budget):
    size = regular_file(path, what)
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"{path}: {what} file is {size} bytes, over the {MAX_MODEL_BYTES}-byte limit")
    with open(path, "rb") as f:
        return f.read(size + 1)


def read_program(path, budget=None):
    """The `PaddleProgram` in `path` (either format), checked against the load `budget`."""
    fmt = sniff(path)
    raw = _read(path, "Paddle model", budget)
    limit = budget.max_bytes if budget is not None and budget.max_bytes is not None else None
    if fmt == "legacy":
        # a decoded field costs ~100-200 bytes of Python objects: bound the count by the budget
        return legacy.read(path, raw, 10_000_000 if limit is None else max(10_000, limit // 256))
    if len(raw) > MAX_JSON_BYTES or (limit is not None and parse_cost(raw) > limit):
        raise ValueError(f"{path}: parsing this {len(raw)}-byte Paddle model file is over the load budget of "
                         f"{B.human(limit)}")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ValueError(f"{path}: not a valid Paddle PIR model file (JSON: {e})") from None
    return pir.read(path, doc)


def _spec(v):
    return {"name": v.name, "shape": list(v.shape), "dtype": v.dtype.name}


def read_record(pdmodel, budget=None):
    """(ModelRecord, PaddleProgram) of a Paddle model file: its program translated and checked against the load
    `budget`, without the weights."""
    budget = budget.with_source(pdmodel) if budget is not None else None
    prog = read_program(pdmodel, budget)
    main, inputs, outputs = translate.build(prog)
    B.check_program(main, budget)
    structure = 0 if len(outputs) == 1 else list(range(len(outputs)))
    rec = ModelRecord(main, main, [_spec(v) for v in inputs], [_spec(v) for v in outputs], structure,
                      sorted(prog.params))
    return rec, prog


def load_files(pdmodel, pdiparams, budget=None):
    """(ModelRecord, weights) of a Paddle model: its program translated, its parameters checked and read."""
    rec, prog = read_record(pdmodel, budget)
    weights = {}
    if prog.params:
        regular_file(pdiparams, "parameters")
        weights = params.read(pdiparams, prog.param_order(), prog.params)
    return rec, weights


def model_file(prefix):
    """The model file saved under `prefix`: oar's or Paddle's legacy ``.pdmodel``, else Paddle 3's ``.json``."""
    return prefix + ".json" if not os.path.exists(prefix + ".pdmodel") and os.path.exists(prefix + ".json") \
        else prefix + ".pdmodel"
