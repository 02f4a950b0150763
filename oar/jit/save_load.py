"""`oar.jit.save` / `oar.jit.load`: a converted Layer or function to files and back (formats: docs/format.md).

Saving converts when needed, prunes each program to what its outputs need, and writes ``path.pdmodel``,
``path.pdiparams`` and ``path.pdiparams.info`` (plus ``path.<method>.pdmodel/.pdiparams`` for other decorated
methods). Loading validates everything and returns a `TranslatedLayer`.
"""
import fnmatch
import glob
import os
import warnings

import numpy as np

from ..core import safetensors_file
from ..core.devices import device_of, place_array
from ..core.state import place_name
from ..core.safe_files import committed_listing, committed_path
from ..passes.dead_code import dead_code_elimination
from ..graph.budget import DEFAULT_MAX_BYTES, DEFAULT_MAX_LOOP_ITERATIONS, Budget
from ..eager.tensor import Tensor
from ..graph.model_files import (ModelRecord, encode_info, encode_record, encode_weights, file_names, load_files,
                                 mixed_saves, new_save_id, read_info, read_json, write_files)
from .translated import TranslatedLayer, method_name_problem

_CONFIGS = ("output_spec", "clip_extra", "with_hook", "combine_params", "skip_forward", "skip_prune_program", "fsync")


# ---- save -----------------------------------------------------------------------------------------------------
def save(layer, path, input_spec=None, **configs):
    """Saves a Layer (or function) as a static model that `oar.jit.load` and `oar.inference` can run.

    Args:
        layer: an `oar.nn.Layer` (plain, converted with `to_static`, or a loaded `TranslatedLayer`), or a
            function (plain or `to_static`).
        path: file prefix; ``path.pdmodel``, ``path.pdiparams``, ``path.pdiparams.info`` are written (the
            directory is created).
        input_spec: for ``forward`` (or the function): `InputSpec`s (Tensors are turned into specs; Python
            values are passed through as non-tensor arguments). Needed for a plain Layer or function unless it
            was already called through `to_static`.
        configs: ``output_spec`` (which outputs to keep: the Tensors a converted Layer returned, output
            Variables, or indices into the flat outputs; the program is pruned to them), ``clip_extra``
            (default False: True drops the extra information of each op, its user source location, and the
            passes' provenance; oar programs carry no non-standard attributes to clip), ``fsync`` (default True:
            each file is flushed to the disk before it replaces the old one; False saves faster).

    A Layer saved in train mode keeps its train program (Dropout/BatchNorm training behaviour, for
    fine-tuning) with the for_test clone beside it; in eval mode only the inference program is written.
    A function writes its ``.pdmodel`` only (plus ``.pdiparams`` when it reads parameters); files of an
    earlier save to the same prefix that this save does not write are removed. All files are written
    before any is replaced: a failure mid-save leaves the previous files intact.

    Example:
        >>> from oar.static import InputSpec
        >>> net = oar.nn.Linear(784, 10)
        >>> oar.jit.save(net, 'model/net', input_spec=[InputSpec([None, 784], 'float32', 'x')])
        >>> import os; sorted(os.listdir('model'))
        ['net.pdiparams', 'net.pdiparams.info', 'net.pdmodel']
    """
    bad = [k for k in configs if k not in _CONFIGS]
    if bad:
        raise ValueError(f"oar.jit.save: unknown config(s) {bad}; accepted: {list(_CONFIGS)}")
    path = os.fspath(path)
    if not path or os.path.basename(path) == "":
        raise ValueError(f"oar.jit.save: path {path!r} must be a file prefix such as 'model/net', not a directory")
    from ..nn.layer import Layer
    from .traced import traced_concrete
    traced = traced_concrete(layer)
    if traced is not None:  # oar.jit.trace / TracedLayer: the latest traced program, as traced
        if input_spec is not None:
            raise ValueError("oar.jit.save: a traced function or TracedLayer is saved for the inputs it was traced "
                             "with; input_spec must be None")
        cp, layer = traced
        records, tensors, info = records_from_concrete([("forward", cp)], layer, configs.get("output_spec"))
    elif isinstance(layer, TranslatedLayer):
        records, tensors, info = _records_of_translated(layer)
    else:
        records, tensors, info = _records_of_static(layer, input_spec, configs.get("output_spec"))
    save_records(path, records, tensors, info if isinstance(layer, Layer) else None,
                 clip_extra=bool(configs.get("clip_extra", False)), fsync=bool(configs.get("fsync", True)))


def _check_paths(path, records):
    d = os.path.dirname(path)
    if d and os.path.exists(d) and not os.path.isdir(d):
        raise ValueError(f"oar.jit.save: {d!r} exists and is not a directory")
    for m in records:
        if not m.isidentifier():
            raise ValueError(f"oar.jit.save: method name {m!r} cannot name a file")


def _records_of_translated(layer):
    records, info, tensors = dict(layer._records), dict(layer._info), dict(layer._tensors)
    for n, t in tensors.items():
        meta = info.setdefault(n, {"structured_name": None})
        meta.update(_tensor_meta(t))
    return records, tensors, info


def _tensor_meta(t):
    return {"shape": list(t.shape), "dtype": t.dtype.name, "stop_gradient": bool(t.stop_gradient),
            "trainable": bool(getattr(t, "trainable", False)), "is_parameter": hasattr(t, "trainable")}


def _methods(layer, input_spec):
    """[(method name, StaticFunction, specs or None)] for a Layer or a function."""
    from ..nn.layer import Layer
    from .api import to_static
    from .static_function import StaticFunction as SF
    if not isinstance(layer, Layer):
        fn = layer if isinstance(layer, SF) else to_static(layer, input_spec=input_spec)
        return [("forward", fn, input_spec)]
    out = []
    fwd = layer.forward
    if isinstance(fwd, SF):
        out.append(("forward", fwd, input_spec))
    elif input_spec is not None:
        out.append(("forward", to_static(fwd, input_spec=input_spec), input_spec))
    for name in sorted(dir(type(layer))):
        if name != "forward" and isinstance(getattr(type(layer), name, None), SF):
            out.append((name, getattr(layer, name), None))
    if not out:
        raise ValueError(f"oar.jit.save: {type(layer).__name__} has no to_static method and no input_spec was "
                         "given; pass input_spec=[InputSpec(shape, dtype), ...] for every forward argument")
    return out


def _as_specs(spec):
    from ..graph.input_spec import InputSpec
    if isinstance(spec, Tensor):
        return InputSpec.from_tensor(spec)
    if isinstance(spec, np.ndarray):
        return InputSpec.from_numpy(spec)
    if isinstance(spec, (list, tuple)):
        return type(spec)(_as_specs(s) for s in spec)
    if isinstance(spec, dict):
        return {k: _as_specs(v) for k, v in spec.items()}
    return spec


def _concrete(name, sf, specs):
    if sf.graph_breaks:
        lines = "; ".join(f"line {line}: {src}" for line, src in sf.graph_breaks)
        raise ValueError(f"oar.jit.save: cannot save '{name}': it has graph breaks ({lines}), which run as Python "
                         "between programs and cannot be saved; rewrite them with oar ops, or save with "
                         "full_graph=True once they are gone")
    if specs is None:
        specs = sf._input_spec
    if specs is None:
        seen = sf.program_cache.concrete_programs()
        if not seen:
            raise ValueError(f"oar.jit.save: cannot save '{name}': it has no input_spec and was never called; "
                             "pass input_spec=[InputSpec(...)] or call it once before saving")
        mode = sf._layer.training if sf._layer is not None else None
        same_mode = [cp for cp in seen if mode is None or cp.training == mode]
        cp = (same_mode or seen)[-1]
        try:  # traced on real tensors: trace again with an unknown batch dim so the saved model takes any batch
            return sf.with_dynamic_batch(cp)
        except Exception as e:  # keep the program as traced (exact for that batch size) and say why
            warnings.warn(f"oar.jit.save: '{name}' could not be traced with a dynamic batch dim ({e}); it is "
                          f"saved for the input shapes seen in training {[v.shape for v in cp.inputs]}")
            return cp
    return sf.get_concrete_program(*_as_specs(list(specs)))


def _records_of_static(layer, input_spec, output_spec):
    entries = []
    for name, sf, specs in _methods(layer, input_spec):
        entries.append((name, _concrete(name, sf, specs if name == "forward" else None)))
    return records_from_concrete(entries, layer, output_spec)


def records_from_concrete(entries, layer=None, output_spec=None):
    """(records, tensors, info) for [(method, ConcreteProgram)]; `layer` gives structured names and the mode."""
    from ..nn.layer import Layer
    is_layer = isinstance(layer, Layer)
    training = is_layer and bool(layer.training)
    records, tensors = {}, {}
    for name, cp in entries:
        rec = _record(name, cp, training, output_spec if name == "forward" else None)
        for n in rec.params:
            tensors[n] = cp.scope.vars[n]
        records[name] = rec
    structured = {id(t): k for k, t in layer.state_dict().items()} if is_layer else {}
    info = {n: {"structured_name": structured.get(id(t)), **_tensor_meta(t)} for n, t in tensors.items()}
    return records, tensors, info


def save_records(path, records, tensors, info, clip_extra=False, fsync=True):
    """Writes the files of `records` (method -> ModelRecord) with weights from `tensors` (var name -> Tensor)
    and `info` (None: no ``.pdiparams.info``, as for a function), replacing the previous files together."""
    path = os.fspath(path)
    _check_paths(path, records)
    files, save_id = {}, new_save_id()
    for rec in records.values():
        pdmodel, pdiparams = file_names(path, rec.method)
        rec = ModelRecord(rec.program, rec.infer_program, rec.inputs, rec.outputs, rec.structure, rec.params,
                          rec.method, rec.train, save_id)
        files[pdmodel] = encode_record(rec, clip_extra)
        if rec.params:
            files[pdiparams] = encode_weights({n: tensors[n]._data for n in rec.params}, save_id)
    if info is not None:
        files[path + ".pdiparams.info"] = encode_info(info, save_id)
    stale = []
    for m in ["forward"] + _saved_methods(path, readable_only=True):
        stale += [f for f in file_names(path, m) if f not in files]
    if path + ".pdiparams.info" not in files:
        stale.append(path + ".pdiparams.info")
    write_files(files, remove=stale, fsync=fsync)


def _method_of(pdmodel):
    """The method a .pdmodel file says it holds (None if unreadable): tells ``net.v2.pdmodel`` saved as its own
    model (method 'forward') from method ``v2`` of ``net``."""
    try:
        d = read_json(pdmodel, "model (.pdmodel)", Budget())
    except ValueError:
        return None
    return d.get("method", "forward") if isinstance(d, dict) else None


def _record(method, cp, training, output_spec):
    prog = cp.main_program
    feeds = list(cp.inputs)
    outs = list(cp.outputs)
    structure = _structure_of(cp, len(outs))
    if output_spec is not None:
        outs, structure = _select_outputs(outs, output_spec)
    out_names = [o.name for o in outs]
    pruned = dead_code_elimination(prog, keep=out_names)
    gb = pruned.global_block()
    for f in feeds:
        if f.name not in gb.vars:  # an input the outputs do not need still stays a feed
            gb.create_var(f.name, f.shape, f.dtype, stop_gradient=f.stop_gradient, is_data=True)
    infer = dead_code_elimination(pruned.clone(for_test=True), keep=out_names)
    main = pruned if training else infer
    used = _persistables_read(main) | (_persistables_read(infer) if training else set())
    params = [n for n in main.global_block().vars if n in used]
    missing = [n for n in params if n not in cp.scope.vars]
    if missing:
        raise ValueError(f"oar.jit.save: persistable variables {missing} of '{method}' have no value (not bound "
                         "to a tensor)")
    spec = [{"name": v.name, "shape": [int(d) for d in gb.vars[v.name].shape], "dtype": v.dtype.name}
            for v in feeds]
    ospec = [{"name": v.name, "shape": [int(d) for d in v.shape], "dtype": v.dtype.name} for v in outs]
    return ModelRecord(main, infer if training else main, spec, ospec, structure, params, method, training)


def _persistables_read(p):
    names = set()
    for b in p.blocks:
        for op in b.ops:
            names.update(op.input_names())
            names.update(op.output_names())
    gb = p.global_block()
    return {n for n in names if n in gb.vars and gb.vars[n].persistable}


def _structure_of(cp, n):
    try:
        s = cp.pack(list(range(n)))
    except Exception:
        return 0 if n == 1 else list(range(n))

    def enc(x):
        if isinstance(x, bool) or x is None:
            return None
        if isinstance(x, int):
            return x
        if isinstance(x, tuple):
            return {"tuple": [enc(v) for v in x]}
        if isinstance(x, list):
            return [enc(v) for v in x]
        if isinstance(x, dict):
            return {"dict": [[str(k), enc(v)] for k, v in x.items()]}
        return None
    return enc(s)


def _select_outputs(outs, output_spec):
    chosen = []
    for o in output_spec:
        if isinstance(o, int) and not isinstance(o, bool):
            if not 0 <= o < len(outs):
                raise ValueError(f"oar.jit.save: output_spec index {o} is out of range ({len(outs)} outputs)")
            chosen.append(outs[o])
            continue
        name = getattr(o, "name", o)
        match = [v for v in outs if v.name == name]
        if not match:
            raise ValueError(f"oar.jit.save: output_spec entry {name!r} is not an output of the program; outputs "
                             f"are {[v.name for v in outs]} (or give indices)")
        chosen.append(match[0])
    return chosen, (0 if len(chosen) == 1 else list(range(len(chosen))))


# ---- load -----------------------------------------------------------------------------------------------------
def _saved_methods(path, readable_only=False):
    """Method names saved under `path` besides forward: files ``path.<method>.pdmodel`` that say they hold
    `method` (``net.v2.pdmodel`` saved as a model of its own is not method ``v2`` of ``net``). A file that
    cannot be read counts unless `readable_only` (loading then reports what is wrong with it; saving never
    removes it)."""
    ok = (None,) if not readable_only else ()
    out = []
    for f in _committed_glob(path, ".*.pdmodel"):
        m = f[len(path) + 1:-len(".pdmodel")]
        if m.isidentifier() and (_method_of(f) in (m,) + ok):
            out.append(m)
    return sorted(out)


def saved_methods(path):
    """All methods saved under the prefix `path` (``forward`` first when ``path.pdmodel`` exists).

    Example:
        >>> from oar.jit.save_load import saved_methods
        >>> oar.jit.save(oar.nn.Linear(2, 2), 'model/net', input_spec=[oar.static.InputSpec([None, 2])])
        >>> saved_methods('model/net')
        ['forward']
    """
    return (["forward"] if _committed_exists(file_names(path)[0]) else []) + _saved_methods(path)


def _committed_exists(path):
    src = committed_path(path)
    return src is not None and os.path.exists(src)


def _committed_glob(path, suffix):
    """The files ``path + suffix`` (a glob) of the committed state: those on disk, plus the new files of a save
    killed after its commit point, less the files it deletes (`oar.core.safe_files`)."""
    view = committed_listing(os.path.dirname(os.path.abspath(path)))
    found = set(glob.glob(glob.escape(path) + suffix))
    pattern = os.path.abspath(glob.escape(path) + suffix)
    for target, src in view.items():
        if fnmatch.fnmatchcase(target, pattern):
            rel = os.path.join(os.path.dirname(path), os.path.basename(target))
            (found.add if src is not None else found.discard)(rel)
    return sorted(found)


def load(path, max_bytes=DEFAULT_MAX_BYTES, max_loop_iterations=DEFAULT_MAX_LOOP_ITERATIONS, place=None, **configs):
    """Loads a model saved by `oar.jit.save` as a `TranslatedLayer` (predicts and fine-tunes).

    Raises ValueError naming the file when a file is missing, truncated, corrupted, inconsistent or over the
    load budget.

    Args:
        path: the prefix given to `oar.jit.save`.
        max_bytes: the load budget (default 1 GiB; None: no limit): the most memory parsing a ``.pdmodel`` may
            take, the most one creation/expansion op (``full``, ``tile``, ``arange``, ...) may produce when the
            model runs, and the most all its constants may take together. Weights do not count.
        max_loop_iterations: the most iterations one run of a ``while`` loop of the model may make (default
            10,000,000; None: no limit); more raise RuntimeError.
        place: where the weights go: 'cpu', 'gpu', 'gpu:N', a CPUPlace or CUDAPlace (None: the current device,
            `oar.set_device`).
        configs: Paddle's ``model_filename`` (then `path` is the model's directory) and ``params_filename``
            (must be that model's ``.pdiparams``); any other name raises ValueError.

    Example:
        >>> net = oar.nn.Linear(4, 2)
        >>> oar.jit.save(net, 'model/net', input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> loaded = oar.jit.load('model/net')
        >>> _ = loaded.eval()
        >>> x = oar.ones([3, 4])
        >>> y = loaded(x)
        >>> bool(oar.allclose(y, net(x)))
        True
    """
    path = _load_prefix(os.fspath(path), configs)
    methods = saved_methods(path)
    if not methods:
        raise ValueError(f"{path}.pdmodel: model file not found (oar.jit.load expects the prefix given to "
                         "oar.jit.save)")
    budget = Budget(max_bytes, max_loop_iterations)
    records, weights = _read_methods(path, methods, budget)
    budgets = {m: budget.with_source(file_names(path, m)[0]) for m in records}
    layer = TranslatedLayer(records, weights, _read_info(path, records, budget), budgets)
    target = place_name(place)
    for t in list(layer.parameters()) + list(layer.buffers()):
        if device_of(t._data) != target:
            t._data = place_array(t._data, target)
    return layer


def _load_prefix(path, configs):
    """The saved model's path prefix from `jit.load`'s `path` and Paddle's two load configs: `model_filename`
    (then `path` is the directory) and `params_filename`, which must name that model's own ``.pdiparams``
    (oar reads a model's weights from beside its program)."""
    unknown = sorted(set(configs) - {"model_filename", "params_filename"})
    if unknown:
        raise ValueError(f"oar.jit.load: unknown config {unknown[0]!r}; the configs are 'model_filename' and "
                         "'params_filename' (Paddle's)")
    model, params = configs.get("model_filename"), configs.get("params_filename")
    if model is None:
        if params is not None:
            raise ValueError("oar.jit.load: params_filename needs model_filename (then path is their directory)")
        return path
    if not str(model).endswith(".pdmodel"):
        raise ValueError(f"oar.jit.load: model_filename must end with '.pdmodel', got {model!r}")
    prefix = os.path.join(path, str(model)[:-len(".pdmodel")])
    if params is not None and os.path.join(path, str(params)) != prefix + ".pdiparams":
        raise ValueError(f"oar.jit.load: params_filename {params!r} must be {os.path.basename(prefix)}.pdiparams, "
                         "the weights saved beside the model (oar reads no separately named weights file)")
    return prefix


def _read_methods(path, methods, budget=None):
    """({method: ModelRecord}, {var name: array}) of the saved `methods` (validated)."""
    records, weights, first = {}, {}, None
    for m in methods:
        pdmodel, pdiparams = file_names(path, m)
        problem = method_name_problem(m)
        if problem:
            raise ValueError(f"{pdmodel}: {problem}")
        rec, w = load_files(pdmodel, pdiparams, budget)
        if rec.method != m:
            raise ValueError(f"{pdmodel}: the file says it holds method {rec.method!r}, its name says {m!r}")
        if rec.save_id and first is not None and first[1] != rec.save_id:
            raise mixed_saves(pdmodel, first[0], rec.save_id, first[1])
        first = first or ((pdmodel, rec.save_id) if rec.save_id else None)
        records[m] = rec
        for n, a in w.items():
            weights.setdefault(n, a)
    return records, weights


def _read_info(path, records, budget=None):
    """The parameter info saved under `path` ({} when there is none), from the same save as `records`."""
    info_path = path + ".pdiparams.info"
    if not _committed_exists(info_path):
        return {}
    rec = next((r for r in records.values() if r.save_id), None)
    return read_info(info_path, budget, rec and rec.save_id, rec and file_names(path, rec.method)[0])


class _StateDict(dict):
    """A dict of Tensors keyed by saved parameter names, with ``name_map``: structured name -> key."""


def load_state_dict_from_prefix(path):
    """The parameters saved under a jit prefix, as {saved name: Tensor} with ``.name_map`` attached.

    Example:
        >>> from oar.jit.save_load import load_state_dict_from_prefix
        >>> net = oar.nn.Linear(4, 2)
        >>> oar.jit.save(net, 'model/net', input_spec=[oar.static.InputSpec([None, 4])])
        >>> state = load_state_dict_from_prefix('model/net')
        >>> sorted(state.name_map)
        ['bias', 'weight']
        >>> _ = net.set_state_dict(state, use_structured_name=False)
    """
    path = os.fspath(path)
    pdiparams = path + ".pdiparams"
    if not _committed_exists(pdiparams):
        raise ValueError(f"{pdiparams}: parameters file not found")
    records, arrays = _read_methods(path, saved_methods(path), Budget())
    info = _read_info(path, records)
    if not arrays and not os.path.exists(path + ".pdmodel"):
        arrays = _read_all_weights(pdiparams)
    out = _StateDict({n: Tensor(np.array(a), name=n) for n, a in arrays.items()})
    out.name_map = {m["structured_name"]: n for n, m in info.items() if m.get("structured_name") and n in out}
    return out


def _read_all_weights(pdiparams):
    return safetensors_file.read_all(committed_path(pdiparams), "parameters file")
