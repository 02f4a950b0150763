"""A public function must read every parameter it accepts (issue 25: arguments accepted and silently ignored).

The scan parses every module of `oar` and, for each public function and method (``__init__`` included), lists
the parameters its body never names. A parameter may stay unread only with a reason below: a Paddle argument
that changes nothing oar computes, a signature fixed by a protocol, or a documented open item. A function whose
body only raises (a refusal) is not scanned.
"""
import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1] / "oar"

# (file regex, qualified-name regex, parameter) -> reason; file and name regexes match from the start
RULES = [
    (r"oar/(io/static_checkpoint|jit/inference_model|distributed/io|graph/moving_average|incubate/optimizer)", r".*",
     "executor",
     "Paddle passes the Executor whose scope holds the values; oar's executors share the global scope read here"),
    (r"oar/jit/lazy", r"LazyGraph\.observe$", "(t|array)", "the `eager.tensor.set_observer` protocol passes "
                                                         "(tensor, kind, array); the pending graph needs the kind"),
    (r"oar/kernels/indexing", r"segment_count$", "attrs", "out_elements protocol: (arrays, attrs)"),
    (r"oar/distributed/auto_parallel", r"Placement\.is_shard$", "dim", "the base placement is a shard of no dim"),
    (r"oar/distributed/checkpoint", r"(save|load)_state_dict$",
     "(coordinator_rank|safetensors|save_replicas|offload|mw_name_compatibility|worker_groups|comm_method)",
     "how Paddle's ranks share writing and reading its files (and its file format); every oar rank writes and "
     "reads its own safetensors files (docs/distributed.md)"),
    (r"oar/distributed/collective_more", r"wait$", "use_calc_stream", "a CUDA stream choice: oar has no streams"),
    (r"oar/(geometric/sampling|incubate/graph)", r".*", "(value_buffer|index_buffer|perm_buffer|flag_.*)",
     "buffers and flags that speed up Paddle's GPU kernel; the result is the same"),
    (r"oar/incubate/optimizer", r"ModelAverage\.minimize$", "(loss|startup_program|parameters|no_grad_set)",
     "Paddle's dynamic-mode ModelAverage.minimize only steps (the training optimizer has used the loss)"),
    (r"oar/ops/short_names", r"isin$", "assume_unique", "Paddle's speed hint that x and test_x hold unique "
                                                        "elements; the answer is the same without it"),
    (r"oar/nn/static_functions", r"batch_norm$", "in_place", "a memory hint of Paddle's static batch_norm; "
                                                              "the result is the same"),
    (r"oar/vision/models/googlenet", r"Inception\.__init__$", "output_channels",
     "Paddle's signature; the branch widths give the output channels"),
    (r"oar/distribution/transform", r"AffineTransform\.(forward|inverse)_log_det_jacobian$", "x|y",
     "Paddle returns log|scale| with the parameters' shape, not broadcast against the input (docs/numerics.md)"),
    (r"oar/quantization/(quanters|observers)", r"(FakeQuanterWithAbsMaxObserverLayer|AbsmaxObserverLayer)\.__init__$",
     "layer", "Paddle's quanter signature passes the quantized layer; the abs-max quanter and observer need nothing "
     "from it"),
    (r"oar/slim/prune", r"PruningPlan\.restore$", "model", "PaddleSlim's signature; the plan keeps the layers it "
                                                           "changed and restores those"),
    (r".*", r".*", "name", "Paddle's `name=` names the graph variable an op creates; oar names its values itself"),
    (r"oar/kernels/", r".*_grad$", "*", "a gradient kernel takes the op's inputs and outputs in a fixed order; "
                                        "some gradients need only some of them"),
    (r"oar/kernels/", r"(full|reshape)_dynamic$", "static_shape", "the attr the static shape inference reads; "
                                                                  "the kernel reads the shape tensor"),
    (r"oar/kernels/", r"(full|arange)_dynamic_count$", "attrs", "out_elements protocol: (arrays, attrs)"),
    (r"oar/kernels/tensor_array", r".*", "*", "tensor-array kernels share one signature per op kind"),
    (r"oar/kernels/fused", r".*", "reuse_out(put)?", "a buffer-reuse hint of the fusion pass; the result is the same"),
    (r"oar/kernels/norm", r"batch_norm_grad$", "*", "the grad op keeps the forward op's attrs; the saved inverse "
                                                    "std already holds epsilon"),
    (r"oar/kernels/search", r"topk$", "sorted", "Paddle: with sorted=False the order is unspecified; sorted is "
                                                "one valid order"),
    (r"oar/kernels/metric", r"auc_update$", "curve", "the op attr for the final auc kernel; updating the "
                                                     "histograms is the same for ROC and PR"),
    (r"oar/kernels/detection", r"generate_proposals$", "eta", "eta != 1 is refused by "
                                                              "oar.vision.ops.generate_proposals"),
    (r"oar/ops/common", r"infer_.*", "attrs", "infer protocol: (metas, **attrs)"),
    (r"oar/hapi/", r".*\.on_.*", "(logs|step|epoch)", "callback protocol: every hook receives these"),
    (r"oar/nn/decode\.py", r"BeamSearchDecoder\.finalize$", "sequence_lengths", "Decoder protocol: dynamic_decode "
     "passes the lengths to every finalize; beam search's are already in final_states.lengths"),
    (r"oar/jit/transformers/", r".*", "ctx", "converter protocol: transform(tree, ctx)"),
    (r"oar/jit/static_values", r"no_state$", "args", "a state getter/setter called with the loop's state"),
    (r"oar/jit/loop_runtime", r"convert_for$", "target", "the loop target is assigned by the rewritten code"),
    (r"oar/jit/log", r"set_(verbosity|code_level)$", "also_to_stdout", "oar's jit log always goes to stderr "
                                                                       "and the logging module"),
    (r"oar/inference/ort_backend", r"OrtRunner\..*", "scope", "runner protocol; ONNX Runtime holds its weights"),
    (r"oar/passes/", r"(constant_folding|fuse_optimizer_updates)$", "keep", "pass protocol: (program, keep)"),
    (r"oar/passes/graph", r"names_read_inside$", "program", "analysis protocol"),
    (r"oar/graph/cf_grad", r"cond_grad$", "outs", "gradient-rule protocol (g, outs, *inputs)"),
    (r"oar/graph/control_flow", r"cond$", "return_names", "Paddle's internal argument"),
    (r"oar/graph/executor", r"Executor\.run$", "(feed_var_name|fetch_var_name|use_program_cache|use_prune)",
     "documented: oar feeds/fetches by name, always caches and prunes"),
    (r"oar/graph/variable", r"Variable\.backward$", "retain_graph", "static graphs are not freed"),
    (r"oar/graph/metric", r"auc$", "topk", "deprecated in Paddle and unread there too"),
    (r"oar/graph/builder", r"data$", "lod_level", "OPEN: LoD tensors do not exist in oar"),
    (r"oar/graph/builder", r"(disable_static)$", "place", "one device: the CPU"),
    (r"oar/graph/builder", r"create_global_var$", "force_cpu", "one device: the CPU"),
    (r"oar/graph/backward", r"append_backward$", "callbacks", "OPEN: per-op callbacks of append_backward"),
    (r"oar/graph/debug_ops", r"Print$", "(print_tensor_lod|print_phase)", "OPEN: Print prints in the forward "
                                                                          "pass only; no LoD"),
    (r"oar/ir/program", r"Program\.to_string$", "(throw_on_error|with_details)", "one text form (docs/ir.md)"),
    (r"oar/eager/device", r"cuda$", "blocking", "a copy to the GPU finishes before the next op reads it (one "
                                               "CuPy stream orders them): both values give the same result"),
    (r"oar/core/fake_device", r"FakeArray\.get$", "stream", "CuPy's signature; the fake device has no streams"),
    (r"oar/eager/engine", r"grad$", "only_inputs", "deprecated in Paddle and unread there too"),
    (r"oar/fluid/dygraph", r".*", "(place|zero_copy)", "one device, NumPy-backed tensors"),
    (r"oar/sparse/tensor", r".*", "place", "one device: the CPU"),
    (r"oar/tensor/__init__", r"fill_constant$", "force_cpu", "one device: the CPU"),
    (r"oar/amp/__init__", r"is_(b)?float16_supported$", "device", "one device: the CPU"),
    (r"oar/nn/layer", r"Layer\.to$", "blocking", "copies finish before the next op reads them"),
    (r"oar/nn/layer", r"Layer\.state_dict$", "use_hook", "OPEN: state-dict hooks"),
    (r"oar/nn/layer/norm", r"BatchNorm\.__init__$", "(in_place|do_model_average_for_mean_and_var)",
     "documented: change nothing Paddle 2.x computes"),
    (r"oar/nn/layer/common", r"Embedding\.__init__$", "sparse", "a dense gradient gives the same update"),
    (r"oar/ops/nn/common", r"embedding$", "sparse", "a dense gradient gives the same update"),
    (r"oar/nn/layer/common", r"Identity\.__init__$", "(args|kwargs)", "Paddle's Identity takes and ignores any args"),
    (r"oar/nn/functional/loss", r"softmax_with_cross_entropy$", "numeric_stable_mode",
     "oar's kernel is always the stable form"),
    (r"oar/nn/layer/rnn", r"BiRNN\.forward$", "kwargs", "OPEN: extra cell arguments of BiRNN"),
    (r"oar/ops/nn/conv", r"resolve_pads$", "dilations", "padding helper protocol"),
    (r"oar/ops/matrix", r"cdist$", "compute_mode", "a speed choice in Paddle; oar computes the exact distance"),
    (r"oar/ops/rearrange", r"meshgrid$", "kwargs", "Paddle's meshgrid(*args, **kwargs) takes only name"),
    (r"oar/ops/search", r"(arg)?sort$", "stable", "oar's sort is always stable (a valid order either way)"),
    (r"oar/optimizer/", r".*\.__init__$", "(lazy_mode|use_multi_tensor)", "speed options: lazy_mode acts on "
                                                                          "sparse gradients only"),
    (r"oar/optimizer/", r".*\.__init__$", "multi_precision", "OPEN: float32 master weights of float16 "
                                                             "parameters in the optimizer (amp.decorate keeps "
                                                             "them instead)"),
    (r"oar/passes/compiled_program", r".*with_data_parallel$", "(loss_name|exec_strategy|places)",
     "deprecated in Paddle 2.x; data parallelism is oar.distributed"),
    (r"oar/quantization/ptq", r".*__init__$", "(executor|onnx_format|optimize_model|is_use_cache_file|cache_dir)",
     "documented in PostTrainingQuantization"),
    (r"oar/metric/metrics", r".*", "(args|kwargs)", "Paddle's metric signatures take and ignore them"),
    (r"oar/distributed/parallel", r"DataParallel\.__init__$", "strategy", "deprecated in Paddle 2.x"),
    (r"oar/distributed/spawn", r".*", "(daemon|timeout)", "OPEN: spawn waits for the MPI job; no daemon or "
                                                           "join timeout"),
    (r"oar/sparse/nn/conv", r"subm_conv[23]d$", "key", "Paddle's rulebook cache key; oar recomputes the rules"),
]


def _unread_parameters():
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        tree = ast.parse(path.read_text(), filename=rel)
        out += [(rel, q, p) for q, p in _scan(tree, "", True)]
    return out


def _only_raises(fn):
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return all(isinstance(b, (ast.Raise, ast.Pass)) or
               (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)) for b in body)


def _scan(node, prefix, public):
    for ch in ast.iter_child_nodes(node):
        if isinstance(ch, ast.ClassDef):
            yield from _scan(ch, prefix + ch.name + ".", public and not ch.name.startswith("_"))
        elif isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not public or (ch.name.startswith("_") and ch.name != "__init__") or _only_raises(ch):
                continue
            a = ch.args
            params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
            params += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
            read = {n.id for n in ast.walk(ch) if isinstance(n, ast.Name)}
            for p in params:
                if p not in ("self", "cls") and not p.startswith("_") and p not in read:
                    yield prefix + ch.name, p


def _reason(path, qualname, param):
    for file_re, name_re, param_re, reason in RULES:
        if re.match(file_re, path) and re.match(name_re + "$", qualname) and \
                (param_re == "*" or re.fullmatch(param_re, param)):
            return reason
    return None


def test_every_public_parameter_is_read_or_has_a_reason():
    unexplained = [f"{path}: {q}({p})" for path, q, p in _unread_parameters() if _reason(path, q, p) is None]
    assert not unexplained, ("public functions accept parameters their body never reads (make each work, raise "
                             "for values oar cannot honour, or add a rule with a reason):\n  "
                             + "\n  ".join(unexplained))


def test_the_scan_finds_an_ignored_parameter():
    tree = ast.parse("def f(x, flag=False, name=None):\n    return x\n\ndef g(x):\n    raise NotImplementedError\n")
    found = list(_scan(tree, "", True))
    assert found == [("f", "flag"), ("f", "name")]
    assert _reason("oar/x.py", "f", "name") is not None and _reason("oar/x.py", "f", "flag") is None


def test_every_rule_is_still_needed():
    hits = _unread_parameters()
    unused = [r[:3] for r in RULES if not any(_reason_of_rule(r, h) for h in hits)]
    assert not unused, f"rules that match no unread parameter any more (remove them): {unused}"


def _reason_of_rule(rule, hit):
    file_re, name_re, param_re, _ = rule
    path, q, p = hit
    return re.match(file_re, path) and re.match(name_re + "$", q) and (param_re == "*" or re.fullmatch(param_re, p))
