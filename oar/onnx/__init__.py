"""ONNX export (`oar.onnx.export`, Paddle's ``paddle.onnx.export``). Needs the optional `onnx` package
(``pip install 'oar-dl[onnx]'``); importing `oar.onnx` does not import it.

Each op's lowering ``lower(ctx, op)`` is its `OpDef.onnx`, written beside the op's `defop` in its family file
(see `context.Context` for what a lowering may call); docs/onnx.md lists the supported ops.

Example:
    >>> from oar.static import InputSpec
    >>> net = oar.nn.Linear(784, 10)
    >>> oar.onnx.export(net, 'model/net', input_spec=[InputSpec([None, 784], 'float32', 'x')])
    'model/net.onnx'
"""


def export(layer, path, input_spec=None, opset_version=13, **configs):
    """Exports a Layer or function to ``path + '.onnx'``; see `oar.onnx.exporter.export`.

    Example:
        >>> net = oar.nn.Linear(4, 2)
        >>> oar.onnx.export(net, 'linear', input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        'linear.onnx'
        >>> import onnx; [i.name for i in onnx.load('linear.onnx').graph.input]
        ['x']
    """
    from .exporter import export as _export
    return _export(layer, path, input_spec, opset_version, **configs)
