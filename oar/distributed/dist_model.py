"""Paddle's auto-parallel `to_static` and its `DistModel`: a layer, loss and optimizer run one step per call
through `oar.jit.to_static` (a training step is captured as one program: forward, backward and the updates).
Distributed parameters hold their whole value on every rank (see dtensor.py), so a step computes what the
dynamic-graph step computes; `Strategy` options that would change how (pipelining, gradient merging, sharding,
AMP, fused passes) are refused rather than ignored."""
from ..core.state import no_grad
from ..eager.tensor import Tensor
from .strategy import Strategy

_MODES = ("train", "eval", "predict")


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _steps(net, loss_fn, opt):
    """The train, eval and predict steps (plain functions: `oar.jit.to_static` converts each)."""
    def train_step(inputs, labels):
        loss = loss_fn(net(*inputs), *labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    def eval_step(inputs, labels):
        return loss_fn(net(*inputs), *labels)

    def predict_step(inputs):
        return net(*inputs)

    return {"train": train_step, "eval": eval_step, "predict": predict_step}


class DistModel:
    """What `to_static` returns: call it with a batch to run one step of the current mode.

    Modes (set by `train()`, `eval()`, `predict()`; the default is ``train`` with a loss and an optimizer,
    ``eval`` with only a loss, else ``predict``):
        - train: ``model(*inputs, *labels)`` runs forward, ``loss(outputs, *labels)``, backward and
          ``optimizer.step()``; returns the loss.
        - eval: the same without backward and update (gradients off); returns the loss.
        - predict: ``model(*inputs)`` returns the layer's output.
    Inputs and labels split as the loader's samples do (``(inputs, labels)``, as Paddle reads them); without a
    loader, the last argument is the label.

    Example:
        >>> net = oar.nn.Linear(2, 1)
        >>> opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
        >>> m = oar.distributed.to_static(net, loss=oar.nn.MSELoss(), optimizer=opt)
        >>> loss = m(oar.ones([4, 2]), oar.zeros([4, 1]))     # one training step
        >>> m.predict(); m(oar.ones([4, 2])).shape
        [4, 1]
    """

    def __init__(self, layer, loader=None, loss=None, optimizer=None, strategy=None):
        from ..jit import to_static as jit_to_static
        from ..nn import Layer
        if not isinstance(layer, Layer):
            raise TypeError(f"to_static: layer must be an oar.nn.Layer, got {type(layer).__name__}")
        if strategy is not None:
            if not isinstance(strategy, Strategy):
                raise TypeError(f"to_static: strategy must be an oar.distributed.Strategy, got "
                                f"{type(strategy).__name__}")
            on = [c for c in ("pipeline", "gradient_merge", "sharding", "amp", "fused_passes")
                  if getattr(strategy, c).enable]
            if on:
                raise NotImplementedError(f"to_static: Strategy options {on} are enabled; oar does not implement "
                                          "them in to_static (disable them, or use oar.amp / DataParallel "
                                          "directly)")
        self.network, self._loss, self._optimizer = layer, loss, optimizer
        self._n_labels = None
        if loader is not None:
            dataset = getattr(loader, "dataset", None)
            if dataset is None:
                raise TypeError(f"to_static: loader must be an oar.io.DataLoader, got {type(loader).__name__}")
            sample = dataset[0]
            if not (isinstance(sample, (list, tuple)) and len(sample) == 2):
                raise ValueError("to_static: the loader's samples must be (inputs, labels), as Paddle reads them; "
                                 f"got {type(sample).__name__} of {len(sample) if hasattr(sample, '__len__') else 1}")
            self._n_labels = len(_as_list(sample[1]))
        self._steps = {k: jit_to_static(f) for k, f in _steps(layer, loss, optimizer).items()}
        self._mode = None
        if optimizer is not None and loss is not None:
            self.train()
        elif loss is not None:
            self.eval()
        else:
            self.predict()

    # ---- modes -------------------------------------------------------------------------------------------------
    def train(self):
        """Calls train: forward, loss, backward, update; return the loss."""
        if self._loss is None or self._optimizer is None:
            raise ValueError("DistModel.train: give to_static a loss and an optimizer to train")
        self._mode = "train"
        self.network.train()

    def eval(self):
        """Calls evaluate: forward and loss; return the loss."""
        if self._loss is None:
            raise ValueError("DistModel.eval: give to_static a loss to evaluate")
        self._mode = "eval"
        self.network.eval()

    def predict(self):
        """Calls predict: return the layer's outputs."""
        self._mode = "predict"
        self.network.eval()

    def __call__(self, *args):
        feeds = []
        for a in args:
            items = _as_list(a)
            for t in items:
                if not isinstance(t, Tensor):
                    raise TypeError(f"DistModel: inputs must be Tensors or lists of them, got {type(t).__name__}")
            feeds += items
        if self._mode == "predict":
            return self._steps["predict"](feeds)
        n = 1 if self._n_labels is None else self._n_labels
        if len(feeds) <= n:
            raise ValueError(f"DistModel ({self._mode}): expected the inputs then {n} label(s), got {len(feeds)} "
                             "tensors")
        if self._mode == "eval":
            with no_grad():
                return self._steps["eval"](feeds[:-n], feeds[-n:])
        return self._steps["train"](feeds[:-n], feeds[-n:])

    def state_dict(self, mode="all"):
        """The layer's parameters and buffers (``"param"``), the optimizer's state (``"opt"``) or both
        (``"all"``)."""
        if mode not in ("all", "param", "opt"):
            raise ValueError(f"DistModel.state_dict: mode must be 'all', 'param' or 'opt', got {mode!r}")
        state = {}
        if mode in ("all", "param"):
            state.update(self.network.state_dict())
        if mode in ("all", "opt") and self._optimizer is not None:
            state.update(self._optimizer.state_dict())
        return state


def to_static(layer, loader=None, loss=None, optimizer=None, strategy=None):
    """A `DistModel` running `layer` (with `loss` and `optimizer` when given) one converted step per call.

    Args:
        layer: an `oar.nn.Layer` (its parameters may be distributed: `shard_layer`, `shard_tensor`).
        loader: an `oar.io.DataLoader` whose samples are ``(inputs, labels)``: tells how many of a call's tensors
            are labels (default 1).
        loss: ``loss(outputs, *labels)``, a Layer or function; needed by ``train`` and ``eval``.
        optimizer: needed by ``train`` (e.g. from `shard_optimizer`).
        strategy: a `Strategy`; enabled options are refused (oar does not implement them here).

    Example:
        >>> m = oar.distributed.to_static(oar.nn.Linear(2, 3))
        >>> m(oar.ones([1, 2])).shape
        [1, 3]
    """
    return DistModel(layer, loader, loss, optimizer, strategy)
