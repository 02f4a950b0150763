"""The `oar` command line.

    oar --version         the version of oar, its distribution (oar-dl), where it is imported from, Python's version
    oar inspect PATH      print a saved model: program text, inputs/outputs, parameters, format version
    oar inspect FILE.pdparams    print the tensors of a file written by oar.save / paddle.save (.pdparams, .pdopt)
    oar inspect PATH --dot FILE    write the inference program as a Graphviz dot graph (FILE '-': stdout)
    oar serve PREFIX ...  serve saved models over the Open Inference Protocol (KServe v2) on HTTP (docs/serving.md)

PATH is the prefix given to `oar.jit.save` (``model/net``), or its ``.pdmodel`` or ``.pdiparams`` file.
"""
import argparse
import os
import sys

from .graph.serialize import clean_text


def _human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


def _prefix(path):
    """The model prefix of `path`: itself, or without its ``.pdmodel`` / ``.pdiparams`` / Paddle 3 ``.json``
    suffix."""
    path = os.fspath(path)
    for suffix in (".pdmodel", ".pdiparams", ".json"):
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return path


def version_text():
    """What `oar --version` prints: version, distribution, the imported package's folder, Python's version."""
    from .core.info import DISTRIBUTION, VERSION
    here = os.path.dirname(os.path.abspath(__file__))
    return f"oar {VERSION} (distribution {DISTRIBUTION}) from {here} (Python {sys.version.split()[0]})"


class _Version(argparse.Action):
    """`--version` printed as one line (argparse's own version action wraps it at the terminal width)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def inspect_saved_file(path, out=None):
    """Prints the tensors (name : dtype[shape]) and other values of a file written by `oar.save` or Paddle's
    `paddle.save` (a ``.pdparams`` state dict, a ``.pdopt`` optimizer state); returns 0, or raises ValueError."""
    import numpy as np
    from .io.save_load import load
    try:
        obj = load(path, return_numpy=True)
    except (ValueError, RuntimeError, OSError) as e:
        raise ValueError(f"{path}: not a saved model prefix, and not readable as a file written by oar.save / "
                         f"paddle.save ({e})") from None
    leaves = []   # (dotted name, value), depth first in the file's order
    stack = [("", obj)]
    while stack:
        name, v = stack.pop()
        if isinstance(v, dict):
            stack.extend((f"{name}.{k}" if name else str(k), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, (list, tuple)):
            stack.extend((f"{name}[{i}]", x) for i, x in reversed(list(enumerate(v))))
        else:
            leaves.append((name or "(value)", v))
    arrays = [(n, a) for n, a in leaves if isinstance(a, np.ndarray)]
    w = (out or sys.stdout).write
    n = sum(int(a.size) for _, a in arrays)
    w(f"file: {path} (written by oar.save / paddle.save; a state dict, not a model: no program)\n")
    w(f"tensors: {len(arrays)}, {n:,} values, {_human(sum(int(a.nbytes) for _, a in arrays))}\n")
    for name, v in leaves:
        if isinstance(v, np.ndarray):
            w(f"  {name} : {v.dtype}{list(v.shape)}\n")
        else:
            w(f"  {name} = {clean_text(repr(v), 100)}\n")
    return 0


def inspect_model(path, out=None):
    """Prints the saved model at `path` (prefix, .pdmodel or .pdiparams file), or the tensors of a file written by
    `oar.save` / `paddle.save` (`inspect_saved_file`); returns 0, or raises ValueError."""
    from .graph.model_files import MODEL_FORMAT_VERSION, file_names, load_files
    from .jit.save_load import saved_methods
    from .graph.budget import Budget
    from .graph.serialize import FORMAT_VERSION
    from .graph.paddle_files import sniff
    prefix = _prefix(path)
    methods = saved_methods(prefix)
    if not methods and os.path.isfile(path) and prefix == path:
        return inspect_saved_file(path, out)
    if not methods and path.endswith((".pdparams", ".pdopt")):
        raise ValueError(f"{path}: no such file")
    if not methods:
        raise ValueError(f"{prefix}.pdmodel: model file not found")
    loaded = [(m, *load_files(*file_names(prefix, m), Budget())) for m in methods]  # all checked before printing
    w = (out or sys.stdout).write
    paddle = sniff(file_names(prefix)[0])
    fmt = f"Paddle {paddle} model file (translated)" if paddle else \
        f"oar.model v{MODEL_FORMAT_VERSION}, program JSON v{FORMAT_VERSION}"
    w(f"model: {prefix}\nformat: {fmt}\n")
    for m, rec, weights in loaded:
        w(f"\n== method {m} (saved in {'train' if rec.train else 'eval'} mode) ==\n")
        for title, specs in (("inputs", rec.inputs), ("outputs", rec.outputs)):
            w(f"{title}:\n")
            for s in specs:
                w(f"  {s['name']} : {s['dtype']}{s['shape']}\n")
        n = sum(int(a.size) for a in weights.values())
        size = sum(int(a.nbytes) for a in weights.values())
        w(f"parameters: {len(weights)} tensors, {n:,} values, {_human(size)}\n")
        for name, a in weights.items():
            w(f"  {name} : {a.dtype}{list(a.shape)}\n")
        w("program:\n")
        w(str(rec.infer_program) + "\n")
        if rec.program is not rec.infer_program:
            w("train program:\n")
            w(str(rec.program) + "\n")
    return 0


def write_dot(path, dot_file, method=None):
    """Writes the inference program of the model at `path` (its `method`, default the first saved) as dot."""
    from .jit.save_load import saved_methods
    from .graph.budget import Budget
    from .graph.dot import program_to_dot
    from .graph.model_files import file_names, read_record
    prefix = _prefix(path)
    methods = saved_methods(prefix)
    if not methods:
        raise ValueError(f"{prefix}.pdmodel: model file not found")
    if method is not None and method not in methods:
        raise ValueError(f"{prefix}: no saved method {method!r}; saved methods are {methods}")
    rec = read_record(file_names(prefix, method or methods[0])[0], Budget())  # the budget of inspect_model
    text = program_to_dot(rec.infer_program, rec.input_names, rec.output_names)
    if dot_file == "-":
        sys.stdout.write(text)
    else:
        with open(dot_file, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="oar", description="oar command line tools")
    parser.add_argument("--version", action=_Version, help="print the version, distribution and location; exit")
    sub = parser.add_subparsers(dest="command", required=True)
    ins = sub.add_parser("inspect", help="print a saved model (program, inputs/outputs, parameters), or the "
                                         "tensors of a .pdparams / .pdopt file")
    ins.add_argument("path", help="the prefix given to oar.jit.save, its .pdmodel or .pdiparams file, or a file "
                                  "written by oar.save / paddle.save")
    ins.add_argument("--dot", metavar="FILE", nargs="?", const="-",
                     help="write the inference program as a Graphviz dot graph to FILE (default: stdout)")
    ins.add_argument("--method", help="with --dot: the saved method to draw (default: the first, forward)")
    from .serving.cli import add_serve_parser
    add_serve_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "inspect":
        try:
            return inspect_model(args.path) if args.dot is None else write_dot(args.path, args.dot, args.method)
        except (ValueError, RuntimeError) as e:
            print(f"oar inspect: {e}", file=sys.stderr)
            return 1
        except BrokenPipeError:  # `oar inspect m | head`: the reader left; stop quietly, as `cat` does
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
            return 141
        except OSError as e:  # a file that vanished, a permission, a special file: one line, no traceback
            where = e.filename if e.filename is not None else args.path
            print(f"oar inspect: {clean_text(where, 300)}: {e.strerror or e}", file=sys.stderr)
            return 1
    if args.command == "serve":
        from .serving.cli import serve_main
        return serve_main(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
