"""`paddle.static.save_inference_model` / `load_inference_model`: a static program pruned to what its fetch
variables need, saved in the model format `oar.jit.save` writes (``path.pdmodel`` + ``path.pdiparams``), so
`oar.jit.load`, `oar.inference` and `oar.onnx` read it too."""
import os

from ..eager.tensor import Tensor
from ..graph.builder import default_main_program
from ..graph.model_files import ModelRecord, file_names, load_files
from ..graph.scope import global_scope
from ..passes.dead_code import dead_code_elimination
from .save_load import _persistables_read, save_records


def _var_list(v, what):
    vs = list(v) if isinstance(v, (list, tuple)) else [v]
    if not vs or not all(hasattr(x, "name") and hasattr(x, "block") for x in vs):
        raise TypeError(f"save_inference_model: {what} must be a static Variable or a list of them")
    return vs


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None, clip_extra=True):
    """Saves the part of `program` (default: the default main program) that computes `fetch_vars` from
    `feed_vars`, in inference form (``clone(for_test=True)``: dropout off, batch norm on its running
    statistics), with the parameter values of the global scope (run the startup program first).

    Args:
        path_prefix: file prefix: ``path_prefix.pdmodel`` and ``path_prefix.pdiparams`` are written.
        feed_vars / fetch_vars: a Variable or a list of them: the model's inputs and outputs.
        executor: the Executor that ran the program (its values live in the global scope).
        clip_extra: leave the ops' source locations out of the file.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 3], 'float32')
        ...     y = oar.static.nn.fc(x, 2)
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> oar.static.save_inference_model('infer/fc', [x], [y], exe, program=main)
        >>> prog, feeds, fetches = oar.static.load_inference_model('infer/fc', exe)
        >>> out, = exe.run(prog, feed={feeds[0]: np.ones([4, 3], 'float32')}, fetch_list=fetches)
        >>> oar.disable_static()
        >>> feeds, out.shape
        (['x'], (4, 2))
    """
    feeds, fetches = _var_list(feed_vars, "feed_vars"), _var_list(fetch_vars, "fetch_vars")
    program = program if program is not None else default_main_program()
    keep = [v.name for v in fetches]
    infer = dead_code_elimination(program.clone(for_test=True), keep=keep)
    gb = infer.global_block()
    for f in feeds:
        if f.name not in gb.vars:  # an input the outputs do not need still stays a feed
            gb.create_var(f.name, f.shape, f.dtype, stop_gradient=True, is_data=True)
    scope = global_scope()
    params = [n for n in gb.vars if n in _persistables_read(infer)]
    missing = [n for n in params if scope.array(n) is None]
    if missing:
        raise ValueError(f"save_inference_model: persistable variables {missing} have no value in the global "
                         "scope (run the startup program with the executor first)")
    spec = [{"name": v.name, "shape": [int(d) for d in gb.vars[v.name].shape], "dtype": v.dtype.name} for v in feeds]
    ospec = [{"name": v.name, "shape": [int(d) for d in v.shape], "dtype": v.dtype.name} for v in fetches]
    rec = ModelRecord(infer, infer, spec, ospec, 0 if len(fetches) == 1 else list(range(len(fetches))), params)
    save_records(os.fspath(path_prefix), {"forward": rec}, {n: Tensor(scope.array(n)) for n in params}, None,
                 clip_extra=clip_extra)


def load_inference_model(path_prefix, executor):
    """Loads a model saved by `save_inference_model` (or `oar.jit.save`): its parameters go into the global
    scope, and ``[program, feed_target_names, fetch_targets]`` come back for ``executor.run(program,
    feed={name: array}, fetch_list=fetch_targets)``. Raises ValueError naming the file when it is missing or
    damaged. See `save_inference_model` for an example.
    """
    pdmodel, pdiparams = file_names(os.fspath(path_prefix))
    if not os.path.exists(pdmodel):
        raise ValueError(f"{pdmodel}: model file not found (load_inference_model expects the prefix given to "
                         "save_inference_model)")
    rec, weights = load_files(pdmodel, pdiparams)
    scope = global_scope()
    for name, a in weights.items():
        scope.set(name, a)
    gb = rec.program.global_block()
    return [rec.program, rec.input_names, [gb.vars[n] for n in rec.output_names]]
