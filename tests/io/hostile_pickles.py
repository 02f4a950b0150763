"""Hand-made hostile pickles (bytes), each a few hundred bytes or less unless said: what an attacker would put in a
``.pdparams``. Used by tests/io/test_hostile_pickles.py and tools/hostile_files_report.py."""
import pickle
import struct


def _get(i):
    return pickle.BINGET + bytes([i]) if i < 256 else pickle.LONG_BINGET + struct.pack("<I", i)


def _put(i):
    return pickle.BINPUT + bytes([i]) if i < 256 else pickle.LONG_BINPUT + struct.pack("<I", i)


def memo_bomb(levels=10, refs=5):
    """Lists of `refs` references to the list one level down: refs**levels leaves when walked (issue 25: 142 B)."""
    out = pickle.PROTO + b"\x02" + pickle.EMPTY_LIST + _put(0)
    for i in range(1, levels + 1):
        out += pickle.MARK + _get(i - 1) * refs + pickle.LIST + _put(i)
    return out + pickle.STOP


def hash_bomb(levels=40):
    """A set holding a tuple of tuples sharing their members: hashing it visits 2**levels tuples."""
    out = pickle.PROTO + b"\x04" + pickle.EMPTY_TUPLE + _put(0)
    for i in range(1, levels + 1):
        out += _get(i - 1) + _get(i - 1) + pickle.TUPLE2 + _put(i)
    return out + pickle.EMPTY_SET + pickle.MARK + _get(levels) + pickle.ADDITEMS + pickle.STOP


def deep_nesting(depth=100_000):
    """A list nested `depth` levels deep (~200 KB)."""
    return (pickle.PROTO + b"\x02" + pickle.EMPTY_LIST * depth + pickle.APPEND * (depth - 1) + pickle.STOP)


def huge_string(declared=1 << 40):
    """A string declaring `declared` bytes (1 TiB), holding one."""
    return pickle.PROTO + b"\x04" + b"\x8d" + struct.pack("<Q", declared) + b"x" + pickle.STOP


def _global(module, name):
    return pickle.GLOBAL + module.encode() + b"\n" + name.encode() + b"\n"


def huge_bytearray(n=1 << 45):
    """``bytearray(32 TiB)``: an allocation from a number in the file."""
    return (pickle.PROTO + b"\x02" + _global("builtins", "bytearray") + pickle.LONG1 + bytes([6])
            + n.to_bytes(6, "little") + pickle.TUPLE1 + pickle.REDUCE + pickle.STOP)


def huge_reconstruct(n=1 << 45):
    """NumPy's ``_reconstruct(ndarray, (32 Ti,), b'b')``: the empty array NumPy pickles, made huge."""
    return (pickle.PROTO + b"\x02" + _global("numpy.core.multiarray", "_reconstruct")
            + _global("numpy", "ndarray") + pickle.LONG1 + bytes([6]) + n.to_bytes(6, "little") + pickle.TUPLE1
            + pickle.SHORT_BINBYTES + b"\x01b" + pickle.TUPLE3 + pickle.REDUCE + pickle.STOP)


def quadratic_copies(n=100_000):
    """One list of `n` items, then `n` calls of list() on it: n**2 copies from ~1 MB."""
    out = pickle.PROTO + b"\x02" + _global("builtins", "list") + _put(0) + pickle.EMPTY_LIST + pickle.MARK
    out += pickle.NONE * n + pickle.APPENDS + pickle.TUPLE1 + _put(1) + pickle.POP
    out += (_get(0) + _get(1) + pickle.REDUCE + pickle.POP) * n
    return out + pickle.NONE + pickle.STOP


def eval_call():
    """``eval('1+1')``: refused (only Paddle's LoDTensor form of eval is accepted), naming the file."""
    return (pickle.PROTO + b"\x02" + _global("builtins", "eval") + pickle.SHORT_BINUNICODE + b"\x031+1"
            + pickle.TUPLE1 + pickle.REDUCE + pickle.STOP)


def split_info(info):
    """A state dict with a `UnpackBigParamInfor@@` entry `info` (Paddle's list of the slices of a big array)."""
    import numpy as np
    return pickle.dumps({"w@@.0": np.ones(2, "float32"), "UnpackBigParamInfor@@": info}, protocol=2)


CASES = {  # name -> (bytes, what the error must say)
    "memo bomb 10x5": (memo_bomb(), "billion laughs"),
    "billion laughs 100x2": (memo_bomb(100, 2), "billion laughs"),
    "hash bomb (nested tuple in a set)": (hash_bomb(), "holding containers"),
    "deep nesting 100k": (deep_nesting(), None),
    "1 TiB declared string": (huge_string(), "declares 1099511627776 bytes"),
    "bytearray(32 TiB)": (huge_bytearray(), "bytearray"),
    "_reconstruct 32 Ti elements": (huge_reconstruct(), "_reconstruct"),
    "100k list() copies of 100k items": (quadratic_copies(), "pickle steps"),
    "eval('1+1')": (eval_call(), "eval"),
    "UnpackBigParamInfor@@ {'w': {'a': 1}}": (split_info({"w": {"a": 1}}), "UnpackBigParamInfor"),
    "UnpackBigParamInfor@@ slices: 3": (split_info({"w": {"slices": 3, "OriginShape": [2]}}), "UnpackBigParamInfor"),
    "UnpackBigParamInfor@@ missing slice": (split_info({"w": {"slices": ["w@@.9"], "OriginShape": [2]}}),
                                           "is not an array"),
    "UnpackBigParamInfor@@ wrong shape": (split_info({"w": {"slices": ["w@@.0"], "OriginShape": [3]}}),
                                         "not the 3 of shape"),
}
