"""`oar.serving`: saved models served over the Open Inference Protocol (KServe v2) on HTTP.

``oar serve model/net`` from the shell (see docs/serving.md), or from Python:

Example:
    >>> from oar.serving import Server, ServedModel
    >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
    ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
    >>> with Server({'net': ServedModel('net', 'model/net', max_batch_size=32)}) as server:
    ...     url = server.url       # POST {url}/v2/models/net/infer; tritonclient.http works as the client

Needs the ``serve`` extra (uvicorn and starlette): ``pip install 'oar-dl[serve]'``.
"""
from .app import Server, create_app
from .model import ServedModel, TensorSpec
from .protocol import ProtocolError

__all__ = ["Server", "ServedModel", "TensorSpec", "ProtocolError", "create_app"]
