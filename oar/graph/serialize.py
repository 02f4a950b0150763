"""Programs to and from JSON-safe dicts against this process's op registry: `oar.ir.serialize` with the
registry's schema and static `Program`s (whose variables have tensor methods). A program built from a dict is
also run through the verifier (`oar.ir.verify`) before anyone can execute it.

Example:
    >>> d = program_to_dict(main)
    >>> p = program_from_dict(json.loads(json.dumps(d)))
    >>> str(p) == str(main)
    True
"""
from ..ir import serialize as _ir
from ..ir.serialize import FORMAT, FORMAT_VERSION, SUPPORTED_VERSIONS, clean_text  # noqa: F401
from .op_schema import schema_for


def program_to_dict(program):
    """The Program as a dict of JSON values, validated against the registry (see `oar.ir.serialize`)."""
    return _ir.program_to_dict(program, schema=schema_for({op.type for b in program.blocks for op in b.ops}))


def validate(d):
    """Checks a program dict from an untrusted source against the registry; ValueError naming the bad field."""
    _ir.validate(d, schema_for(_ir.op_types(d)))


def program_from_dict(d):
    """A static `Program` from a dict made by `program_to_dict` or read from a file (validated, then verified)."""
    from .program import Program, verify
    if isinstance(d, _ir._Trusted):
        return _ir.program_from_dict(d, program_class=Program)
    p = _ir.program_from_dict(d, schema_for(_ir.op_types(d)), program_class=Program)
    verify(p)
    return p
