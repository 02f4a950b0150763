"""What the IR needs to know about an op type, given by the layer that defines ops: the IR imports no op.

A *schema* is any mapping ``op type -> OpSchema`` (``schema.get(t)`` returns None for an unknown type).
`oar.graph.op_schema` builds one from the op registry; tests build small ones by hand. The printer and
`Operator.has_side_effects` ask the schema installed with `install` (the registry's, once `oar.static` is
imported); the verifier and the serializer's validator take theirs as an argument.

Example:
    >>> s = {"relu": oar.ir.OpSchema(inputs=("x",), outputs=("out",))}
    >>> s["relu"].variadic, s["relu"].lowered
    (False, False)
"""
from typing import Callable, NamedTuple, Optional


class OpSchema(NamedTuple):
    """One op type as the IR sees it.

    Example:
        >>> oar.ir.OpSchema(inputs=("x",), outputs=("out",)).list_slots()
        (set(), set())

    Attributes:
        inputs / outputs: slot names in kernel order; a name ending in ``*`` is one list slot.
        variadic: all inputs form one list slot ``inputs[0]``.
        lowered: the executor lowers the op itself (control flow): its slots may hold lists and it has no
            kernel signature to check attributes against.
        signature: the kernel's `inspect.Signature` (inputs are its leading parameters, attributes keywords),
            or None when unknown (a ufunc kernel, a lowered op).
        side_effect: removing the op can change more than its outputs (print, assert, array writes).
        check: ``check(inputs, outputs, attrs) -> None | message``, an op's own structural rule.
        attr_types: attribute name -> ``(predicate, description)`` declared for this op, on top of the names
            shared by all ops (`ATTR_TYPES`).
        block_attrs: the attributes holding sub-block indices (an int or a list of ints).
        name_attrs: the attributes holding names of sub-block variables.
    """
    inputs: tuple = ()
    outputs: tuple = ()
    variadic: bool = False
    lowered: bool = False
    signature: object = None
    side_effect: bool = False
    check: Optional[Callable] = None
    attr_types: dict = {}
    block_attrs: tuple = ()
    name_attrs: tuple = ()

    def list_slots(self):
        """(input slots, output slots) that are lists by definition, so one name still prints as ``[a]``."""
        ins = {self.inputs[0]} if self.variadic and self.inputs else set()
        outs = {self.outputs[0][:-1]} if self.outputs and self.outputs[0].endswith("*") else set()
        return ins, outs

    def attr_names(self):
        """The attribute names the kernel accepts, or None when any name may be valid."""
        sig = self.signature
        if sig is None or self.lowered:
            return None
        ps = sig.parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in ps):
            return None
        return frozenset(p.name for p in ps if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))


class _Installed:
    """The schema the printer and `has_side_effects` consult when none is passed (empty until one is installed)."""

    def __init__(self):
        self.schema = {}

    def get(self, op_type):
        return self.schema.get(op_type)


INSTALLED = _Installed()


def install(schema):
    """Makes `schema` (a mapping op type -> OpSchema) the default one; returns the previous."""
    prev, INSTALLED.schema = INSTALLED.schema, schema
    return prev
