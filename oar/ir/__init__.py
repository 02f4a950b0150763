"""The IR: plain data. A `Program` holds `Block`s of `Var`s and `Operator`s; `printer` gives its text form
(docs/ir.md), `serialize` its JSON form, `verify` checks it is well formed. What an op type means comes from a
schema the caller passes (`schema.OpSchema`); this package imports only `oar.core.dtype`.

Example:
    >>> from oar import ir
    >>> p = ir.Program()
    >>> b = p.global_block()
    >>> x = b.create_var('x', [2], 'float32', is_data=True)
    >>> y = b.create_var('y', [2], 'float32')
    >>> _ = b.append_op('relu', {'x': ['x']}, {'out': ['y']})
    >>> print(p)
    { // block 0
      var x : float32[2]  (feed)
      var y : float32[2]
      y = relu(x=x)
    }
"""
from .var import Var
from .program import Block, Operator, Program
from .schema import OpSchema
from . import printer, serialize, schema
from .verify import VerifyError, verify

Op = Operator
