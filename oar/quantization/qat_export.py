"""A converted QAT model as the QDQ int8 model `PostTrainingQuantization` writes.

The converted model, traced in eval mode, is a float program with ``dequantize_linear(quantize_linear(x))``
pairs on activations and ``dequantize_linear(int8 weight)`` on weights. `qdq_form` turns it into PTQ's form:

1. each activation pair keeps its step, with uint8 levels and zero point 128: the int8 grid of the converted
   model exactly (a zero point of 0 for relu outputs, as PTQ uses, would stop clipping at 127 steps where
   training clipped, and moved outputs by ~6% in a test; ONNX Runtime then keeps the relu as a float op). The
   pair on a conv's or linear's input is removed and `insert_qdq` puts it back in PTQ's layout; the others (a
   conv output read by a relu, a relu output read by a pool) stay where training had them;
2. each int8 weight is dequantized to a float constant and its step remembered;
3. PTQ's `prepare` (batch-norm folding, conv/linear + bias fusion) and `insert_qdq` with those activation
   parameters and weight steps (a weight that batch-norm folding changed gets abs-max steps per channel).

The result computes the converted model up to the accumulation's rounding and the int32 bias (~3e-5 of the
output range in the tests; batch-norm folding, which QAT did not train with, changes weights that follow it).
"""
import os
import tempfile

import numpy as np

from .ptq import insert_qdq, prepare, write_model

# ops (before `prepare`'s fusions) whose first input insert_qdq quantizes
QUANTIZED_INPUT_OPS = {"conv2d", "depthwise_conv2d", "matmul", "linear"}


class _Rewrite:
    """The program walk of `qdq_form`: drops or re-types activation pairs, folds int8 weights."""

    def __init__(self, p, scope):
        self.p, self.gb, self.scope = p, p.global_block(), scope
        self.producers = {n: o for o in self.gb.ops for n in o.output_names()}
        self.quantized_inputs = {o.input_names()[0] for o in self.gb.ops if o.type in QUANTIZED_INPUT_OPS}
        self.rename, self.act_params, self.weight_steps, self.ops = {}, {}, {}, []

    def const(self, base, value):
        name = self.p.unique_name(base)
        self.gb.create_var(name, list(value.shape), value.dtype.name, persistable=True, stop_gradient=True)
        self.scope.vars[name] = value
        return name

    def visit(self, o):
        from ..passes.graph import bound_value
        o.inputs = {k: [self.rename.get(n, n) for n in v] for k, v in o.inputs.items()}
        src = self.producers.get(o.inputs["x"][0]) if o.type == "dequantize_linear" else None
        if src is not None and src.type == "quantize_linear" and bound_value(self.p, src.inputs["x"][0],
                                                                             self.scope) is None:
            self.activation_pair(src, o)
            return
        q = bound_value(self.p, o.inputs["x"][0], self.scope) if o.type == "dequantize_linear" else None
        if q is not None:  # an int8 weight: a float constant, its step remembered
            step = np.asarray(self.scope.array(o.inputs["scale"][0]), np.float32)
            name = o.output_names()[0]
            v = self.gb.vars[name]
            v.persistable, v.stop_gradient = True, True
            self.scope.vars[name] = (q.astype(np.float32) * step).astype(np.float32)
            self.weight_steps[name] = step
            return
        if o.type != "quantize_linear":  # a pair's quantize op goes with its dequantize op
            self.ops.append(o)

    def activation_pair(self, q, dq):
        x = q.inputs["x"][0]
        step = float(np.asarray(self.scope.array(q.inputs["scale"][0])).reshape(-1)[0])
        params = (step, 128)
        if dq.output_names()[0] in self.quantized_inputs:  # insert_qdq puts it back in the layout ORT fuses
            self.act_params.setdefault(x, params)
            self.rename[dq.output_names()[0]] = x
            return
        s, z = self.const(x + ".scale", np.array(step, np.float32)), self.const(x + ".zero", np.array(params[1],
                                                                                                    np.uint8))
        q.inputs.update(scale=[s], zero_point=[z])
        dq.inputs.update(scale=[s], zero_point=[z])
        self.gb.vars[q.output_names()[0]].dtype = self.gb.vars[z].dtype
        self.ops += [q, dq]


def qdq_form(program, scope, keep):
    """(program, activation parameters) in `PostTrainingQuantization`'s QDQ form (see the module doc); `scope`
    holds the program's persistable values and receives the new ones."""
    p = program.clone()
    r = _Rewrite(p, scope)
    for o in list(p.global_block().ops):
        r.visit(o)
    p.global_block().ops = r.ops
    p._bump()
    prog = prepare(p, keep, scope)
    out = insert_qdq(prog, r.act_params, keep=keep, scope=scope, weight_steps=r.weight_steps)
    out.provenance.append("qat_export: activation steps and int8 weights of quantization-aware training")
    return out, r.act_params


def save_qdq_model(model, path, input_spec):
    """Saves converted QAT `model` (in eval mode) as a QDQ int8 model at prefix `path`; returns the .pdmodel."""
    from ..graph.model_files import load_files
    from ..graph.scope import Scope
    from ..jit import save
    was_training = model.training
    model.eval()
    try:
        with tempfile.TemporaryDirectory() as d:
            save(model, os.path.join(d, "float"), input_spec=input_spec)
            rec, weights = load_files(os.path.join(d, "float.pdmodel"), os.path.join(d, "float.pdiparams"))
    finally:
        if was_training:
            model.train()
    prog = rec.infer_program
    scope = Scope({n: a for n, a in weights.items() if n in prog.global_block().vars})
    program, _ = qdq_form(prog, scope, rec.output_names)
    return write_model(path, program, rec, scope)
