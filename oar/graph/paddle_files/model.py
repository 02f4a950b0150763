"""What a Paddle model file says, read from either of Paddle's formats into one neutral form that
`translate.py` turns into an oar program."""
import numpy as np

# Paddle's VarType.Type numbers for tensor element types (framework.proto)
DTYPES = {0: "bool", 1: "int16", 2: "int32", 3: "int64", 4: "float16", 5: "float32", 6: "float64", 20: "uint8",
          21: "int8", 22: "bfloat16", 23: "complex64", 24: "complex128"}


class PaddleOp:
    """One op of a Paddle program: its type, inputs and outputs by slot (each a list of value names; a PIR
    program's ops have positional slots ``0, 1, ...``) and attributes."""

    __slots__ = ("type", "inputs", "outputs", "attrs", "index")

    def __init__(self, type, inputs, outputs, attrs, index):
        self.type, self.inputs, self.outputs, self.attrs, self.index = type, inputs, outputs, attrs, index

    def one(self, slot, default=None):
        names = self.inputs.get(slot) or []
        return names[0] if names else default

    def __repr__(self):
        return f"op #{self.index} '{self.type}'"


class PaddleProgram:
    """A Paddle inference program: feeds [(name, dtype, shape)], fetch names, parameters {name: (dtype, shape)},
    constants {value name: ndarray}, the ops of the main block and (legacy format) the other blocks' ops by
    index."""

    def __init__(self, path, fmt):
        self.path, self.format = path, fmt
        self.feeds, self.fetches, self.params, self.consts, self.ops, self.blocks = [], [], {}, {}, [], {}

    def param_order(self):
        return sorted(self.params)  # paddle.jit.save writes the combined parameters sorted by name


def np_dtype(name):
    return np.dtype("uint16") if name == "bfloat16" else np.dtype(name)
