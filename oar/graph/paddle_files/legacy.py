"""Paddle's legacy model file: a `ProgramDesc` protocol buffer (``.pdmodel``), read into a `PaddleProgram`.

The schema lists the fields oar uses (numbers from Paddle's `framework.proto`); the rest are skipped."""
from . import wire
from .model import DTYPES, PaddleOp, PaddleProgram

_S = {
    "ProgramDesc": {1: ("blocks", "BlockDesc", True), 4: ("version", "Version", False)},
    "Version": {1: ("version", "int64", False)},
    "BlockDesc": {1: ("idx", "int32", False), 2: ("parent_idx", "int32", False), 3: ("vars", "VarDesc", True),
                  4: ("ops", "OpDesc", True)},
    "OpDesc": {3: ("type", "str", False), 1: ("inputs", "OpVar", True), 2: ("outputs", "OpVar", True),
               4: ("attrs", "Attr", True)},
    "OpVar": {1: ("parameter", "str", False), 2: ("arguments", "str", True)},
    "Attr": {1: ("name", "str", False), 2: ("type", "enum", False), 3: ("i", "int32", False),
             4: ("f", "float", False), 5: ("s", "bytes", False), 6: ("ints", "int32", True),
             7: ("floats", "float", True), 8: ("strings", "str", True), 10: ("b", "bool", False),
             11: ("bools", "bool", True), 12: ("block_idx", "int32", False), 13: ("l", "int64", False),
             14: ("blocks_idx", "int32", True), 15: ("longs", "int64", True), 16: ("float64s", "double", True),
             17: ("var_name", "str", False), 18: ("vars_name", "str", True), 19: ("float64", "double", False),
             20: ("scalar", "Scalar", False), 21: ("scalars", "Scalar", True)},
    "Scalar": {1: ("type", "enum", False), 2: ("b", "bool", False), 3: ("i", "int64", False),
               4: ("r", "double", False)},
    "VarDesc": {1: ("name", "str", False), 2: ("type", "VarType", False), 3: ("persistable", "bool", False)},
    "VarType": {1: ("type", "enum", False), 3: ("dense_tensor", "DenseTensorDesc", False)},
    "DenseTensorDesc": {1: ("tensor", "TensorDesc", False)},
    "TensorDesc": {1: ("data_type", "enum", False), 2: ("dims", "int64", True)},
}
TENSOR_DESC = (_S["TensorDesc"], _S)
# AttrType -> the field holding the value
_ATTR_FIELD = {0: "i", 1: "f", 2: "s", 3: "ints", 4: "floats", 5: "strings", 6: "b", 7: "bools", 8: "block_idx",
               9: "l", 10: "blocks_idx", 11: "longs", 12: "float64s", 13: "var_name", 14: "vars_name",
               15: "float64", 16: "scalar", 17: "scalars"}
_LIST_FIELDS = {"ints", "floats", "strings", "bools", "blocks_idx", "longs", "float64s", "vars_name", "scalars"}
_DENSE_TENSOR = 7


def _scalar(s):
    return {1: lambda: s.get("b", False), 2: lambda: s.get("i", 0), 3: lambda: s.get("r", 0.0)}.get(
        s.get("type"), lambda: None)()


def _attr(a):
    field = _ATTR_FIELD.get(a.get("type"))
    if field is None:
        return None
    value = a.get(field, [] if field in _LIST_FIELDS else None)
    if field == "s":
        value = (value or b"").decode("utf-8", "replace")
    elif field == "scalar":
        value = _scalar(value or {})
    elif field == "scalars":
        value = [_scalar(s) for s in value]
    return value


def _op(o, i):
    return PaddleOp(o.get("type", ""), {x.get("parameter", ""): x.get("arguments", []) for x in o.get("inputs", [])},
                    {x.get("parameter", ""): x.get("arguments", []) for x in o.get("outputs", [])},
                    {a.get("name", ""): _attr(a) for a in o.get("attrs", [])}, i)


def read(path, raw, max_fields):
    """The `PaddleProgram` of a legacy `.pdmodel` file's bytes: the main block's ops, and the other blocks' ops in
    `blocks` (a `while` op names its body with the ``sub_block`` attribute)."""
    try:
        desc = wire.decode(raw, _S["ProgramDesc"], _S, counter=wire.Counter(max_fields))
    except ValueError as e:
        raise ValueError(f"{path}: not a valid Paddle model file (ProgramDesc protobuf: {e})") from None
    blocks = desc.get("blocks") or []
    if not blocks or not blocks[0].get("ops"):
        raise ValueError(f"{path}: not a valid Paddle model file (no program blocks or ops)")
    prog = PaddleProgram(path, "legacy")
    block = blocks[0]
    variables = {}
    for v in block.get("vars", []):
        t = v.get("type", {})
        td = t.get("dense_tensor", {}).get("tensor", {})
        if t.get("type") == _DENSE_TENSOR:
            dtype = DTYPES.get(td.get("data_type"))
            variables[v.get("name", "")] = (dtype, list(td.get("dims", [])), bool(v.get("persistable")))
    feeds, fetches = {}, {}
    prog.blocks = {k: [_op(o, i) for i, o in enumerate(b.get("ops", []))] for k, b in enumerate(blocks) if k}
    for i, o in enumerate(block.get("ops", [])):
        op = _op(o, i)
        if op.type == "feed":
            feeds[op.attrs.get("col", 0)] = (op.outputs.get("Out") or [""])[0]
        elif op.type == "fetch":
            fetches[op.attrs.get("col", 0)] = op.one("X")
        else:
            prog.ops.append(op)
    for col in sorted(feeds):
        name = feeds[col]
        if name not in variables or variables[name][0] is None:
            raise ValueError(f"{path}: feed {name!r:.80} is not a tensor variable of the program")
        prog.feeds.append((name, variables[name][0], variables[name][1]))
    prog.fetches = [fetches[c] for c in sorted(fetches)]
    for name, (dtype, dims, persistable) in variables.items():
        if persistable and name not in ("feed", "fetch"):
            if dtype is None:
                raise ValueError(f"{path}: parameter {name!r:.80} has an element type oar does not know")
            prog.params[name] = (dtype, dims)
    return prog
