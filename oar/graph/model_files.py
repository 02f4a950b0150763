"""Reading and writing the saved-model files (format in docs/format.md): `.pdmodel` (program JSON + feeds,
fetches, output structure), `.pdiparams` (safetensors weights), `.pdiparams.info` (parameter metadata JSON).

Writes replace the files of a model together (`oar.core.safe_files.write_files`: temporary files, a commit
record, renames); every file of one save carries the same ``save_id``, so a set mixing two saves (copied by hand,
or cut by a crash of an older oar) is refused. Reads go through `committed_path` (the new version of a save killed
after its commit point), never execute code from the files and check everything before use: a missing, truncated,
corrupted, mixed or hostile file raises `ValueError` naming the file and what is wrong.
"""
import json
import os
import re
import uuid

from ..core import dtype as D
from ..core import safetensors_file
from ..core.safe_files import committed_path, parse_cost, regular_file, write_files  # noqa: F401  (saves)
from . import budget as B
from ..ir.serialize import _check_shape, _is_int
from . import serialize as S

MODEL_FORMAT, MODEL_FORMAT_VERSION = "oar.model", 2
MODEL_FORMAT_VERSIONS = (1, 2)  # readable versions (changelog in docs/format.md)
INFO_FORMAT, INFO_FORMAT_VERSION = "oar.params_info", 1
MAX_JSON_BYTES = 256 << 20  # a program file; what parsing it may cost is bounded by the load budget (parse_cost)
MAX_INFO_COST = 1 << 30  # parse_cost bound of a .pdiparams.info file when no load budget is given
SAVE_ID_KEY = "oar_save_id"  # the .pdiparams metadata key of the save id
_SAVE_ID = re.compile(r"[0-9a-f]{32}")
_DTYPES = frozenset(d.name for d in D.ALL)


def _is_dtype(x):
    return isinstance(x, str) and x in _DTYPES


class ModelRecord:
    """One saved method: its program(s), feed/fetch specs and how outputs nest."""

    __slots__ = ("program", "infer_program", "inputs", "outputs", "structure", "params", "method", "train",
                 "save_id")

    def __init__(self, program, infer_program, inputs, outputs, structure, params, method="forward", train=False,
                 save_id=None):
        self.program, self.infer_program = program, infer_program
        self.inputs, self.outputs, self.structure = inputs, outputs, structure
        self.params, self.method, self.train = params, method, train
        self.save_id = save_id  # the save that wrote the file (None: built here, or written by an older oar)

    @property
    def input_names(self):
        return [i["name"] for i in self.inputs]

    @property
    def output_names(self):
        return [o["name"] for o in self.outputs]


def file_names(prefix, method="forward"):
    """(pdmodel, pdiparams) paths for `method` under `prefix`; a Paddle 3 model saved in PIR form has
    ``prefix.json`` in place of ``prefix.pdmodel``."""
    stem = prefix if method == "forward" else f"{prefix}.{method}"
    model = stem + ".pdmodel"
    if not os.path.exists(model) and os.path.exists(stem + ".json"):
        model = stem + ".json"
    return model, stem + ".pdiparams"


# ---- writing --------------------------------------------------------------------------------------------------
def new_save_id():
    """A fresh id for the files of one save (written into each, compared when they are read together)."""
    return uuid.uuid4().hex


def encode_weights(arrays, save_id=None):
    """safetensors bytes of a name -> ndarray dict, tagged with `save_id` (see `new_save_id`)."""
    return safetensors_file.encode(arrays, {SAVE_ID_KEY: save_id} if save_id else None)


def _clipped(d):
    """A program dict without its extra information (op source locations, pass provenance)."""
    d = dict(d, provenance=[])
    d["blocks"] = [dict(b, ops=[dict(op, loc=None) for op in b["ops"]]) for b in d["blocks"]]
    return d


def encode_record(rec, clip_extra=False):
    """The .pdmodel bytes of `rec` (UTF-8 JSON, format in docs/format.md), tagged with `rec.save_id`."""
    conv = _clipped if clip_extra else (lambda d: d)
    model = {"format": MODEL_FORMAT, "version": MODEL_FORMAT_VERSION,
             "program": conv(S.program_to_dict(rec.program)),
             "inputs": rec.inputs, "outputs": rec.outputs, "output_structure": rec.structure,
             "params": list(rec.params), "method": rec.method, "train": bool(rec.train)}
    if rec.save_id:
        model["save_id"] = rec.save_id
    if rec.infer_program is not None and rec.infer_program is not rec.program:
        model["infer_program"] = conv(S.program_to_dict(rec.infer_program))
    return json.dumps(model, separators=(",", ":")).encode("utf-8")


def encode_info(info, save_id=None):
    """The .pdiparams.info bytes: var name -> {structured_name, shape, dtype, flags}, tagged with `save_id`."""
    doc = {"format": INFO_FORMAT, "version": INFO_FORMAT_VERSION, "params": info}
    if save_id:
        doc["save_id"] = save_id
    return json.dumps(doc, indent=1, sort_keys=True).encode("utf-8")


# ---- reading --------------------------------------------------------------------------------------------------
def _bad(path, msg):
    return ValueError(f"{path}: {msg}")


def mixed_saves(path, other, a, b):
    """The error for files of one model written by two different saves (ids `a` of `path`, `b` of `other`)."""
    return _bad(path, f"written by another save than {other} (save ids {a[:8]}... and {b[:8]}...): this model's "
                      "files come from two saves (copied together, or a save by an older oar was interrupted); "
                      "save the model again")


def _save_id(path, v):
    if v is not None and not (isinstance(v, str) and _SAVE_ID.fullmatch(v)):
        raise _bad(path, f"'save_id' must be 32 hex digits, got {v!r:.40}")
    return v


def _committed(path, what):
    """The file holding `path`'s committed content (see the module docstring); ValueError when the last save
    deleted it."""
    src = committed_path(path)
    if src is None:
        raise _bad(path, f"{what} file not found (the last save removed it)")
    return src


def read_json(path, what, budget=None):
    """Parses a JSON file with a size limit and, under a `budget`, a bound on what parsing costs (checked before
    parsing); every failure is a ValueError naming the file."""
    src = _committed(path, what)
    size = regular_file(src, what)
    if size > MAX_JSON_BYTES:
        raise _bad(path, f"{what} file is {size} bytes, over the {MAX_JSON_BYTES}-byte limit")
    try:
        with open(src, "rb") as f:
            raw = f.read(size + 1)  # (a file that grew since stat is cut, and then fails to parse)
    except OSError as e:
        raise _bad(path, f"cannot read the {what} file ({e.strerror or e})") from None
    if budget is not None and budget.max_bytes is not None and parse_cost(raw) > budget.max_bytes:
        raise _bad(path, f"parsing this {size}-byte {what} file could take up to {B.human(parse_cost(raw))}, over "
                         f"the load budget of {B.human(budget.max_bytes)} (raise it with max_bytes=)")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _bad(path, f"not a valid {what} file (corrupted or truncated JSON: {e})") from None
    except RecursionError:
        raise _bad(path, f"not a valid {what} file (JSON nested too deeply)") from None


def _spec_list(path, d, key, block):
    items = d.get(key)
    if not isinstance(items, list):
        raise _bad(path, f"'{key}' must be a list of {{name, shape, dtype}}")
    for i, s in enumerate(items):
        if not (isinstance(s, dict) and isinstance(s.get("name"), str) and _is_dtype(s.get("dtype"))):
            raise _bad(path, f"{key}[{i}] must be {{name: str, shape: [int], dtype: dtype name}}, got {s!r:.120}")
        try:
            _check_shape(s.get("shape"), f"{key}[{i}]")
        except ValueError as e:
            raise _bad(path, str(e)) from None
        if s["name"] not in block.vars:
            raise _bad(path, f"{key}[{i}] names variable {s['name']!r:.80}, which the program does not declare")
    return items


def _check_structure(path, s, n, depth=0):
    if depth > 32:
        raise _bad(path, "output_structure nested too deeply")
    if s is None or (isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n):
        return
    if isinstance(s, list):
        for x in s:
            _check_structure(path, x, n, depth + 1)
        return
    if isinstance(s, dict) and len(s) == 1 and isinstance(s.get("tuple"), list):
        return _check_structure(path, s["tuple"], n, depth + 1)
    if isinstance(s, dict) and len(s) == 1 and isinstance(s.get("dict"), list):
        for kv in s["dict"]:
            if not (isinstance(kv, list) and len(kv) == 2 and isinstance(kv[0], str)):
                raise _bad(path, "output_structure dict entries must be [key, structure]")
            _check_structure(path, kv[1], n, depth + 1)
        return
    raise _bad(path, f"output_structure entry {s!r:.60} is not an output index (0..{n - 1}), list, tuple or dict")


def _program(path, d, key):
    try:
        return S.program_from_dict(d[key])
    except (ValueError, TypeError, KeyError) as e:
        raise _bad(path, f"invalid '{key}': {e}") from None


def read_record(pdmodel, budget=None):
    """Parses and validates a .pdmodel file into a `ModelRecord` (programs without weights); under a `budget`
    (`oar.graph.budget.Budget`) the parse cost and what the programs declare they allocate are checked too."""
    from . import paddle_files
    if paddle_files.sniff(pdmodel):
        return paddle_files.read_record(pdmodel, budget)[0]
    budget = budget.with_source(pdmodel) if budget is not None else None
    d = read_json(pdmodel, "model (.pdmodel)", budget)
    if not isinstance(d, dict) or d.get("format") != MODEL_FORMAT:
        raise _bad(pdmodel, f"not an oar model file (expected format {MODEL_FORMAT!r})")
    if not _is_int(d.get("version")) or d.get("version") not in MODEL_FORMAT_VERSIONS:
        raise _bad(pdmodel, f"model format version {d.get('version')!r:.20} is not supported (this oar reads "
                            f"versions {list(MODEL_FORMAT_VERSIONS)})")
    if "program" not in d:
        raise _bad(pdmodel, "missing 'program'")
    prog = _program(pdmodel, d, "program")
    infer = _program(pdmodel, d, "infer_program") if d.get("infer_program") is not None else prog
    for p in {id(prog): prog, id(infer): infer}.values():
        B.check_program(p, budget)
    gb = prog.global_block()
    inputs = _spec_list(pdmodel, d, "inputs", gb)
    outputs = _spec_list(pdmodel, d, "outputs", gb)
    if len({s["name"] for s in inputs}) != len(inputs):
        raise _bad(pdmodel, "'inputs' names a variable twice")
    for s in inputs + outputs:
        if s["name"] not in infer.global_block().vars:
            raise _bad(pdmodel, f"variable {s['name']!r:.80} is missing from the inference program")
    params = d.get("params")
    if not (isinstance(params, list) and all(isinstance(p, str) for p in params)):
        raise _bad(pdmodel, "'params' must be a list of variable names")
    for p in params:
        v = gb.vars.get(p)
        if v is None or not v.persistable:
            raise _bad(pdmodel, f"parameter {p!r:.80} is not a persistable variable of the program")
    _check_structure(pdmodel, d.get("output_structure"), len(outputs))
    method = d.get("method", "forward")
    if not isinstance(method, str) or not method.isidentifier():
        raise _bad(pdmodel, f"'method' must be an identifier, got {method!r:.40}")
    if not isinstance(d.get("train", False), bool):
        raise _bad(pdmodel, "'train' must be a bool")
    return ModelRecord(prog, infer, inputs, outputs, d.get("output_structure"), params, method, d.get("train", False),
                       _save_id(pdmodel, d.get("save_id")))


def read_weights(pdiparams, expect, save_id=None, pdmodel=None):
    """Reads the weights named in `expect` (name -> Variable) from a safetensors file, checking each one's
    shape and dtype against the program before anything is allocated, and that the file comes from the save
    `save_id` of the `pdmodel` file when both carry an id."""
    src = committed_path(pdiparams)
    if (src is None or not os.path.lexists(src)) and not expect:  # a program without parameters has none
        return {}
    src = _committed(pdiparams, "parameters")
    regular_file(src, "parameters")
    out = {}
    try:
        with safetensors_file.SafetensorsFile(src) as f:
            theirs = f.metadata().get(SAVE_ID_KEY)
            if save_id and theirs and theirs != save_id:
                raise mixed_saves(pdiparams, pdmodel, theirs, save_id)
            keys = set(f.keys())
            for name, var in expect.items():
                if name not in keys:
                    raise _bad(pdiparams, f"parameter {name!r} that the program reads is missing")
                shape, dt = f.shape(name), f.dtype(name)
                if len(shape) != len(var.shape) or any(a != b for a, b in zip(shape, var.shape) if b >= 0):
                    raise _bad(pdiparams, f"parameter {name!r} has shape {shape} but the program declares "
                                          f"{var.shape}")
                # (bfloat16 written by oar before BF16: its raw bits as uint16)
                if dt != var.dtype.name and not (var.dtype.name == "bfloat16" and dt == "uint16"):
                    raise _bad(pdiparams, f"parameter {name!r} has dtype {dt} but the program declares "
                                          f"{var.dtype.name}")
                a = f.get(name)
                out[name] = a.view(D.np_dtype(var.dtype)) if dt == "uint16" != var.dtype.name else a
    except ValueError:
        raise
    except BaseException as e:  # safetensors reports corruption with its own exception types, and panics
        new = safetensors_file.reading_error(pdiparams, e, "parameters file")
        if new is None:
            raise
        raise new from None
    return out


def read_info(path, budget=None, save_id=None, pdmodel=None):
    """Parses ``.pdiparams.info``: var name -> metadata dict (validated). What parsing may cost is bounded before
    parsing (by `budget`'s ``max_bytes``, else `MAX_INFO_COST`); the file must come from the save `save_id` of
    the `pdmodel` file when both carry an id."""
    if budget is None or budget.max_bytes is None:
        budget = B.Budget(max_bytes=MAX_INFO_COST)
    d = read_json(path, "parameter info (.pdiparams.info)", budget.with_source(path))
    if not (isinstance(d, dict) and d.get("format") == INFO_FORMAT and isinstance(d.get("params"), dict)):
        raise _bad(path, f"not an oar parameter info file (expected format {INFO_FORMAT!r} with 'params')")
    if not _is_int(d.get("version")) or d.get("version") != INFO_FORMAT_VERSION:
        raise _bad(path, f"parameter info version {d.get('version')!r:.20} is not supported")
    theirs = _save_id(path, d.get("save_id"))
    if save_id and theirs and theirs != save_id:
        raise mixed_saves(path, pdmodel, theirs, save_id)
    for n, m in d["params"].items():
        if not isinstance(m, dict):
            raise _bad(path, f"entry {n!r:.60} must be an object")
        sn = m.get("structured_name")
        if sn is not None and not isinstance(sn, str):
            raise _bad(path, f"entry {n!r:.60}: structured_name must be a string or null")
        for f in ("stop_gradient", "trainable", "is_parameter"):
            if not isinstance(m.get(f, False), bool):
                raise _bad(path, f"entry {n!r:.60}: {f} must be a bool")
        if not _is_dtype(m.get("dtype", "float32")):
            raise _bad(path, f"entry {n!r:.60}: unknown dtype {m.get('dtype')!r:.30}")
        try:
            _check_shape(m.get("shape", []), f"entry {n!r:.60}")
        except ValueError as e:
            raise _bad(path, str(e)) from None
    return d["params"]


def load_files(pdmodel, pdiparams, budget=None):
    """(ModelRecord, weights) for one method: the record validated, the weights checked against it. Paddle's own
    model files (legacy protobuf or PIR JSON) are translated (`oar.graph.paddle_files`)."""
    from . import paddle_files
    if paddle_files.sniff(pdmodel):
        return paddle_files.load_files(pdmodel, pdiparams, budget)
    rec = read_record(pdmodel, budget)
    gb = rec.program.global_block()
    return rec, read_weights(pdiparams, {n: gb.vars[n] for n in rec.params}, rec.save_id, pdmodel)
