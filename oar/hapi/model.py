"""`Model`: prepare / fit / evaluate / predict / save / load around an `oar.nn.Layer` (dynamic graph)."""
import inspect
import os

import numpy as np

from ..framework.io import load as _load, save as _save
from ..framework.state import no_grad
from ..io import DataLoader, Dataset
from ..metric import Metric
from ..tensor import Tensor, to_tensor
from .captured_step import captured_step, is_converted


def _flatten(data):
    if isinstance(data, (list, tuple)):
        return [y for x in data for y in _flatten(x)]
    return [data]


def _as_tensor(x):
    return x if isinstance(x, Tensor) else to_tensor(np.asarray(x))


def _numpy(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


class Model:
    """Trains, evaluates and runs a network with a few calls.

    Args:
        network (Layer): the model.
        inputs (InputSpec | list[InputSpec], optional): input specs; needed by ``save(training=False)``.
            Without them, each batch's first ``n`` fields feed the ``n`` arguments of ``network.forward``.
        labels (InputSpec | list[InputSpec], optional): label specs; the fields after the inputs are labels.

    Example:
        >>> from oar.static import InputSpec
        >>> x = np.random.rand(32, 4).astype("float32")
        >>> y = (x.sum(1, keepdims=True) > 2).astype("int64")
        >>> data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
        >>> net = paddle.nn.Linear(4, 2)
        >>> model = paddle.Model(net, InputSpec([None, 4], "float32", "x"), InputSpec([None, 1], "int64", "y"))
        >>> model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()),
        ...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
        >>> model.fit(data, batch_size=8, epochs=2, verbose=0)
        >>> sorted(model.evaluate(data, batch_size=8, verbose=0))
        ['acc', 'loss']
        >>> [out.shape for out in model.predict(data, batch_size=8, stack_outputs=True, verbose=0)]
        [(32, 2)]
    """

    def __init__(self, network, inputs=None, labels=None):
        self.network = network
        self._inputs = None if inputs is None else _flatten(inputs)
        self._labels = None if labels is None else _flatten(labels)
        self._optimizer, self._loss, self._metrics = None, None, []
        self.stop_training = False

    # ---- setup -------------------------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Sets the optimizer, the loss (a callable ``loss(*outputs, *labels)``) and metrics (`oar.metric.Metric`)."""
        if amp_configs is not None:
            raise NotImplementedError("Model.prepare: amp_configs is not supported by oar; wrap the forward pass in "
                                      "paddle.amp.auto_cast() and use paddle.amp.GradScaler in a custom loop")
        if loss is not None and not callable(loss):
            raise TypeError(f"Model.prepare: loss must be callable (e.g. paddle.nn.CrossEntropyLoss()), "
                            f"got {type(loss).__name__}")
        metrics = [] if metrics is None else _flatten(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics must be paddle.metric.Metric objects, got {type(m).__name__}")
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics

    def parameters(self, *args, **kwargs):
        """The network's parameters (for building the optimizer)."""
        return self.network.parameters(*args, **kwargs)

    def _n_inputs(self):
        if self._inputs is not None:
            return len(self._inputs)
        fwd = self.network.forward
        fwd = fwd.dygraph_function if is_converted(self.network) else fwd  # a to_static forward: its bound method
        params = list(inspect.signature(fwd).parameters.values())
        return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                   and p.default is p.empty) or 1

    def _split(self, data):
        data = _flatten(data)
        n = self._n_inputs()
        return data[:n], data[n:]

    # ---- one batch ----------------------------------------------------------------------------------------------
    def _forward_loss(self, inputs, labels):
        outputs = _flatten(self.network(*[_as_tensor(x) for x in inputs]))
        labels = [_as_tensor(y) for y in labels]
        losses = _flatten(self._loss(*(outputs + labels))) if self._loss is not None else []
        metrics = []
        for m in self._metrics:
            metrics.append(m.update(*_flatten(m.compute(*(outputs + labels)))))
        return outputs, losses, metrics

    def train_batch(self, inputs, labels=None):
        """One optimization step; returns ``[loss]`` (NumPy), and the metrics' batch values when there are any."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call model.prepare(optimizer, loss) first")
        self.network.train()
        if is_converted(self.network):  # one captured program per step (oar/hapi/captured_step.py)
            return self._captured_batch(_flatten(inputs), _flatten(labels) if labels is not None else [])
        _, losses, metrics = self._forward_loss(_flatten(inputs), _flatten(labels) if labels is not None else [])
        total = losses[0] if len(losses) == 1 else sum(losses[1:], losses[0])
        total.backward()
        self._optimizer.step()
        self._optimizer.clear_grad()
        losses = [_numpy(l) for l in losses]
        return (losses, metrics) if self._metrics else losses

    def _captured_batch(self, inputs, labels):
        key = (id(self._optimizer), id(self._loss), tuple(id(m) for m in self._metrics), len(inputs))
        if getattr(self, "_captured_key", None) != key:
            self._captured_key = key
            self._captured = captured_step(self.network, self._loss, self._optimizer, self._metrics, len(inputs))
        losses, computed = self._captured(*[_as_tensor(x) for x in inputs + labels])
        metrics = [m.update(*c) for m, c in zip(self._metrics, computed)]
        losses = [_numpy(l) for l in losses]
        return (losses, metrics) if self._metrics else losses

    def eval_batch(self, inputs, labels=None):
        """Loss and metrics of one batch without updating the parameters."""
        self.network.eval()
        with no_grad():
            _, losses, metrics = self._forward_loss(_flatten(inputs), _flatten(labels) if labels is not None else [])
        losses = [_numpy(l) for l in losses]
        return (losses, metrics) if self._metrics else losses

    def predict_batch(self, inputs):
        """The network's outputs for one batch, as NumPy arrays."""
        self.network.eval()
        with no_grad():
            return [_numpy(o) for o in _flatten(self.network(*[_as_tensor(x) for x in _flatten(inputs)]))]

    # ---- loops --------------------------------------------------------------------------------------------------
    @staticmethod
    def _loader(data, batch_size, shuffle, drop_last, num_workers):
        if data is None or isinstance(data, DataLoader):
            return data
        if isinstance(data, Dataset):
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        raise TypeError(f"Model: data must be a paddle.io.Dataset or DataLoader, got {type(data).__name__}")

    @staticmethod
    def _no_callbacks(callbacks):
        if callbacks:
            raise NotImplementedError("Model: callbacks are not supported by oar; write a custom training loop "
                                      "(see Model.train_batch) for per-step hooks")

    def _logs(self, losses):
        logs = {"loss": [float(np.mean(l)) for l in losses]} if losses else {}
        for m in self._metrics:
            names, values = _flatten(m.name()), _flatten(m.accumulate())
            logs.update(zip(names, values))
        return logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, save_dir=None,
            save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        """Trains for ``epochs`` passes over ``train_data``, evaluating on ``eval_data`` every ``eval_freq`` epochs
        and saving to ``save_dir/{epoch}`` every ``save_freq`` epochs (and ``save_dir/final``)."""
        self._no_callbacks(callbacks)
        if accumulate_grad_batches != 1:
            raise NotImplementedError("Model.fit: accumulate_grad_batches other than 1 is not supported by oar")
        loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        if loader is None:
            raise ValueError("Model.fit: train_data is required")
        step = 0
        for epoch in range(epochs):
            for m in self._metrics:
                m.reset()
            losses = []
            for i, data in enumerate(loader):
                res = self.train_batch(*self._split(data))
                losses = res[0] if self._metrics else res
                step += 1
                if verbose and (i + 1) % log_freq == 0:
                    print(f"Epoch {epoch + 1}/{epochs} step {i + 1}: {self._logs(losses)}")
                if num_iters is not None and step >= num_iters:
                    break
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}: {self._logs(losses)}")
            if eval_data is not None and (epoch + 1) % eval_freq == 0:
                self.evaluate(eval_data, batch_size=batch_size, log_freq=log_freq, verbose=verbose,
                              num_workers=num_workers)
            if save_dir is not None and (epoch + 1) % save_freq == 0:
                self.save(os.path.join(save_dir, str(epoch)))
            if self.stop_training or (num_iters is not None and step >= num_iters):
                break
        if save_dir is not None:
            self.save(os.path.join(save_dir, "final"))

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Mean loss and accumulated metrics over ``eval_data``: ``{'loss': [value], <metric name>: value}``."""
        self._no_callbacks(callbacks)
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        for m in self._metrics:
            m.reset()
        sums, count = None, 0
        for i, data in enumerate(loader):
            res = self.eval_batch(*self._split(data))
            losses = res[0] if self._metrics else res
            n = len(_flatten(data)[0])
            vals = [float(np.mean(l)) * n for l in losses]
            sums = vals if sums is None else [a + b for a, b in zip(sums, vals)]
            count += n
            if num_iters is not None and i + 1 >= num_iters:
                break
        logs = {"loss": [s / count for s in sums]} if sums and count else {}
        for m in self._metrics:
            logs.update(zip(_flatten(m.name()), _flatten(m.accumulate())))
        if verbose:
            print(f"Eval: {logs}")
        return logs

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """The outputs over ``test_data``: one list per network output, holding a NumPy array per batch (or one
        array concatenated over batches when ``stack_outputs``)."""
        self._no_callbacks(callbacks)
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        outputs = None
        for data in loader:
            outs = self.predict_batch(self._split(data)[0])
            outputs = [[] for _ in outs] if outputs is None else outputs
            for acc, o in zip(outputs, outs):
                acc.append(o)
        outputs = outputs or []
        if stack_outputs:
            outputs = [np.concatenate(o, axis=0) for o in outputs]
        return outputs

    # ---- files --------------------------------------------------------------------------------------------------
    def save(self, path, training=True):
        """``training=True``: ``path.pdparams`` (and ``path.pdopt`` with the optimizer state) to resume training;
        ``training=False``: an inference model via `oar.jit.save` (needs ``inputs`` specs)."""
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        if not training:
            if self._inputs is None:
                raise ValueError("Model.save(training=False) needs the input specs: build the Model with "
                                 "inputs=[InputSpec(...)]")
            from ..jit import save as jit_save
            jit_save(self.network, path, input_spec=self._inputs)
            return
        _save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            _save(self._optimizer.state_dict(), path + ".pdopt")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Loads ``path.pdparams`` (and ``path.pdopt`` unless ``reset_optimizer`` or absent)."""
        state = _load(path + ".pdparams")
        if skip_mismatch:
            own = self.network.state_dict()
            state = {k: v for k, v in state.items()
                     if k in own and list(np.shape(_numpy(v))) == list(own[k].shape)}
        self.network.set_state_dict(state)
        if self._optimizer is not None and not reset_optimizer and os.path.exists(path + ".pdopt"):
            self._optimizer.set_state_dict(_load(path + ".pdopt"))
