"""ONNX export (`oar.onnx.export`, Paddle's ``paddle.onnx.export``). Needs the optional `onnx` package
(``pip install 'oar[onnx]'``); importing `oar.onnx` does not import it.

Each op's lowering is registered on its `OpDef` as ``extra['onnx'] = lower(ctx, op)`` by the `lower_*`
modules (see `context.Context` for what a lowering may call); docs/onnx.md lists the supported ops.

Example:
    >>> oar.onnx.export(net, 'model/net', input_spec=[InputSpec([None, 784], 'float32', 'x')])
    >>> # writes model/net.onnx
"""


def export(layer, path, input_spec=None, opset_version=13, **configs):
    from .exporter import export as _export
    return _export(layer, path, input_spec, opset_version, **configs)


export.__doc__ = """Exports a Layer or function to ``path + '.onnx'``; see `oar.onnx.exporter.export`."""
