"""`TracedLayer` (Paddle 2.x's ``paddle.jit.TracedLayer``): one Layer call recorded into a static Program that
runs, optimizes and saves like any other. Recording and guards: `traced.py`; design and limits: docs/tracing.md.

Example:
    >>> net = oar.nn.Linear(3, 2)
    >>> x = oar.ones([4, 3])
    >>> out, traced = oar.jit.TracedLayer.trace(net, inputs=[x])
    >>> again, = traced([x])
    >>> bool((out == again).all()), type(traced.program).__name__
    (True, 'Program')
"""
import os

from ..eager.tensor import Tensor
from .traced import TraceGuardError, record, signature


class TracedLayer:
    """A Layer's forward traced for one input signature (shapes, dtypes). Made by `TracedLayer.trace`.

    Calling it with a list of Tensors runs the program and returns the list of its outputs. A Python decision
    the trace baked in (``if x.sum() > 0`` in ``forward``) that comes out differently raises `TraceGuardError`
    naming the line: a TracedLayer is one fixed program, so it never retraces (use `oar.jit.trace` for that).

    Example:
        >>> class Net(oar.nn.Layer):
        ...     def forward(self, x):
        ...         return x * 2 if x.sum() > 0 else -x
        >>> out, traced = oar.jit.TracedLayer.trace(Net(), [oar.ones([2])])
        >>> traced([oar.full([2], 3.0)])[0].numpy().tolist()
        [6.0, 6.0]
        >>> try:
        ...     traced([-oar.ones([2])])
        ... except oar.jit.TraceGuardError as e:
        ...     print("was True when traced; now False" in str(e))
        True
    """

    def __init__(self, trace, layer, signature_):
        self._trace, self._layer, self._signature = trace, layer, signature_

    @staticmethod
    def trace(layer, inputs):
        """Runs ``layer(*inputs)`` eagerly while recording it. Returns ``(outputs, traced_layer)``: the layer's
        own outputs, and the `TracedLayer`.

        Example:
            >>> net = oar.nn.Sequential(oar.nn.Linear(2, 4), oar.nn.ReLU())
            >>> out, traced = oar.jit.TracedLayer.trace(net, [oar.ones([3, 2])])
            >>> out.shape, [op.type for op in traced.program.global_block().ops]
            ([3, 4], ['matmul', 'add', 'relu'])
        """
        from ..nn.layer import Layer
        if not isinstance(layer, Layer):
            raise TypeError(f"TracedLayer.trace: layer must be an oar.nn.Layer, got {type(layer).__name__} "
                            "(trace a function with oar.jit.trace)")
        inputs = _as_list(inputs, "TracedLayer.trace")
        out, tr = record(layer, inputs, {}, type(layer).__name__, bool(layer.training))
        return out, TracedLayer(tr, layer, signature(inputs, {}, None))

    @property
    def program(self):
        """The traced Program (an ordinary `oar.static.Program`)."""
        return self._trace.program

    @property
    def guards(self):
        """The Python decisions the program assumes (`recorder.Guard`)."""
        return list(self._trace.guards)

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        """Runs the passes `build_strategy` selects on the program for later calls (`exec_strategy` is accepted
        for Paddle's signature; oar's executor has no per-program execution settings and it must be None)."""
        if exec_strategy is not None:
            raise ValueError("TracedLayer.set_strategy: oar has no ExecutionStrategy; pass build_strategy only")
        if build_strategy is not None:
            self._trace.set_build_strategy(build_strategy)

    def __call__(self, inputs):
        inputs = _as_list(inputs, "TracedLayer")
        key = signature(inputs, {}, None)
        if key != self._signature:
            raise ValueError(f"TracedLayer of {type(self._layer).__name__}: traced for inputs "
                             f"{_describe(self._signature)}, called with {_describe(key)}; trace again for "
                             "these shapes (or use oar.jit.trace, which traces once per signature)")
        out, broken, now = self._trace.run(inputs)
        if broken is not None:
            raise TraceGuardError(f"TracedLayer of {type(self._layer).__name__}: {broken.describe(now)}; the "
                                  "traced program took the other way there. Trace again with these inputs, or "
                                  "make the decision with tensor ops")
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def save_inference_model(self, path, feed=None, fetch=None, **kwargs):
        """Saves the program for inference as ``path.pdmodel`` / ``path.pdiparams`` (+ ``.pdiparams.info``),
        which `oar.jit.load`, `oar.inference` and `oar.lite` load.

        Args:
            path: file prefix.
            feed: indices of the inputs the saved model takes (default all); the others must be unused.
            fetch: indices of the outputs it returns (default all).
            kwargs: ``clip_extra`` (drop source locations), ``fsync`` (as `oar.jit.save`).

        A program with guards is saved as traced: the saved model cannot check the Python decisions it bakes in
        (a warning lists them).
        """
        from .save_load import records_from_concrete, save_records
        bad = [k for k in kwargs if k not in ("clip_extra", "fsync")]
        if bad:
            raise ValueError(f"TracedLayer.save_inference_model: unknown argument(s) {bad}")
        path = os.fspath(path)
        cp = self._trace.concrete
        if self._trace.guards:
            import warnings
            lines = "; ".join(g.where() for g in self._trace.guards[:5])
            warnings.warn(f"TracedLayer.save_inference_model: the saved program bakes in the Python decisions made "
                          f"at {lines}; the saved model cannot check them", stacklevel=2)
        records, tensors, info = records_from_concrete([("forward", cp)], self._layer,
                                                       None if fetch is None else list(fetch))
        if feed is not None:
            _select_feeds(records["forward"], cp, list(feed))
        save_records(path, records, tensors, info, clip_extra=bool(kwargs.get("clip_extra", False)),
                     fsync=bool(kwargs.get("fsync", True)))


def _select_feeds(rec, cp, feed):
    names = [v.name for v in cp.inputs]
    for i in feed:
        if not isinstance(i, int) or not 0 <= i < len(names):
            raise ValueError(f"TracedLayer.save_inference_model: feed {feed} must be indices below {len(names)}")
    keep = {names[i] for i in feed}
    used = set()
    for p in (rec.program, rec.infer_program):
        for b in p.blocks:
            for op in b.ops:
                used.update(op.input_names())
    needed = [n for n in names if n not in keep and n in used]
    if needed:
        raise ValueError(f"TracedLayer.save_inference_model: the fetched outputs need inputs {needed}, which feed "
                         f"{feed} leaves out")
    rec.inputs[:] = [s for s in rec.inputs if s["name"] in keep]


def _as_list(inputs, what):
    if isinstance(inputs, Tensor):
        return [inputs]
    if not isinstance(inputs, (list, tuple)) or not all(isinstance(t, Tensor) for t in inputs):
        raise TypeError(f"{what}: inputs must be a list of Tensors")
    return list(inputs)


def _describe(key):
    return ", ".join(f"{list(k[1])} {k[2]}{'' if k[3] else ' (stop_gradient=False)'}"
                     for k in key if isinstance(k, tuple) and k and k[0] == "t")
