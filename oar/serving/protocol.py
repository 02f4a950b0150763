"""The Open Inference Protocol (KServe v2) messages: tensor datatypes, request decoding, response encoding.

A request body is JSON, optionally followed by binary tensor data (Triton's binary tensor extension): the header
``Inference-Header-Content-Length`` gives the JSON part's length, and each input sent in binary has the parameter
``binary_data_size`` (its bytes, in input order after the JSON). Outputs are returned in binary when the request
asks for it (``binary_data`` on a requested output, or ``binary_data_output`` on the request). Everything a client
can get wrong raises `ProtocolError` with an HTTP status and a message, never a bare NumPy error.
"""
import json
import zlib

import numpy as np

HEADER_LENGTH = "Inference-Header-Content-Length"

# oar dtype name -> protocol datatype. BYTES (strings) has no oar dtype.
DATATYPES = {"bool": "BOOL", "uint8": "UINT8", "int8": "INT8", "int16": "INT16", "int32": "INT32",
             "int64": "INT64", "float16": "FP16", "float32": "FP32", "float64": "FP64", "bfloat16": "BF16"}


class ProtocolError(Exception):
    """A request the server cannot serve: `status` is the HTTP status (4xx), the message says why.

    Example:
        >>> from oar.serving import ProtocolError
        >>> e = ProtocolError(404, "unknown model 'nope'")
        >>> e.status, str(e)
        (404, "unknown model 'nope'")
    """

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def datatype(dtype_name):
    """The protocol datatype of an oar dtype name (``'float32'`` -> ``'FP32'``)."""
    try:
        return DATATYPES[dtype_name]
    except KeyError:
        raise ValueError(f"dtype {dtype_name} has no Open Inference Protocol datatype") from None


def decompress(body, encoding, limit):
    """`body` decoded from its Content-Encoding (gzip / deflate), refusing to grow past `limit` bytes."""
    if not encoding or encoding == "identity":
        return body
    if encoding not in ("gzip", "deflate"):
        raise ProtocolError(415, f"unsupported Content-Encoding {encoding!r} (use gzip, deflate or none)")
    d = zlib.decompressobj(wbits=31 if encoding == "gzip" else 15)
    try:
        out = d.decompress(body, limit + 1)
    except zlib.error as e:
        raise ProtocolError(400, f"body is not valid {encoding} data: {e}") from None
    if len(out) > limit or d.unconsumed_tail:
        raise ProtocolError(413, f"decompressed body exceeds the {limit}-byte limit")
    return out


def split_body(body, header_length):
    """(parsed JSON header, binary tail) of a request body."""
    if header_length is None:
        head, tail = body, b""
    else:
        try:
            n = int(header_length)
        except ValueError:
            n = -1
        if not 0 <= n <= len(body):
            raise ProtocolError(400, f"{HEADER_LENGTH} is {header_length!r}, but the body has {len(body)} bytes")
        head, tail = body[:n], body[n:]
    try:
        doc = json.loads(head)
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError(400, f"malformed JSON in the request body: {e}") from None
    except RecursionError:
        raise ProtocolError(400, "malformed JSON in the request body: nested too deeply") from None
    if not isinstance(doc, dict):
        raise ProtocolError(400, "the request body must be a JSON object with an 'inputs' list")
    return doc, tail


def _shape(spec, where):
    shape = spec.get("shape")
    if not (isinstance(shape, list) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                            for d in shape)):
        raise ProtocolError(400, f"{where}: 'shape' must be a list of non-negative ints, got {shape!r:.80}")
    return shape


def _array(spec, want, tail, offset, where):
    """The ndarray of one request input (checked against the model input `want`); returns (array, new offset)."""
    shape = _shape(spec, where)
    dt = spec.get("datatype")
    if dt != want.datatype:
        raise ProtocolError(400, f"{where}: datatype {dt!r:.20} does not match the model's {want.datatype}")
    if len(shape) != len(want.shape) or any(w >= 0 and w != s for w, s in zip(want.shape, shape)):
        raise ProtocolError(400, f"{where}: shape {shape} does not match the model's {want.shape} (-1 is any size)")
    count = int(np.prod(shape, dtype=np.int64))
    params = spec.get("parameters") or {}
    if not isinstance(params, dict):
        raise ProtocolError(400, f"{where}: 'parameters' must be an object")
    size = params.get("binary_data_size")
    if size is not None:
        if not (isinstance(size, int) and not isinstance(size, bool) and 0 <= size <= len(tail) - offset):
            raise ProtocolError(400, f"{where}: binary_data_size {size!r:.20} exceeds the {len(tail) - offset} "
                                     "binary bytes left in the body")
        if size != count * want.np_dtype.itemsize:
            raise ProtocolError(400, f"{where}: binary_data_size is {size} bytes, but {shape} {dt} needs "
                                     f"{count * want.np_dtype.itemsize}")
        a = np.frombuffer(tail, dtype=want.wire_dtype, count=count, offset=offset).reshape(shape)
        return a.view(want.np_dtype), offset + size
    if "data" not in spec:
        raise ProtocolError(400, f"{where}: no 'data' and no binary_data_size parameter")
    if want.datatype == "BF16":
        raise ProtocolError(400, f"{where}: BF16 data must be sent in binary")
    try:
        a = np.asarray(spec["data"])
    except (ValueError, TypeError, RecursionError) as e:
        raise ProtocolError(400, f"{where}: 'data' is not a rectangular array of numbers: {e}") from None
    if a.dtype.kind not in "biuf" or a.size != count:
        raise ProtocolError(400, f"{where}: 'data' must hold {count} numbers for shape {shape}, got "
                                 f"{a.size} {a.dtype.kind!r}-kind values")
    kind = want.np_dtype.kind
    if kind in "iu" and a.dtype.kind == "f" or kind == "b" and a.dtype.kind != "b":
        raise ProtocolError(400, f"{where}: 'data' values are not valid {dt}")
    if kind in "iu" and a.size:
        info = np.iinfo(want.np_dtype)
        if a.min() < info.min or a.max() > info.max:
            raise ProtocolError(400, f"{where}: 'data' values [{a.min()}, {a.max()}] are out of the range of {dt}")
    with np.errstate(over="ignore"):  # (an overflow is refused just below)
        out = a.reshape(shape).astype(want.np_dtype, copy=False)
    if kind == "f" and not np.isfinite(out).all():  # docs/serving.md, "Numbers in JSON"
        bad = a.reshape(-1)[~np.isfinite(out.reshape(-1))][0]
        raise ProtocolError(400, f"{where}: 'data' holds {float(bad)!r} where {dt} needs a finite number (JSON has no "
                                 "NaN or Infinity, and a number too large for the datatype is refused rather than "
                                 "made infinite); send non-finite values as binary data")
    return out, offset


def decode_request(doc, tail, model):
    """(input arrays in the model's input order, [(output name, binary?)], request id) of an infer request."""
    inputs = doc.get("inputs")
    if not isinstance(inputs, list) or not all(isinstance(s, dict) for s in inputs):
        raise ProtocolError(400, "'inputs' must be a list of tensor objects {name, shape, datatype, data}")
    by_name = {}
    for i, spec in enumerate(inputs):
        name = spec.get("name")
        if not isinstance(name, str):
            raise ProtocolError(400, f"inputs[{i}]: 'name' must be a string")
        if name not in model.input_index:
            raise ProtocolError(400, f"unknown input {name!r:.80} for model '{model.name}'; inputs are "
                                     f"{model.input_names}")
        if name in by_name:
            raise ProtocolError(400, f"input {name!r} is given twice")
        by_name[name] = spec
    missing = [n for n in model.input_names if n not in by_name]
    if missing:
        raise ProtocolError(400, f"model '{model.name}' needs inputs {missing} (inputs are {model.input_names})")
    arrays, offset = [None] * len(model.inputs), 0
    for spec in inputs:  # binary data follows the JSON in the order the inputs are listed
        k = model.input_index[spec["name"]]
        arrays[k], offset = _array(spec, model.inputs[k], tail, offset, f"input '{spec['name']}'")
    if offset != len(tail):
        raise ProtocolError(400, f"the body has {len(tail) - offset} binary bytes that no input claims")
    params = doc.get("parameters") or {}
    if not isinstance(params, dict):
        raise ProtocolError(400, "'parameters' must be an object")
    all_binary = params.get("binary_data_output") is True
    outputs = doc.get("outputs")
    if outputs is None:
        wanted = [(n, all_binary) for n in model.output_names]
    else:
        if not isinstance(outputs, list) or not all(isinstance(o, dict) for o in outputs):
            raise ProtocolError(400, "'outputs' must be a list of {name, parameters} objects")
        wanted = []
        for o in outputs:
            if o.get("name") not in model.output_index:
                raise ProtocolError(400, f"unknown output {o.get('name')!r:.80} for model '{model.name}'; outputs "
                                         f"are {model.output_names}")
            p = o.get("parameters") or {}
            wanted.append((o["name"], p.get("binary_data", all_binary) is True if isinstance(p, dict) else False))
    rid = doc.get("id")
    if rid is not None and not isinstance(rid, str):
        raise ProtocolError(400, "'id' must be a string")
    return arrays, wanted, rid


def encode_response(model, values, wanted, rid):
    """(body bytes, JSON header length or None) of an infer response."""
    outs, blobs = [], []
    for name, binary in wanted:
        spec = model.outputs[model.output_index[name]]
        a = np.ascontiguousarray(values[model.output_index[name]])
        t = {"name": name, "datatype": spec.datatype, "shape": list(a.shape)}
        if binary:
            raw = a.view(spec.wire_dtype).tobytes() if spec.datatype == "BF16" else a.tobytes()
            t["parameters"] = {"binary_data_size": len(raw)}
            blobs.append(raw)
        else:
            t["data"] = (a.astype(np.float32) if spec.datatype == "BF16" else a).reshape(-1).tolist()
        outs.append(t)
    doc = {"model_name": model.name, "model_version": model.version, "outputs": outs}
    if rid is not None:
        doc["id"] = rid
    head = json.dumps(doc, separators=(",", ":"), allow_nan=True).encode("utf-8")
    if not blobs:
        return head, None
    return b"".join([head, *blobs]), len(head)
