"""Paddle 3's PIR model file (``.json``: ``{"base_code": {"magic": "pir", ...}, "program": {"regions": ...}}``),
read into a `PaddleProgram`.

Each op is ``{"#": "<dialect>.<name>", "I": [{"%": id}], "O": [{"%": id, "TT": type}], "A": [attrs]}``; values are
numbered. Values get the names of what they are (a feed's name, a parameter's name) or ``%id``."""
import numpy as np

from .model import PaddleOp, PaddleProgram

VERSIONS = (1, 2, 3, 4, 5, 6)  # the PIR serialization versions whose op encoding oar reads
_TYPES = {"t_f16": "float16", "t_bf16": "bfloat16", "t_f32": "float32", "t_f64": "float64", "t_i8": "int8",
          "t_ui8": "uint8", "t_i16": "int16", "t_i32": "int32", "t_i64": "int64", "t_bool": "bool",
          "t_c64": "complex64", "t_c128": "complex128"}


def _kind(tag):
    return tag.split(".", 1)[-1] if isinstance(tag, str) else ""


def _op_type(tag):
    """An op's type: its name in Paddle's op dialect (``1.conv2d`` -> ``conv2d``), ``builtin.<name>`` in the
    builtin dialect (``0.combine``)."""
    if not isinstance(tag, str):
        return ""
    return "builtin." + _kind(tag) if tag.startswith("0.") else _kind(tag)


def _attr(at, depth=0):
    if not isinstance(at, dict) or depth > 8:
        raise ValueError("an attribute is not {'#': type, 'D': data}")
    data = at.get("D")
    if _kind(at.get("#")) == "a_array":
        if not isinstance(data, list):
            raise ValueError("an array attribute's data is not a list")
        return [_attr(x, depth + 1) for x in data]
    return data


def _tensor_type(tt):
    """(dtype name, dims) of a ``0.t_dtensor`` type, or None for other types."""
    if not isinstance(tt, dict) or _kind(tt.get("#")) != "t_dtensor":
        return None
    d = tt.get("D")
    if not (isinstance(d, list) and len(d) >= 2 and isinstance(d[0], dict) and isinstance(d[1], list)):
        raise ValueError("a tensor type is not [element type, dims, ...]")
    dtype = _TYPES.get(_kind(d[0].get("#")))
    if dtype is None or not all(isinstance(n, int) and not isinstance(n, bool) for n in d[1]):
        raise ValueError(f"unsupported tensor type {d[0].get('#')!r:.40}")
    return dtype, list(d[1])


def read(path, doc):
    """The `PaddleProgram` of a parsed PIR ``.json`` document."""
    def bad(msg):
        return ValueError(f"{path}: {msg}")
    base = doc.get("base_code") if isinstance(doc, dict) else None
    if not isinstance(base, dict) or base.get("magic") != "pir":
        raise bad("not a Paddle PIR model file (no base_code.magic 'pir')")
    if base.get("version") not in VERSIONS:
        raise bad(f"Paddle PIR format version {base.get('version')!r:.20} is not supported (oar reads "
                  f"{list(VERSIONS)})")
    try:
        ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
        if not isinstance(ops, list):
            raise TypeError
    except (KeyError, IndexError, TypeError):
        raise bad("not a valid Paddle PIR model file (no program.regions[0].blocks[0].ops list)") from None
    prog = PaddleProgram(path, "pir")
    names, fetches = {}, {}

    def name_of(ref):
        if not (isinstance(ref, dict) and isinstance(ref.get("%"), int)):
            raise ValueError("an op input is not a value reference {'%': id}")
        return names.get(ref["%"], f"%{ref['%']}") if ref["%"] else None  # id 0: an absent optional input

    def block_ops(ops, depth):
        """The PaddleOps of one block; control-flow ops carry their regions' blocks as
        ``attrs['regions']``: [(block argument names, ops)]."""
        out = []
        for i, o in enumerate(ops):
            try:
                op = one_op(i, o, depth)
            except ValueError as e:
                raise bad(f"op #{i} ({o.get('#') if isinstance(o, dict) else '?'!r:.40}): {e}") from None
            if op is not None:
                out.append(op)
        return out

    def one_op(i, o, depth):
        if not isinstance(o, dict):
            raise ValueError("an op is not an object")
        tag = o.get("#")
        outs = o.get("O", [])
        outs = [outs] if isinstance(outs, dict) else outs
        if not isinstance(outs, list) or not all(isinstance(r, dict) for r in outs):
            raise ValueError("an op's outputs are not a list of values")
        if tag == "p":  # a parameter: A = [.., .., .., name]
            a = o.get("A")
            if not (isinstance(a, list) and a and isinstance(a[-1], str) and len(outs) == 1):
                raise ValueError("a parameter op is not {A: [..., name], O: value}")
            t = _tensor_type(outs[0].get("TT"))
            if t is None:
                raise ValueError(f"parameter {a[-1]!r:.80} is not a dense tensor")
            names[outs[0]["%"]] = a[-1]
            prog.params[a[-1]] = t
            return None
        op_type = _op_type(tag)
        attrs = {}
        for a in o.get("A", []):
            if not (isinstance(a, dict) and isinstance(a.get("N"), str)):
                raise ValueError("an attribute is not {N: name, AT: value}")
            attrs[a["N"]] = _attr(a.get("AT"))
        if op_type == "data":
            name, t = attrs.get("name"), _tensor_type(outs[0].get("TT")) if outs else None
            if not isinstance(name, str) or t is None:
                raise ValueError("a data op without a name or a tensor type")
            names[outs[0]["%"]] = name
            prog.feeds.append((name, t[0], t[1]))
            return None
        inputs = {k: [name_of(r)] for k, r in enumerate(o.get("I", []))}
        if op_type == "fetch":
            fetches[attrs.get("col", len(fetches))] = inputs[0][0]
            return None
        outputs = {k: [name_of({"%": r.get("%")})] for k, r in enumerate(outs)}
        if "regions" in o:
            if depth >= 32:
                raise ValueError("control flow nested too deeply")
            regions = o["regions"]
            if not isinstance(regions, list):
                raise ValueError("'regions' is not a list")
            attrs["regions"] = []
            for r in regions:
                blocks = r.get("blocks") if isinstance(r, dict) else None
                if not (isinstance(blocks, list) and len(blocks) == 1 and isinstance(blocks[0], dict)
                        and isinstance(blocks[0].get("ops"), list)):
                    raise ValueError("a region is not one block with an ops list")
                # block arguments (a loop body's values) are numbered negatively: {"#": -1, "TT": type}
                args = [name_of({"%": a.get("#")} if isinstance(a, dict) else a) for a in blocks[0].get("args", [])]
                attrs["regions"].append((args, block_ops(blocks[0]["ops"], depth + 1)))
        op = PaddleOp(op_type, inputs, outputs, attrs, i)
        if op_type in ("full_int_array", "full") and outputs:
            prog.consts[outputs[0][0]] = _constant(op_type, attrs)
        return op

    prog.ops = block_ops(ops, 0)
    prog.fetches = [fetches[c] for c in sorted(fetches, key=lambda c: c if isinstance(c, int) else 0)]
    return prog


def _constant(op_type, attrs):
    value = attrs.get("value")
    if op_type == "full_int_array":
        return np.asarray(value if isinstance(value, list) else [], dtype=np.int64)
    shape = attrs.get("shape") or []
    dtype = str(attrs.get("dtype", "float32"))
    return np.full(shape, value if isinstance(value, (int, float, bool)) else 0, dtype=dtype)
