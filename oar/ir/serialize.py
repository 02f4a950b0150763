"""Program <-> JSON-safe dict, lossless and versioned, with a validator for untrusted input.

The dict (format in `docs/format.md`) holds only JSON values: blocks in order, each with its variables
and operators; op attributes are plain JSON values and sub-blocks are referenced by block index. The
user source location of every op (`Operator.loc`) is kept. `validate(d)` checks a dict that came from
a file before anything is built from it, against a schema of the op types (`schema.py`): unknown op types,
dangling variable names, wrong field types and
absurd shapes raise `ValueError` with the path of the offending field. Text from a file (variable names,
attribute strings) may hold no control characters, and source locations are cleaned (`clean_text`) before they
can reach an error message or a terminal.

Example:
    >>> d = program_to_dict(main)
    >>> p = program_from_dict(json.loads(json.dumps(d)), schema)
    >>> str(p) == str(main)
    True
"""
import re

from ..core import dtype as D

FORMAT = "oar.program"
FORMAT_VERSION = 1
SUPPORTED_VERSIONS = (1,)

MAX_BLOCKS = 10_000
MAX_BLOCK_DEPTH = 64            # sub-block nesting: compiling recurses once per level
MAX_OPS = 50_000                # over all blocks: loading and compiling cost ~0.2 ms per op
MAX_NAME_CHARS = 1024
MAX_RANK = 32
MAX_ELEMENTS = 2 ** 32  # per variable (known dims only) and per `shape` attribute: bounds what loading allocates
MAX_ATTR_DEPTH = 32
_DTYPES = frozenset(d.name for d in D.ALL)
# ops whose attributes point at objects of the process that built them (a dy2static runner): never in a file
PROCESS_LOCAL_OPS = frozenset({"run_program", "run_program_grad"})
_VAR_FLAGS = ("persistable", "stop_gradient", "is_parameter", "trainable", "is_data")


class _Trusted(dict):
    """A dict made by `program_to_dict(check=False)` in this process (Program.clone): skip validation."""


# ---- Program -> dict ------------------------------------------------------------------------------------------
def program_to_dict(program, check=True, schema=None):
    """The Program as a dict of JSON values (tuples become lists, NumPy scalars Python numbers, dtypes names).

    Args:
        program: the `Program`.
        check: reject attribute values that are not JSON values, and validate the result against `schema`
            when one is given. `Program.clone` passes False: values then pass through unchanged, for an
            in-memory copy only.
        schema: op type -> `OpSchema`.
    """
    conv = _json_value if check else _loose_value
    blocks = []
    for b in program.blocks:
        vars_ = []
        for v in b.vars.values():
            vd = {"name": v.name, "shape": [int(s) for s in v.shape], "dtype": v.dtype.name}
            for f in _VAR_FLAGS:
                vd[f] = bool(getattr(v, f))
            if v.attrs:
                vd["attrs"] = {str(k): conv(a, f"var {v.name} attr {k}") for k, a in v.attrs.items()}
            vars_.append(vd)
        ops = []
        for i, op in enumerate(b.ops):
            where = f"block {b.idx} op {i} ({op.type})"
            od = {"type": op.type,
                  "inputs": {str(k): [str(n) for n in ns] for k, ns in op.inputs.items()},
                  "outputs": {str(k): [str(n) for n in ns] for k, ns in op.outputs.items()},
                  "attrs": {str(k): conv(a, f"{where} attr {k!r}") for k, a in op.attrs.items()},
                  "loc": None if op.loc is None else [str(op.loc[0]), int(op.loc[1]), str(op.loc[2])]}
            if op.role is not None:
                od["role"] = op.role
            ops.append(od)
        blocks.append({"idx": b.idx, "parent_idx": b.parent_idx, "vars": vars_, "ops": ops})
    d = {"format": FORMAT, "version": FORMAT_VERSION, "random_seed": int(program.random_seed or 0),
         "name_counters": dict(program._names), "provenance": [str(p) for p in program.provenance],
         "blocks": blocks}
    if not check:
        return _Trusted(d)
    if schema is not None:
        validate(d, schema)
    return d


def _json_value(a, where, depth=0):
    if depth > MAX_ATTR_DEPTH:
        raise ValueError(f"{where}: value nested deeper than {MAX_ATTR_DEPTH} levels")
    if a is None or isinstance(a, (bool, str)):
        return a
    if isinstance(a, D.DType):
        return a.name
    if isinstance(a, int):
        return int(a)
    if isinstance(a, float):
        return float(a)
    if isinstance(a, (list, tuple)):
        return [_json_value(x, where, depth + 1) for x in a]
    if isinstance(a, dict) and all(isinstance(k, str) for k in a):
        return {k: _json_value(x, where, depth + 1) for k, x in a.items()}
    np_item = getattr(a, "item", None)
    if callable(np_item) and getattr(a, "shape", None) == ():  # NumPy scalar / 0-d array
        return _json_value(np_item(), where, depth + 1)
    if type(a).__module__ == "numpy" and hasattr(a, "tolist"):
        return _json_value(a.tolist(), where, depth + 1)
    raise TypeError(f"{where}: {type(a).__name__} value {a!r:.80} is not a JSON value; op attributes must be "
                    "None, bool, int, float, str, or lists/dicts of them (dtypes as names)")


def _loose_value(a, where):
    try:
        return _json_value(a, where)
    except (TypeError, ValueError):
        return a


# ---- dict -> Program ------------------------------------------------------------------------------------------
def program_from_dict(d, schema=None, program_class=None):
    """Builds a Program from a dict made by `program_to_dict` (or read from a file); validates it first.

    Args:
        d: the dict.
        schema: op type -> `OpSchema`, needed unless `d` came from ``program_to_dict(check=False)``.
        program_class: the `Program` (sub)class to build; its ``var_class`` makes the variables.
    """
    from .program import Block, Program
    trusted = isinstance(d, _Trusted)
    if not trusted:
        if schema is None:
            raise TypeError("program_from_dict: a dict from outside this process needs the op schema to validate it")
        validate(d, schema)
    p = (program_class or Program)()
    p.blocks = []
    for bd in d["blocks"]:
        b = Block(p, bd["idx"], bd["parent_idx"])
        p.blocks.append(b)
        for vd in bd["vars"]:
            v = p.var_class(b, vd["name"], vd["shape"], vd["dtype"],
                         **{f: vd.get(f, f == "stop_gradient" or f == "trainable") for f in _VAR_FLAGS})
            v.attrs = _copy(vd.get("attrs") or {})
            b.vars[v.name] = v
        for od in bd["ops"]:
            loc = od.get("loc")
            ins = od["inputs"]
            if not trusted:  # kernels take inputs in slot order, whatever order the file lists them in
                order = [s.rstrip("*") for s in schema[od["type"]].inputs]
                ins = {k: ins[k] for k in order if k in ins}
                loc = None if loc is None else [clean_text(loc[0], 260), loc[1], clean_text(loc[2], 200)]
            op = b.append_op(od["type"], {k: list(ns) for k, ns in ins.items()},
                             {k: list(ns) for k, ns in od["outputs"].items()}, _copy(od.get("attrs") or {}),
                             None if loc is None else (loc[0], loc[1], loc[2]))
            op.role = od.get("role")
    p.random_seed = d.get("random_seed", 0)
    p._names = dict(d.get("name_counters") or {})
    p.provenance = list(d.get("provenance") or [])
    return p


def clean_text(text, limit=200):
    """`text` from a file made safe to print: control characters (terminal escape sequences) shown as ``?``,
    cut to `limit` characters.

    Example:
        >>> clean_text("x = 1\x1b[2J" + "y" * 300, 12)
        'x = 1?[2Jyyy...'
    """
    text = _CONTROL.sub("?", str(text))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _copy(a):
    if isinstance(a, list):
        return [_copy(x) for x in a]
    if isinstance(a, dict):
        return {k: _copy(x) for k, x in a.items()}
    return a


# ---- validation -----------------------------------------------------------------------------------------------
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_NOT_SPACE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _need(cond, where, msg):
    if not cond:
        raise ValueError(f"invalid program: {where}: {msg}")


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _check_json(a, where, depth=0):
    _need(depth <= MAX_ATTR_DEPTH, where, f"value nested deeper than {MAX_ATTR_DEPTH} levels")
    if isinstance(a, str):
        _need(not _CONTROL_NOT_SPACE.search(a), where, f"string {clean_text(a, 60)!r} holds control characters")
        return
    if a is None or isinstance(a, (bool, int, float)):
        return
    if isinstance(a, list):
        for x in a:
            _check_json(x, where, depth + 1)
        return
    if isinstance(a, dict):
        for k, x in a.items():
            _need(isinstance(k, str), where, "dict keys must be strings")
            _check_json(x, where, depth + 1)
        return
    _need(False, where, f"{type(a).__name__} is not a JSON value")


def _check_shape(shape, where):
    _need(isinstance(shape, list), where, f"shape must be a list of ints, got {type(shape).__name__}")
    _need(len(shape) <= MAX_RANK, where, f"rank {len(shape)} exceeds the limit {MAX_RANK}")
    n = 1
    for s in shape:
        _need(_is_int(s) and s >= -1, where, f"shape {shape!r:.100} must hold ints >= -1 (-1 = unknown)")
        _need(s <= MAX_ELEMENTS, where, f"shape {shape!r:.100} has a dim of more than {MAX_ELEMENTS} elements")
        if s > 0:
            n *= s
            _need(n <= MAX_ELEMENTS, where, f"shape {shape} has more than {MAX_ELEMENTS} elements")


def op_types(d):
    """The op type names a program dict uses (whatever its shape: it has not been validated yet)."""
    blocks = d.get("blocks") if isinstance(d, dict) else None
    return {od.get("type") for bd in (blocks if isinstance(blocks, list) else ())
            if isinstance(bd, dict) and isinstance(bd.get("ops"), list)
            for od in bd["ops"] if isinstance(od, dict) and isinstance(od.get("type"), str)}


def validate(d, schema):
    """Checks a program dict from an untrusted source; raises ValueError naming the bad field.

    `schema` maps each op type to its `OpSchema` (op types it lacks are unknown).

    Checks: the format tag and version, field types, block structure (indices, parents), variable names
    unique per block, shapes (ints >= -1, rank and size limits), dtypes, op types known to the schema,
    op slots known to the op, every input/output name declared in the op's block or an ancestor, attributes
    made of JSON values, sub-block references (attrs named ``*block``/``*blocks``) in range.
    """
    _need(isinstance(d, dict), "top level", f"expected an object, got {type(d).__name__}")
    _need(d.get("format") == FORMAT, "format", f"expected {FORMAT!r}, got {d.get('format')!r:.60}")
    v = d.get("version")
    _need(_is_int(v), "version", f"expected an int, got {v!r:.40}")
    _need(v in SUPPORTED_VERSIONS, "version",
          f"format version {v} is not supported (this oar reads {list(SUPPORTED_VERSIONS)}; newer files need a "
          "newer oar)")
    _need(_is_int(d.get("random_seed", 0)), "random_seed", "expected an int")
    nc = d.get("name_counters", {})
    _need(isinstance(nc, dict) and all(isinstance(k, str) and _is_int(x) for k, x in nc.items()),
          "name_counters", "expected an object of str -> int")
    pv = d.get("provenance", [])
    _need(isinstance(pv, list) and all(isinstance(x, str) and not _CONTROL_NOT_SPACE.search(x) for x in pv),
          "provenance", "expected a list of strings without control characters")
    blocks = d.get("blocks")
    _need(isinstance(blocks, list) and blocks, "blocks", "expected a non-empty list")
    _need(len(blocks) <= MAX_BLOCKS, "blocks", f"{len(blocks)} blocks exceed the limit {MAX_BLOCKS}")
    scopes = []
    depth = [0] * len(blocks)
    for i, bd in enumerate(blocks):
        w = f"block {i}"
        _need(isinstance(bd, dict), w, "expected an object")
        _need(bd.get("idx") == i and _is_int(bd.get("idx")), w, f"idx must be {i}, got {bd.get('idx')!r:.40}")
        par = bd.get("parent_idx")
        if i == 0:
            _need(par == -1 and _is_int(par), w, "the global block's parent_idx must be -1")
        else:
            _need(_is_int(par) and 0 <= par < i, w, f"parent_idx must be an earlier block, got {par!r:.40}")
            depth[i] = depth[par] + 1
            _need(depth[i] <= MAX_BLOCK_DEPTH, w, f"sub-blocks nested deeper than {MAX_BLOCK_DEPTH} levels")
        names = set()
        vars_ = bd.get("vars")
        _need(isinstance(vars_, list), w, "vars must be a list")
        for j, vd in enumerate(vars_):
            vw = f"{w} var {j}"
            _need(isinstance(vd, dict), vw, "expected an object")
            name = vd.get("name")
            _check_name(name, vw)
            vw = f"{w} var {name!r:.80}"
            _need(name not in names, vw, "declared twice")
            names.add(name)
            _check_shape(vd.get("shape"), vw)
            _need(isinstance(vd.get("dtype"), str) and vd.get("dtype") in _DTYPES, vw,
                  f"unknown dtype {vd.get('dtype')!r:.40}")
            for f in _VAR_FLAGS:
                _need(isinstance(vd.get(f, False), bool), vw, f"{f} must be a bool")
            at = vd.get("attrs", {})
            _need(isinstance(at, dict), vw, "attrs must be an object")
            _check_json(at, vw + " attrs")
        scopes.append((names, par))
    n_ops = 0
    for i, bd in enumerate(blocks):
        ops = bd.get("ops")
        _need(isinstance(ops, list), f"block {i}", "ops must be a list")
        n_ops += len(ops)
        _need(n_ops <= MAX_OPS, f"block {i}", f"the program has more than {MAX_OPS} ops")
        for j, od in enumerate(ops):
            _check_op(od, f"block {i} op {j}", i, scopes, schema)


def _check_name(name, where):
    _need(isinstance(name, str) and name, where, "name must be a non-empty string")
    _need(len(name) <= MAX_NAME_CHARS and not _CONTROL.search(name), where,
          f"name {clean_text(name, 60)!r} is over {MAX_NAME_CHARS} characters or holds control characters")


def _check_sub_block(k, bi, scopes, w):
    """A sub-block reference must name a later block nested inside the op's block: compiling then always moves
    to deeper blocks and cannot loop back to a block being compiled."""
    _need(_is_int(k) and bi < k < len(scopes), w, f"sub-block reference {k!r:.40} is not a later block index")
    p = scopes[k][1]
    while p > bi:
        p = scopes[p][1]
    _need(p == bi, w, f"sub-block {k} is not nested inside block {bi}")



ROLES = (None, "backward", "optimize")


def _ints(a):
    return isinstance(a, list) and all(_is_int(x) for x in a)


def _strs(a):
    return isinstance(a, list) and all(isinstance(x, str) for x in a)


def _number(a):
    return a is None or isinstance(a, (bool, int, float))


# Attribute names shared by many ops, with the type each must have; other attributes need only be JSON values.
ATTR_TYPES = {
    **dict.fromkeys(("shape", "perm", "strides", "dilations", "ksize", "repeat_times", "sections"),
                    (_ints, "a list of ints")),
    **dict.fromkeys(("start_axis", "stop_axis", "groups", "num_rows", "num_columns", "first_n", "summarize"),
                    (_is_int, "an int")),
    **dict.fromkeys(("keepdim", "transpose_x", "transpose_y", "training", "is_test", "ceil_mode", "use_global_stats",
                     "soft_label", "bias_after_scale", "save_history"), (lambda a: isinstance(a, bool), "a bool")),
    **dict.fromkeys(("data_format", "padding_algorithm", "equation", "cond_out"),
                    (lambda a: isinstance(a, str), "a string")),
    **dict.fromkeys(("cond_in", "body_in", "body_out", "true_outs", "false_outs", "carried"),
                    (_strs, "a list of names")),
    **dict.fromkeys(("epsilon", "momentum", "scale", "bias", "value", "min", "max"), (_number, "a number")),
    "axis": (lambda a: a is None or _is_int(a) or _ints(a), "null, an int or a list of ints"),
    "dtype": (lambda a: a is None or a in _DTYPES, "null or a dtype name"),
}


def _visible(scopes, i, name):
    while i >= 0:
        names, par = scopes[i]
        if name in names:
            return True
        i = par
    return False


def _check_op(od, w, bi, scopes, schema):
    _need(isinstance(od, dict), w, "expected an object")
    t = od.get("type")
    _need(isinstance(t, str), w, "type must be a string")
    opdef = schema.get(t)
    _need(opdef is not None, w, f"unknown op type {t!r:.80} (not in this oar's op registry)")
    _need(t not in PROCESS_LOCAL_OPS, w, f"op {t!r} refers to objects of the process that built it and cannot be "
                                         "saved or loaded")
    w = f"{w} ({t})"
    for field, slots in (("inputs", opdef.inputs), ("outputs", opdef.outputs)):
        known = {s.rstrip("*") for s in slots}
        m = od.get(field)
        _need(isinstance(m, dict), w, f"{field} must be an object of slot -> [names]")
        for slot, ns in m.items():
            _need(slot in known, w, f"{field} slot {slot!r:.40} is not one of {sorted(known)}")
            _need(isinstance(ns, list) and all(isinstance(n, str) for n in ns), w,
                  f"{field}[{slot!r}] must be a list of variable names")
            listed = opdef.lowered or (slot + "*") in slots or (field == "inputs" and opdef.variadic)
            _need(listed or len(ns) == 1, w, f"{field}[{slot!r}] must name exactly one variable, got {len(ns)}")
            for n in ns:
                _need(_visible(scopes, bi, n), w, f"{field[:-1]} variable {n!r:.80} is not declared in block {bi} "
                                                  "or its parents (dangling reference)")
    at = od.get("attrs", {})
    _need(isinstance(at, dict), w, "attrs must be an object")
    accepted = opdef.attr_names()
    owned = set()
    for k, a in at.items():
        if accepted is not None and k not in accepted:
            _need(False, w, f"attribute {k!r:.40} is not one of the op's {sorted(accepted)}")
        _check_json(a, f"{w} attr {k!r}")
        rule = opdef.attr_types.get(k) or ATTR_TYPES.get(k)
        if rule is not None:
            _need(rule[0](a), w, f"attribute {k!r} must be {rule[1]}, got {a!r:.60}")
        if k in opdef.name_attrs:  # names of sub-block variables
            _need(isinstance(a, str) or _strs(a), w, f"attribute {k!r} must be a name or a list of names")
            for n in ([a] if isinstance(a, str) else a):
                _need(any(n in names for names, _ in scopes), w, f"attribute {k!r} names {n!r:.80}, which no "
                                                                 "block declares")
        if k == "shape" and isinstance(a, list) and all(_is_int(x) for x in a):
            _check_shape(a, f"{w} attr 'shape'")
        if k in opdef.block_attrs and a is not None:  # one sub-block index, or a list of them
            for x in (a if isinstance(a, list) else [a]):
                _check_sub_block(x, bi, scopes, f"{w} attr {k!r}")
                _need(x not in owned, w, f"sub-block {x} is referenced twice by the op")
                owned.add(x)
    if not opdef.variadic and not opdef.lowered:  # inputs fill the kernel's leading parameters in slot order: no gaps
        present = [s.rstrip("*") in od["inputs"] for s in opdef.inputs]
        _need(present == sorted(present, reverse=True), w, f"inputs {sorted(od['inputs'])} leave a gap in the "
                                                            f"op's slots {list(opdef.inputs)}")
    sig = None if opdef.lowered else opdef.signature
    if not opdef.lowered:  # the kernel returns every output
        missing = [s for s in opdef.outputs if s.rstrip("*") not in od["outputs"]]
        _need(not missing, w, f"output slots {missing} are missing")
    if sig is None and not opdef.lowered and not opdef.variadic:  # a ufunc kernel: every slot is needed
        missing = [s for s in opdef.inputs if s.rstrip("*") not in od["inputs"]]
        _need(not missing, w, f"input slots {missing} are missing")
    if sig is not None:
        n_in = sum(len(ns) for ns in od["inputs"].values())
        try:
            sig.bind(*range(n_in), **at)
        except TypeError as e:
            _need(False, w, f"inputs and attributes do not fit the op ({e})")
    if opdef.check is not None:
        problem = opdef.check(od["inputs"], od["outputs"], at)
        _need(problem is None, w, problem)
    _need(od.get("role") in ROLES, w, f"role must be one of {list(ROLES)}, got {od.get('role')!r:.40}")
    loc = od.get("loc")
    if loc is not None:
        _need(isinstance(loc, list) and len(loc) == 3 and isinstance(loc[0], str) and _is_int(loc[1])
              and isinstance(loc[2], str), w, "loc must be null or [file, line, source]")
