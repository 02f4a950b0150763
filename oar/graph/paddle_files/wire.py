"""A reader of the protocol-buffer wire format, driven by a schema: what Paddle's legacy `.pdmodel`
(`ProgramDesc`) and the tensor headers of `.pdiparams` are written in.

Only the fields the schema names are decoded; the others are skipped. Every length is checked against the bytes
that hold it, nesting is bounded by the schema, and the number of fields decoded is bounded by `max_fields`, so a
hostile file fails with a `ValueError` instead of exhausting memory or time.

Example:
    >>> decode(b"\\x08\\x96\\x01", {1: ("n", "int64", False)})
    {'n': 150}
"""
import struct

_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5
_SCALARS = {"int32", "int64", "bool", "enum", "float", "double", "str", "bytes"}


class Counter:
    """How many fields a decode may still read (shared across the nested messages of one file)."""

    __slots__ = ("left",)

    def __init__(self, max_fields):
        self.left = max_fields


def _varint(buf, pos, end):
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("truncated or overlong varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _signed(v, bits=64):
    v &= (1 << 64) - 1
    if v >= 1 << 63:
        v -= 1 << 64
    if bits == 32 and not -(1 << 31) <= v < (1 << 31):
        raise ValueError(f"int32 field out of range: {v}")
    return v


def _scalar(kind, wire, buf, pos, end):
    """(value, new position) of one scalar field."""
    if kind in ("str", "bytes"):
        if wire != _LEN:
            raise ValueError(f"{kind} field has wire type {wire}")
        n, pos = _varint(buf, pos, end)
        if pos + n > end:
            raise ValueError("length runs past the end of its message")
        raw = bytes(buf[pos:pos + n])
        if kind == "str":
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError("string field is not UTF-8") from None
        return raw, pos + n
    if kind == "float":
        if wire != _FIXED32 or pos + 4 > end:
            raise ValueError("bad float field")
        return struct.unpack_from("<f", buf, pos)[0], pos + 4
    if kind == "double":
        if wire != _FIXED64 or pos + 8 > end:
            raise ValueError("bad double field")
        return struct.unpack_from("<d", buf, pos)[0], pos + 8
    if wire != _VARINT:
        raise ValueError(f"{kind} field has wire type {wire}")
    v, pos = _varint(buf, pos, end)
    if kind == "bool":
        return bool(v), pos
    return _signed(v, 32 if kind in ("int32", "enum") else 64), pos


def _skip(wire, buf, pos, end):
    if wire == _VARINT:
        return _varint(buf, pos, end)[1]
    if wire in (_FIXED64, _FIXED32):
        pos += 8 if wire == _FIXED64 else 4
    elif wire == _LEN:
        n, pos = _varint(buf, pos, end)
        pos += n
    else:
        raise ValueError(f"unsupported wire type {wire}")
    if pos > end:
        raise ValueError("field runs past the end of its message")
    return pos


def decode(buf, schema, schemas=None, start=0, end=None, counter=None, depth=0):
    """The message in ``buf[start:end]`` as a dict, by `schema`: {field number: (name, kind, repeated)}, where a
    kind is a scalar type or the name of a message schema in `schemas`. Repeated fields become lists (packed or
    not); absent fields are absent from the dict."""
    end = len(buf) if end is None else end
    counter = Counter(10_000_000) if counter is None else counter
    if depth > 16:
        raise ValueError("messages nested too deeply")
    out, pos = {}, start
    while pos < end:
        counter.left -= 1
        if counter.left < 0:
            raise ValueError("too many fields (the file is over the decode budget)")
        key, pos = _varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        spec = schema.get(number)
        if spec is None:
            pos = _skip(wire, buf, pos, end)
            continue
        name, kind, repeated = spec
        if kind in _SCALARS:
            if repeated and wire == _LEN and kind not in ("str", "bytes"):  # packed
                n, pos = _varint(buf, pos, end)
                stop = pos + n
                if stop > end:
                    raise ValueError("packed field runs past the end of its message")
                values = out.setdefault(name, [])
                while pos < stop:
                    counter.left -= 1
                    if counter.left < 0:
                        raise ValueError("too many fields (the file is over the decode budget)")
                    v, pos = _scalar(kind, _FIXED32 if kind == "float" else _FIXED64 if kind == "double"
                                     else _VARINT, buf, pos, stop)
                    values.append(v)
                continue
            value, pos = _scalar(kind, wire, buf, pos, end)
        else:
            if wire != _LEN:
                raise ValueError(f"message field {name!r} has wire type {wire}")
            n, pos = _varint(buf, pos, end)
            if pos + n > end:
                raise ValueError(f"message field {name!r} runs past the end of its parent")
            value = decode(buf, schemas[kind], schemas, pos, pos + n, counter, depth + 1)
            pos += n
        if repeated:
            out.setdefault(name, []).append(value)
        else:
            out[name] = value
    return out
