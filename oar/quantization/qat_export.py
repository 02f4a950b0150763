"""A converted QAT model as the QDQ int8 model `PostTrainingQuantization` writes.

The converted model, traced in eval mode, is a float program with ``dequantize_linear(quantize_linear(x))``
pairs on activations and ``dequantize_linear(int8 weight)`` on weights. `qdq_form` turns it into PTQ's form:

1. every activation pair is removed and its step kept as x's parameters: uint8 levels with zero point 128 (the
   int8 grid QAT trained on), or zero point 0 when x is nonnegative by construction (the output of a relu, or
   of a max pool / reshape / flatten of one): that grid keeps QAT's step, so values up to the trained clip (127
   steps) quantize as in training and values between 127 and 255 steps are not clipped;
2. each int8 weight is dequantized to a float constant and its step remembered;
3. PTQ's `prepare` (batch-norm folding, conv/linear + bias fusion) and `insert_qdq` with those activation
   parameters and weight steps (a weight that batch-norm folding changed gets abs-max steps per channel).
   `insert_qdq` puts back the pairs on the inputs of convs and linears, and on their outputs where a quantized
   op reads them; the pairs QAT also simulated on a conv output read by a relu and on a relu output read by a
   pool are not put back (PTQ's layout: ONNX Runtime then fuses relu and pooling into its int8 kernels; keeping
   them made the int8 model 5x slower than PTQ's at width 64 in bench/compression.py's measurement).

So the QDQ model computes the QAT model with two roundings fewer and without the clip above 127 steps of
nonnegative inputs: close to it, not bit-equal (``oar.jit.save`` of the converted model is the bit-equal form).
"""
import os
import tempfile

import numpy as np

from .ptq import insert_qdq, prepare, write_model

NONNEGATIVE_OPS = {"relu", "relu6", "sigmoid"}
NONNEGATIVE_PRESERVING = {"quantize_linear", "dequantize_linear", "max_pool2d", "adaptive_max_pool2d", "reshape",
                          "flatten", "transpose", "squeeze", "unsqueeze"}


def _nonnegative(name, producers):
    """Whether `name` is nonnegative by construction (the ops that make it, not the data seen)."""
    op = producers.get(name)
    if op is None:
        return False
    if op.type in NONNEGATIVE_OPS:
        return True
    return op.type in NONNEGATIVE_PRESERVING and _nonnegative(op.input_names()[0], producers)


class _Rewrite:
    """The program walk of `qdq_form`: drops activation pairs (keeping their steps), folds int8 weights."""

    def __init__(self, p, scope):
        self.p, self.gb, self.scope = p, p.global_block(), scope
        self.producers = {n: o for o in self.gb.ops for n in o.output_names()}
        self.rename, self.act_params, self.weight_steps, self.ops = {}, {}, {}, []

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
        self.act_params.setdefault(x, (step, 0 if _nonnegative(x, self.producers) else 128))
        self.rename[dq.output_names()[0]] = x


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
