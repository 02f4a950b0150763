"""Static graphs: the build cursor and tracing proxy (`builder.py`, `variable.py`, `program.py`), their
gradients (`backward.py`, `cf_grad.py`), control flow and tensor arrays, the executor, model files and load
budgets. The public names are re-exported by the `oar.static` namespace.

Importing the package registers the ops its modules define (cond / while / their gradients, tensor arrays, Print and
Assert, auc), so a program that uses them can be built or loaded with only this layer imported."""
from . import control_flow, cf_grad, tensor_array, debug_ops, metric  # noqa: F401  (register their ops)
