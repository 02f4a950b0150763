"""The HTTP side: a Starlette application with the Open Inference Protocol's endpoints, and `Server`, which runs it
with uvicorn in a background thread (for tests, benchmarks and notebooks; `oar serve` runs it in the foreground).

Every error a client can cause is a 4xx response with a JSON body ``{"error": "..."}``; the server keeps serving.
"""
import logging
import threading

from .protocol import HEADER_LENGTH, ProtocolError, decode_request, decompress, encode_response, split_body

log = logging.getLogger("oar.serving")
MAX_BODY_BYTES = 64 << 20


def _json_error(status, message):
    from starlette.responses import JSONResponse
    return JSONResponse({"error": message}, status_code=status)


async def _read_body(request, limit):
    from starlette.requests import ClientDisconnect
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ProtocolError(413, f"request body of {declared} bytes exceeds the {limit}-byte limit")
    chunks, n = [], 0
    try:
        async for chunk in request.stream():
            n += len(chunk)
            if n > limit:
                raise ProtocolError(413, f"request body exceeds the {limit}-byte limit")
            chunks.append(chunk)
    except ClientDisconnect:  # the client's problem, not the server's: one line, no traceback
        client = f"{request.client.host}:{request.client.port}" if request.client else "a client"
        log.info("%s disconnected while sending the body of %s (%d of %s bytes received)", client,
                 request.url.path, n, declared or "?")
        raise ProtocolError(499, "client disconnected while sending the request body") from None
    return b"".join(chunks)


def create_app(models, max_body_bytes=MAX_BODY_BYTES):
    """The ASGI application serving `models` (name -> `ServedModel`).

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> from oar.serving import ServedModel, create_app
        >>> app = create_app({'net': ServedModel('net', 'model/net')})   # then: uvicorn.run(app)
    """
    import contextlib

    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from ..core.info import VERSION as __version__

    def model_of(request):
        name, version = request.path_params["name"], request.path_params.get("version")
        m = models.get(name)
        if m is None:
            raise ProtocolError(404, f"unknown model {name!r:.80}; this server has {sorted(models)}")
        if version not in (None, "", m.version):
            raise ProtocolError(404, f"model '{name}' has no version {version!r:.20} (versions: [{m.version!r}])")
        return m

    async def server_metadata(request):
        return JSONResponse({"name": "oar", "version": __version__, "extensions": ["binary_tensor_data"]})

    async def live(request):
        return JSONResponse({"live": True})

    async def ready(request):
        return JSONResponse({"ready": True})

    async def model_metadata(request):
        return JSONResponse(model_of(request).metadata())

    async def model_ready(request):
        model_of(request)
        return JSONResponse({"name": request.path_params["name"], "ready": True})

    async def infer(request):
        model = model_of(request)
        body = await _read_body(request, max_body_bytes)
        body = decompress(body, request.headers.get("content-encoding"), max_body_bytes)
        doc, tail = split_body(body, request.headers.get(HEADER_LENGTH))
        arrays, wanted, rid = decode_request(doc, tail, model)
        try:
            values = await model.infer(arrays)
        except (ValueError, TypeError, IndexError) as e:  # inputs the specs allow but the program rejects
            # the client gets the first line; the op and source lines that follow are for the server's log
            log.warning("model '%s' rejected a request: %s", model.name, e)
            first_line = (str(e).splitlines() or [type(e).__name__])[0]
            first_line = first_line.split(": running the model failed: ", 1)[-1]  # the server's file path stays here
            raise ProtocolError(400, f"model '{model.name}' rejected the inputs: {first_line}") from None
        body, head_len = encode_response(model, values, wanted, rid)
        if head_len is None:
            return Response(body, media_type="application/json")
        return Response(body, media_type="application/octet-stream", headers={HEADER_LENGTH: str(head_len)})

    async def on_protocol_error(request, exc):
        return _json_error(exc.status, str(exc))

    async def on_http_error(request, exc):
        return _json_error(exc.status_code, str(exc.detail))

    async def on_error(request, exc):
        log.exception("internal error serving %s", request.url.path)
        return _json_error(500, f"internal error: {type(exc).__name__}: {exc}")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        for m in models.values():  # uvicorn has answered every open request before this runs
            await m.close()

    model_routes = [("", model_metadata, "GET"), ("/ready", model_ready, "GET"), ("/infer", infer, "POST")]
    routes = [Route("/v2", server_metadata, methods=["GET"]), Route("/v2/health/live", live, methods=["GET"]),
              Route("/v2/health/ready", ready, methods=["GET"])]
    for base in ("/v2/models/{name}", "/v2/models/{name}/versions/{version}"):
        routes += [Route(base + suffix, fn, methods=[method]) for suffix, fn, method in model_routes]
    return Starlette(routes=routes, lifespan=lifespan,
                     exception_handlers={ProtocolError: on_protocol_error, HTTPException: on_http_error,
                                         Exception: on_error})


class Server:
    """Runs `models` over HTTP with uvicorn in a background thread; a context manager that always stops it.

    Args:
        models: name -> `ServedModel`.
        host, port: where to listen (port 0: a free port, read back from `port` after `start`).
        max_body_bytes: the largest request body accepted (413 above).

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> from oar.serving import Server, ServedModel
        >>> with Server({'net': ServedModel('net', 'model/net')}) as server:
        ...     server.url.startswith('http://127.0.0.1:')
        True
    """

    def __init__(self, models, host="127.0.0.1", port=0, max_body_bytes=MAX_BODY_BYTES, graceful_timeout=30.0):
        import uvicorn
        config = uvicorn.Config(create_app(models, max_body_bytes), host=host, port=port, log_level="warning",
                                timeout_graceful_shutdown=graceful_timeout, lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = None
        self.host, self.port = host, port

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    def start(self, timeout=30.0):
        """Starts serving; returns once the socket is listening (RuntimeError after `timeout` seconds)."""
        self._thread = threading.Thread(target=self._server.run, name="oar-serve", daemon=True)
        self._thread.start()
        deadline = threading.Event()
        for _ in range(int(timeout / 0.01)):
            if self._server.started or not self._thread.is_alive():
                break
            deadline.wait(0.01)
        if not self._server.started:
            self.stop()
            raise RuntimeError(f"the server did not start on {self.host}:{self.port} within {timeout} s")
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self, timeout=30.0):
        """Stops accepting connections, finishes the requests in flight, then returns."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
