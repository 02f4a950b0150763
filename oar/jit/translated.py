"""`TranslatedLayer`: a Layer rebuilt from saved files, with no Python source of the original model.

It holds one `ModelRecord` per saved method (a train program and its for_test clone), its weights as
Parameters (or persistable buffers), and runs a program as one eager op whose backward runs the backward
program, so loaded models both predict and fine-tune with eager optimizers.
"""
import functools
import keyword

import numpy as np

from ..nn.layer import Layer
from ..eager.tensor import Parameter, Tensor
from ..graph.budget import naming_source, swap
from ..graph.scope import Scope
from .runner import ProgramRunner


def pack_outputs(structure, outs):
    """Nests the flat outputs following a saved ``output_structure``."""
    if structure is None:
        return None
    if isinstance(structure, int):
        return outs[structure]
    if isinstance(structure, list):
        return [pack_outputs(s, outs) for s in structure]
    if "tuple" in structure:
        return tuple(pack_outputs(s, outs) for s in structure["tuple"])
    return {k: pack_outputs(s, outs) for k, s in structure["dict"]}


def flatten_inputs(args, kwargs=None):
    """Tensors and arrays in call order (nested lists/tuples/dicts walked); Python values are skipped: they
    were fixed when the program was saved."""
    out = []

    def walk(a):
        if isinstance(a, (Tensor, np.ndarray)):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)
        elif isinstance(a, dict):
            for x in a.values():
                walk(x)
    walk(list(args))
    if kwargs:
        walk(list(kwargs.values()))
    return out


def method_name_problem(name):
    """Why `name` (read from a model file) cannot be a method of a loaded model, or None: a saved method must be a
    public identifier that does not shadow an attribute of `TranslatedLayer` (``eval``, ``parameters``, ...).

    Example:
        >>> from oar.jit.translated import method_name_problem
        >>> method_name_problem("encode") is None, method_name_problem("eval")
        (True, "method name 'eval' would replace TranslatedLayer.eval")
    """
    if name == "forward":
        return None
    if not (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) and len(name) <= 128):
        return f"method name {name!r:.60} is not a Python identifier"
    if name.startswith("_"):
        return f"method name {name!r} is private (starts with '_')"
    if hasattr(TranslatedLayer, name):
        return f"method name {name!r} would replace TranslatedLayer.{name}"
    return None


class TranslatedLayer(Layer):
    """A model loaded by `oar.jit.load`: call it, train it, save it again.

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/linear', input_spec=[oar.static.InputSpec([None, 4])])
        >>> loaded = oar.jit.load('model/linear')
        >>> _ = loaded.eval(); y = loaded(oar.ones([3, 4]))
        >>> y.shape
        [3, 2]
        >>> _ = loaded.train(); opt = oar.optimizer.Adam(parameters=loaded.parameters())
        >>> loaded(oar.ones([3, 4])).mean().backward(); opt.step()
    """

    def __init__(self, records, weights, info=None, budgets=None):
        super().__init__()
        info = info or {}
        d = self.__dict__
        d["_records"] = records
        d["_info"] = info
        d["_budgets"] = budgets or {}  # method -> oar.graph.budget.Budget of the file it came from
        d["_runners"] = {}
        tensors = {}
        for rec in records.values():
            for prog in {id(rec.program): rec.program, id(rec.infer_program): rec.infer_program}.values():
                gb = prog.global_block()
                for n in rec.params:
                    if n not in tensors and n in gb.vars:
                        tensors[n] = self._make_tensor(n, gb.vars[n], weights[n], info.get(n, {}))
        d["_tensors"] = tensors
        d["_scope"] = Scope(tensors)  # the values of every method's programs: this layer's own Tensors
        for method in records:
            if method != "forward":
                d[method] = functools.partial(self._run, method)

    def _make_tensor(self, name, var, array, meta):
        key = name.replace(".", "_")
        array = array if isinstance(array, np.ndarray) and array.flags.writeable else np.array(array)  # read fresh
        if var.is_parameter or meta.get("is_parameter"):
            t = Parameter(array, name=name, trainable=bool(meta.get("trainable", var.trainable)))
            self.add_parameter(key, t)
        else:
            t = Tensor(array, stop_gradient=True, name=name)
            self.register_buffer(key, t, persistable=True)
        return t

    def forward(self, *args, **kwargs):
        return self._run("forward", *args, **kwargs)

    def _program_for(self, method):
        rec = self._records[method]
        return rec.program if (self.training and rec.train) else rec.infer_program

    def _run(self, method, *args, **kwargs):
        rec = self._records[method]
        flat = flatten_inputs(args, kwargs)
        if len(flat) != len(rec.inputs):
            raise TypeError(f"{method}() of the loaded model takes {len(rec.inputs)} tensor input(s) "
                            f"{[(i['name'], i['shape'], i['dtype']) for i in rec.inputs]}, got {len(flat)}")
        tensors = []
        for a, spec in zip(flat, rec.inputs):
            t = a if isinstance(a, Tensor) else Tensor(np.asarray(a))
            want = spec["shape"]
            if t.ndim != len(want) or any(w >= 0 and w != s for w, s in zip(want, t.shape)):
                raise ValueError(f"{method}(): input '{spec['name']}' must have shape {want} (-1 is any size), "
                                 f"got {t.shape}")
            if t.dtype.name != spec["dtype"]:
                raise TypeError(f"{method}(): input '{spec['name']}' must be {spec['dtype']}, got {t.dtype.name}")
            tensors.append(t)
        key = (method, bool(self.training and rec.train))
        runner = self._runners.get(key)
        if runner is None:
            runner = self._runners[key] = ProgramRunner(self._program_for(method), rec.input_names,
                                                        rec.output_names, scope=self._scope)
            runner.budget = self._budgets.get(method)
        budget = self._budgets.get(method)
        prev = swap(budget)
        try:
            outs = runner(*tensors)
        except Exception as e:
            new = naming_source(e, budget)
            if new is e:
                raise
            raise new from None
        finally:
            swap(prev)
        return pack_outputs(rec.structure, list(outs))

    def program(self, method_name="forward"):
        """The inference Program of a saved method."""
        try:
            return self._records[method_name].infer_program
        except KeyError:
            raise ValueError(f"no saved method {method_name!r}; saved: {sorted(self._records)}") from None

    def _train_program(self, method_name="forward"):
        return self._records[method_name].program

    def __getattr__(self, name):
        rec = self.__dict__.get("_records")
        if rec is not None and name in rec and name != "forward":
            return functools.partial(self._run, name)
        return super().__getattr__(name)

