"""The op registry seen as an IR schema (`oar.ir.schema`): what the printer, the verifier and the loader of model
files know about each op type. Built lazily, one `OpSchema` per registered op.

Example:
    >>> from oar.graph.op_schema import REGISTRY_SCHEMA
    >>> REGISTRY_SCHEMA['matmul'].inputs
    ('x', 'y')
"""
import importlib
import inspect
import pkgutil

from ..ir.schema import OpSchema, install
from ..ops.registry import REGISTRY

# The packages whose modules define ops. They sit above this module, so the top layer names them: oar/__init__.py
# fills the list (docs/architecture.md, "Import layers").
OP_PACKAGES = []


def _signature(d):
    if d.lower is not None:
        return None
    try:
        return inspect.signature(d.impl)
    except (TypeError, ValueError):  # a ufunc kernel
        return None


def op_schema(d):
    """The `OpSchema` of the registered `OpDef` `d`."""
    return OpSchema(inputs=d.inputs, outputs=d.outputs, variadic=d.variadic, lowered=d.lower is not None,
                    signature=_signature(d), side_effect=bool(d.side_effect), check=d.verify,
                    block_attrs=tuple(d.block_attrs), name_attrs=tuple(d.name_attrs))


class RegistrySchema:
    """A read-only mapping op type -> `OpSchema` over `oar.ops.registry.REGISTRY` (memoized per `OpDef`)."""

    def __init__(self):
        self._memo = {}

    def get(self, op_type, default=None):
        d = REGISTRY.get(op_type)
        if d is None:
            return default
        s = self._memo.get(op_type)
        if s is None or s[0] is not d:
            s = self._memo[op_type] = (d, op_schema(d))
        return s[1]

    def __getitem__(self, op_type):
        s = self.get(op_type)
        if s is None:
            raise KeyError(op_type)
        return s

    def __contains__(self, op_type):
        return op_type in REGISTRY

    def __iter__(self):
        return iter(list(REGISTRY))

    def __len__(self):
        return len(REGISTRY)


REGISTRY_SCHEMA = RegistrySchema()


class _Imported:
    all = False


_IMPORTED = _Imported()


def schema_for(needed=None):
    """The registry schema, complete for the op types in `needed` (all op types when None). Op families register
    on import and some load lazily (``oar.ops.dynamic_shape`` on first use, fused ops with ``oar.passes``), so a
    model saved by one process must still validate in a process that only ran ``import oar``: when an op type is
    not registered yet, every module of the op-defining packages is imported once. A program made only of
    registered ops imports nothing, so `oar.lite` loads models without the layers above the executor."""
    if not _IMPORTED.all and (needed is None or any(t not in REGISTRY for t in needed)):
        for pkg in OP_PACKAGES:
            try:
                mod = importlib.import_module(pkg)
            except Exception:  # an optional family that is missing or broken must not hide the real error
                continue
            for info in pkgutil.walk_packages(getattr(mod, "__path__", []), pkg + "."):
                try:
                    importlib.import_module(info.name)
                except Exception:
                    pass
        _IMPORTED.all = True
    return REGISTRY_SCHEMA


install(REGISTRY_SCHEMA)  # the printer and Operator.has_side_effects read the registry's schema
