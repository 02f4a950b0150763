"""The `oar` command line.

    oar inspect PATH      print a saved model: program text, inputs/outputs, parameters, format version
    oar inspect PATH --dot FILE    write the inference program as a Graphviz dot graph (FILE '-': stdout)
    oar serve PREFIX ...  serve saved models over the Open Inference Protocol (KServe v2) on HTTP (docs/serving.md)

PATH is the prefix given to `oar.jit.save` (``model/net``) or its ``.pdmodel`` file.
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
    """The model prefix of a path given as a prefix, a ``.pdmodel`` file or a Paddle 3 ``.json`` file."""
    path = os.fspath(path)
    for suffix in (".pdmodel", ".json"):
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return path


def inspect_model(path, out=None):
    """Prints the saved model at `path` (prefix or .pdmodel file); returns 0, or raises ValueError."""
    from .graph.model_files import MODEL_FORMAT_VERSION, file_names, load_files
    from .jit.save_load import saved_methods
    from .graph.budget import Budget
    from .graph.serialize import FORMAT_VERSION
    from .graph.paddle_files import sniff
    prefix = _prefix(path)
    methods = saved_methods(prefix)
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
    sub = parser.add_subparsers(dest="command", required=True)
    ins = sub.add_parser("inspect", help="print a saved model (program, inputs/outputs, parameters)")
    ins.add_argument("path", help="the prefix given to oar.jit.save, or its .pdmodel file")
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
