"""`oar serve PREFIX [PREFIX ...]`: the command line of the server."""
import os
import sys


def add_serve_parser(sub):
    """Adds the ``serve`` subcommand to the `oar` command line."""
    p = sub.add_parser("serve", help="serve saved models over the Open Inference Protocol (KServe v2) on HTTP",
                       description="Serve models saved by oar.jit.save over HTTP (KServe v2 / Triton protocol). "
                                   "Stop with Ctrl-C or SIGTERM: requests in flight are answered first.")
    p.add_argument("prefix", nargs="+", help="the prefix given to oar.jit.save (model/net), one per model")
    p.add_argument("--name", action="append", help="the model's name in URLs (default: the prefix's file name); "
                                                   "repeat once per PREFIX")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="inference threads per model (default 1)")
    p.add_argument("--max-batch-size", type=int, default=0,
                   help="join concurrent requests along dim 0 up to N rows (default 0: no batching)")
    p.add_argument("--batch-timeout-ms", type=float, default=2.0,
                   help="how long a request waits for others to join its batch (default 2 ms)")
    p.add_argument("--max-body-mb", type=float, default=64.0, help="largest request body accepted (default 64)")
    p.add_argument("--log-level", default="info", help="uvicorn log level (default info)")
    return p


def load_models(prefixes, names=None, workers=1, max_batch_size=0, batch_timeout_ms=2.0):
    """name -> `ServedModel` for each prefix; ValueError for duplicate names or a bad model file."""
    from .model import ServedModel
    if names and len(names) != len(prefixes):
        raise ValueError(f"--name is given {len(names)} times for {len(prefixes)} models: give it once per PREFIX")
    names = names or [os.path.basename(p[:-len('.pdmodel')] if p.endswith('.pdmodel') else p) for p in prefixes]
    if len(set(names)) != len(names):
        raise ValueError(f"model names {names} repeat: name them with --name")
    return {n: ServedModel(n, p, workers, max_batch_size, batch_timeout_ms) for n, p in zip(names, prefixes)}


def serve_main(args):
    """Runs `oar serve` until interrupted; returns the exit status."""
    try:
        import uvicorn
    except ImportError:
        print("oar serve: needs uvicorn and starlette: pip install 'oar-dl[serve]'", file=sys.stderr)
        return 1
    import logging

    from .app import create_app
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s:     %(message)s")
    try:
        models = load_models(args.prefix, args.name, args.workers, args.max_batch_size, args.batch_timeout_ms)
    except (ValueError, RuntimeError) as e:
        print(f"oar serve: {e}", file=sys.stderr)
        return 1
    for name, m in models.items():
        batching = f"batches of up to {m.max_batch_size} rows" if m.max_batch_size > 1 else "no batching"
        print(f"oar serve: model '{name}' from {m.prefix} ({m.workers} worker(s), {batching}) at "
              f"http://{args.host}:{args.port}/v2/models/{name}", file=sys.stderr, flush=True)
    app = create_app(models, int(args.max_body_mb * (1 << 20)))
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=30)
    return 0
