"""Paddle's static-program files: `save_inference_model` / `load_inference_model` (a program pruned to what its
fetch variables need, in the model format `oar.jit.save` writes: ``path.pdmodel`` + ``path.pdiparams``, so
`oar.jit.load`, `oar.inference` and `oar.onnx` read it too), their in-memory halves (`normalize_program`,
`serialize_program` / `deserialize_program`, `serialize_persistables` / `deserialize_persistables`,
`save_to_file` / `load_from_file`). The training checkpoints of a whole program (`static.save` / `load`) are in
`oar.io.static_checkpoint`, beside `oar.save`."""
import json
import os

from ..core.safe_files import write_files
from ..eager.tensor import Tensor
from ..graph.builder import default_main_program
from ..graph.model_files import ModelRecord, encode_weights, file_names, load_files
from ..graph.scope import global_scope
from ..graph.serialize import program_from_dict, program_to_dict
from ..passes.dead_code import dead_code_elimination
from .save_load import _persistables_read, save_records

__all__ = ["save_inference_model", "load_inference_model", "normalize_program", "serialize_program",
           "deserialize_program", "serialize_persistables", "deserialize_persistables", "save_to_file",
           "load_from_file"]


def _var_list(v, what):
    vs = list(v) if isinstance(v, (list, tuple)) else [v]
    if not vs or not all(hasattr(x, "name") and hasattr(x, "block") for x in vs):
        raise TypeError(f"save_inference_model: {what} must be a static Variable or a list of them")
    return vs


def normalize_program(program, feed_vars, fetch_vars):
    """The inference form of `program` (``clone(for_test=True)``) pruned to what `fetch_vars` need, the
    `feed_vars` kept as its inputs.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main, oar.static.Program()):
        ...     x = oar.static.data('x_np', [None, 2])
        ...     y, unused = x * 2, x + 1
        >>> oar.disable_static()
        >>> [op.type for op in oar.static.normalize_program(main, [x], [y]).global_block().ops]
        ['full', 'multiply']
    """
    feeds, fetches = _var_list(feed_vars, "feed_vars"), _var_list(fetch_vars, "fetch_vars")
    infer = dead_code_elimination(program.clone(for_test=True), keep=[v.name for v in fetches])
    gb = infer.global_block()
    for f in feeds:
        if f.name not in gb.vars:  # an input the outputs do not need still stays a feed
            gb.create_var(f.name, f.shape, f.dtype, stop_gradient=True, is_data=True)
    return infer


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
    infer = normalize_program(program if program is not None else default_main_program(), feeds, fetches)
    gb = infer.global_block()
    scope = global_scope()
    params = _values_needed(infer, "save_inference_model")
    spec = [{"name": v.name, "shape": [int(d) for d in gb.vars[v.name].shape], "dtype": v.dtype.name} for v in feeds]
    ospec = [{"name": v.name, "shape": [int(d) for d in v.shape], "dtype": v.dtype.name} for v in fetches]
    rec = ModelRecord(infer, infer, spec, ospec, 0 if len(fetches) == 1 else list(range(len(fetches))), params)
    save_records(os.fspath(path_prefix), {"forward": rec}, {n: Tensor(scope.array(n)) for n in params}, None,
                 clip_extra=clip_extra)


def _values_needed(program, who):
    """The persistables `program` reads, checked to have values in the global scope."""
    scope = global_scope()
    used = _persistables_read(program)
    params = [n for n in program.global_block().vars if n in used]
    missing = [n for n in params if scope.array(n) is None]
    if missing:
        raise ValueError(f"{who}: persistable variables {missing} have no value in the global scope (run the "
                         "startup program with the executor first)")
    return params


def serialize_program(feed_vars, fetch_vars, program=None):
    """The bytes of the normalized (pruned, inference) program, in the ``.pdmodel`` program JSON.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main, oar.static.Program()):
        ...     x = oar.static.data('x_sp', [None, 2])
        ...     y = x * 3
        >>> data = oar.static.serialize_program([x], [y], program=main)
        >>> [op.type for op in oar.static.deserialize_program(data).global_block().ops]
        ['full', 'multiply']
        >>> oar.disable_static()
    """
    infer = normalize_program(program if program is not None else default_main_program(), feed_vars, fetch_vars)
    return json.dumps(program_to_dict(infer), separators=(",", ":")).encode("utf-8")


def deserialize_program(data):
    """A Program from `serialize_program`'s bytes (validated and verified: ValueError for damaged bytes).

    Example:
        >>> oar.static.deserialize_program(b'not a program')
        Traceback (most recent call last):
        ValueError: deserialize_program: not a serialized program (Expecting value: line 1 column 1 (char 0))
    """
    try:
        d = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"deserialize_program: not a serialized program ({e})") from None
    return program_from_dict(d)


def serialize_persistables(feed_vars, fetch_vars, executor, program=None):
    """The bytes (safetensors) of the values of the persistables the normalized program reads.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x_spp', [None, 3])
        ...     y = oar.static.nn.fc(x, 2)
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> data = oar.static.serialize_persistables([x], [y], exe, program=main)
        >>> prog = oar.static.deserialize_program(oar.static.serialize_program([x], [y], program=main))
        >>> oar.static.deserialize_persistables(prog, data, exe)
        >>> out, = exe.run(prog, feed={'x_spp': np.ones([1, 3], 'float32')}, fetch_list=[y.name])
        >>> oar.disable_static()
        >>> out.shape
        (1, 2)
    """
    infer = normalize_program(program if program is not None else default_main_program(), feed_vars, fetch_vars)
    scope = global_scope()
    return encode_weights({n: scope.array(n) for n in _values_needed(infer, "serialize_persistables")})


def deserialize_persistables(program, data, executor):
    """Puts the values of `serialize_persistables`'s bytes into the global scope; every one must be a persistable
    variable of `program` with its shape.

    Example:
        >>> oar.static.deserialize_persistables(oar.static.Program(), b'junk', None)
        Traceback (most recent call last):
        ValueError: deserialize_persistables: damaged data (...)
    """
    from safetensors.numpy import load
    try:
        arrays = load(bytes(data))
    except Exception as e:  # safetensors reports damage with its own exception types
        raise ValueError(f"deserialize_persistables: damaged data ({type(e).__name__}: {e})") from None
    gb = program.global_block()
    for name, a in arrays.items():
        v = gb.vars.get(name)
        if v is None or not v.persistable:
            raise ValueError(f"deserialize_persistables: {name!r} is not a persistable variable of the program")
        if [int(d) for d in v.shape] != list(a.shape):
            raise ValueError(f"deserialize_persistables: {name!r} has shape {list(a.shape)}, the program's variable "
                             f"{[int(d) for d in v.shape]}")
    scope = global_scope()
    for name, a in arrays.items():
        scope.set(name, a)


def save_to_file(path, content):
    """Writes bytes to `path` (atomically, as every oar save).

    Example:
        >>> oar.static.save_to_file('blob.bin', b'abc')
        >>> oar.static.load_from_file('blob.bin')
        b'abc'
    """
    if not isinstance(content, (bytes, bytearray)):
        raise TypeError(f"save_to_file: content must be bytes, got {type(content).__name__}")
    write_files({os.fspath(path): bytes(content)})


def load_from_file(path):
    """The bytes of the file `path`.

    Example:
        >>> oar.static.save_to_file('blob2.bin', b'xyz')
        >>> oar.static.load_from_file('blob2.bin')
        b'xyz'
    """
    with open(path, "rb") as f:
        return f.read()


def load_inference_model(path_prefix, executor):
    """Loads a model saved by `save_inference_model` (or `oar.jit.save`): its parameters go into the global
    scope, and ``[program, feed_target_names, fetch_targets]`` come back for ``executor.run(program,
    feed={name: array}, fetch_list=fetch_targets)``. Raises ValueError naming the file when it is missing or
    damaged (`save_inference_model` shows a round trip).

    Example:
        >>> oar.static.load_inference_model('absent/net', None)
        Traceback (most recent call last):
        ValueError: absent/net.pdmodel: model file not found (load_inference_model expects the prefix given to ...)
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
