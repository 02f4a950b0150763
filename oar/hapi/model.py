"""`Model`: prepare / fit / evaluate / predict / save / load around an `oar.nn.Layer` (dynamic graph)."""
import inspect
import os

import numpy as np

from ..io.save_load import load as _load, save as _save
from ..core.devices import is_device_array, to_host
from ..core.state import no_grad
from ..io import DataLoader, Dataset, DistributedBatchSampler
from ..metric import Metric
from ..eager.tensor import Tensor, to_tensor
from .callbacks import config_callbacks
from .captured_step import captured_step, is_converted


def _flatten(data):
    if isinstance(data, (list, tuple)):
        return [y for x in data for y in _flatten(x)]
    return [data]


def _as_tensor(x):
    return x if isinstance(x, Tensor) else to_tensor(np.asarray(x))


def _numpy(x):
    """A NumPy array of `x` (a Tensor on a GPU is copied to the host: Model returns NumPy results, as Paddle's)."""
    if isinstance(x, Tensor):
        return to_host(x._data) if is_device_array(x._data) else x._data
    return np.asarray(x)


def _amp_settings(amp_configs):
    """``None`` or {'cast': auto_cast kwargs, 'scaler': GradScaler} from Paddle's ``amp_configs``."""
    if amp_configs is None:
        return None
    from .. import amp
    cfg = {"level": amp_configs} if isinstance(amp_configs, str) else dict(amp_configs)
    level = cfg.pop("level", "O1")
    if level not in ("O0", "O1", "O2"):
        raise ValueError(f"Model.prepare: amp_configs level must be 'O0', 'O1' or 'O2', got {level!r}")
    if level == "O0":
        return None
    cast = {"level": level, "dtype": cfg.pop("dtype", "float16"),
            "custom_white_list": cfg.pop("custom_white_list", None),
            "custom_black_list": cfg.pop("custom_black_list", None)}
    cfg.pop("use_fp16_guard", None)
    cfg.pop("use_pure_fp16", None)
    try:
        scaler = amp.GradScaler(**cfg)
    except TypeError as e:
        raise ValueError(f"Model.prepare: unknown amp_configs key ({e})") from None
    return {"cast": cast, "scaler": scaler}


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
        self._optimizer, self._loss, self._metrics, self._amp = None, None, [], None
        self._train_network = None  # the network wrapped in DataParallel when the job has several ranks
        self.stop_training, self._seen, self._accumulate, self._steps_done = False, None, 1, 0

    # ---- setup -------------------------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Sets the optimizer, the loss (a callable ``loss(*outputs, *labels)``) and metrics (`oar.metric.Metric`).

        ``amp_configs``: ``'O1'`` / ``'O2'`` or a dict (``level``, ``init_loss_scaling``, ``custom_white_list``,
        ``custom_black_list``, ...) trains under `oar.amp.auto_cast` with a `oar.amp.GradScaler`.
        """
        if loss is not None and not callable(loss):
            raise TypeError(f"Model.prepare: loss must be callable (e.g. paddle.nn.CrossEntropyLoss()), "
                            f"got {type(loss).__name__}")
        metrics = [] if metrics is None else _flatten(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics must be paddle.metric.Metric objects, got {type(m).__name__}")
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics
        from ..distributed import DataParallel, get_world_size
        if get_world_size() > 1 and self._train_network is None and not isinstance(self.network, DataParallel):
            self._train_network = DataParallel(self.network)  # every rank calls prepare: rank 0's weights win
        self._amp = _amp_settings(amp_configs)

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
        inputs = data[:n]
        if self._seen is None and inputs:   # shapes for save(training=False) without InputSpecs
            from ..graph.input_spec import InputSpec
            self._seen = [InputSpec([None] + list(np.shape(_numpy(x)))[1:], str(_numpy(x).dtype), f"x{i}")
                          for i, x in enumerate(inputs)]
        return inputs, data[n:]

    def _metrics_name(self):
        names = ["loss"] if self._loss is not None else []
        for m in self._metrics:
            names += _flatten(m.name())
        return names

    # ---- one batch ----------------------------------------------------------------------------------------------
    def _forward_loss(self, inputs, labels, network=None):
        outputs = _flatten((network or self.network)(*[_as_tensor(x) for x in inputs]))
        labels = [_as_tensor(y) for y in labels]
        losses = _flatten(self._loss(*(outputs + labels))) if self._loss is not None else []
        metrics = []
        for m in self._metrics:
            metrics.append(m.update(*_flatten(m.compute(*(outputs + labels)))))
        return outputs, losses, metrics

    def train_batch(self, inputs, labels=None, update=True):
        """One forward/backward pass; with ``update`` (default) also an optimizer step. Returns ``[loss]`` (NumPy),
        and the metrics' batch values when there are any."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call model.prepare(optimizer, loss) first")
        self.network.train()
        inputs, labels = _flatten(inputs), _flatten(labels) if labels is not None else []
        if is_converted(self.network) and self._amp is None and update:
            return self._captured_batch(inputs, labels)  # one captured program per step (captured_step.py)
        if self._amp is None:
            _, losses, metrics = self._forward_loss(inputs, labels, self._train_network)
            total = losses[0] if len(losses) == 1 else sum(losses[1:], losses[0])
            total.backward()
            if update:
                self._optimizer.step()
                self._optimizer.clear_grad()
        else:
            from .. import amp
            with amp.auto_cast(**self._amp["cast"]):
                _, losses, metrics = self._forward_loss(inputs, labels, self._train_network)
                total = losses[0] if len(losses) == 1 else sum(losses[1:], losses[0])
            self._amp["scaler"].scale(total).backward()
            if update:
                self._amp["scaler"].minimize(self._optimizer, total)
                self._optimizer.clear_grad()
        losses = [_numpy(l) for l in losses]
        return (losses, metrics) if self._metrics else losses

    def _captured_batch(self, inputs, labels):
        key = (id(self._optimizer), id(self._loss), tuple(id(m) for m in self._metrics), len(inputs))
        if getattr(self, "_captured_key", None) != key:
            self._captured_key = key
            # several ranks: the DataParallel wrapper, whose gradient all-reduce becomes ops of the captured program
            net = self.network if self._train_network is None else self._train_network
            self._captured = captured_step(net, self._loss, self._optimizer, self._metrics, len(inputs))
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
    def _loader(data, batch_size, shuffle, drop_last, num_workers, distributed=False):
        if data is None or isinstance(data, DataLoader):
            return data
        from ..distributed import get_world_size
        if isinstance(data, Dataset) and distributed and get_world_size() > 1:  # each rank its share (Paddle)
            sampler = DistributedBatchSampler(data, batch_size, shuffle=shuffle, drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, num_workers=num_workers)
        if isinstance(data, Dataset):
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        raise TypeError(f"Model: data must be a paddle.io.Dataset or DataLoader, got {type(data).__name__}")

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except TypeError:
            return None

    def _run_one_epoch(self, loader, cbks, mode, max_steps=None):
        """One pass over `loader` (at most `max_steps` batches) in mode 'train' / 'eval' / 'predict'; returns the
        last logs (and for predict the outputs). Logs carry the batch's loss, the metrics accumulated so far, and
        ``batch_size``."""
        for m in self._metrics:
            m.reset()
        steps = self._len(loader)
        logs, outputs, loss_sum, count = {}, None, None, 0
        for step, data in enumerate(loader):
            if max_steps is not None and step >= max_steps:
                break
            cbks.on_batch_begin(mode, step, logs)
            inputs, labels = self._split(data)
            n = len(_numpy(_flatten(data)[0])) if _flatten(data) else 0
            if mode == "predict":
                outs = self.predict_batch(inputs)
                outputs = [[] for _ in outs] if outputs is None else outputs
                for acc, o in zip(outputs, outs):
                    acc.append(o)
                logs = {"step": step, "batch_size": n}
                cbks.on_batch_end(mode, step, logs)
                continue
            if mode == "train":
                update = (step + 1) % self._accumulate == 0 or (steps is not None and step + 1 == steps)
                res = self.train_batch(inputs, labels, update=update)
            else:
                res = self.eval_batch(inputs, labels)
            losses = res[0] if self._metrics else res
            logs = {"step": step}
            if losses:
                logs["loss"] = [float(np.mean(l)) for l in losses]
                vals = [v * n for v in logs["loss"]]
                loss_sum = vals if loss_sum is None else [a + b for a, b in zip(loss_sum, vals)]
                count += n
            for m in self._metrics:
                logs.update(zip(_flatten(m.name()), _flatten(m.accumulate())))
            logs["batch_size"] = n
            cbks.on_batch_end(mode, step, logs)
        if mode == "eval" and loss_sum is not None and count:
            logs["loss"] = [s / count for s in loss_sum]   # evaluation reports the mean over all samples
        return (logs, outputs) if mode == "predict" else logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, save_dir=None,
            save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        """Trains for ``epochs`` passes over ``train_data``, printing progress as Paddle does (``verbose`` 0 silent,
        1 a progress bar, 2 a line every ``log_freq`` steps), stepping an `LRScheduler` learning rate after every
        batch (pass ``paddle.callbacks.LRScheduler(by_step=False, by_epoch=True)`` for per-epoch), evaluating on
        ``eval_data`` after epochs ``0, eval_freq, 2*eval_freq, ...``, and saving ``save_dir/{epoch}`` every
        ``save_freq`` epochs and ``save_dir/final``. ``accumulate_grad_batches`` sums gradients over that many
        batches per optimizer step; ``num_iters`` stops after that many steps in all."""
        if accumulate_grad_batches < 1:
            raise ValueError(f"Model.fit: accumulate_grad_batches must be >= 1, got {accumulate_grad_batches}")
        loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers, distributed=True)
        if loader is None:
            raise ValueError("Model.fit: train_data is required")
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        self._accumulate, self.stop_training, self._steps_done = accumulate_grad_batches, False, 0
        steps = self._len(loader)
        if num_iters is not None and steps is not None:
            epochs = min(epochs, -(-num_iters // steps))
        cbks = config_callbacks(callbacks, model=self, batch_size=batch_size, epochs=epochs, steps=steps,
                                log_freq=log_freq, verbose=verbose, save_freq=save_freq, save_dir=save_dir,
                                metrics=self._metrics_name())
        cbks.on_begin("train")
        logs = {}
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            left = None if num_iters is None else num_iters - self._steps_done
            logs = self._run_one_epoch(loader, cbks, "train", left)
            self._steps_done += (logs.get("step", -1) + 1)
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len(eval_loader), "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training or (num_iters is not None and self._steps_done >= num_iters):
                break
        cbks.on_end("train", logs)

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Mean loss and accumulated metrics over ``eval_data``: ``{'loss': [value], <metric name>: value}``
        (prints ``Eval begin...``, progress and ``Eval samples: N`` unless ``verbose=0``)."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name(), mode="eval")
        steps = self._len(loader)
        steps = min(steps, num_iters) if steps is not None and num_iters is not None else steps
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval", num_iters)
        cbks.on_end("eval", logs)
        return {k: v for k, v in logs.items() if k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """The outputs over ``test_data``: one list per network output, holding a NumPy array per batch (or one
        array concatenated over batches when ``stack_outputs``). Prints ``Predict begin...`` and
        ``Predict samples: N`` unless ``verbose=0``."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=10, verbose=verbose, mode="predict")
        cbks.on_begin("predict", {"steps": self._len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        cbks.on_end("predict", logs)
        outputs = outputs or []
        if stack_outputs:
            outputs = [np.concatenate(o, axis=0) for o in outputs]
        return outputs

    def summary(self, input_size=None, dtype=None):
        """Prints the layer table (`oar.summary`) for ``input_size`` (default: the Model's input specs) and returns
        ``{'total_params': N, 'trainable_params': M}``."""
        from .summary import summary
        if input_size is None:
            specs = self._inputs or self._seen
            if specs is None:
                raise ValueError("Model.summary: give input_size, or build the Model with inputs=[InputSpec(...)]")
            input_size = [tuple(s.shape) for s in specs]
            dtype = dtype or [str(s.dtype).replace("paddle.", "") for s in specs]
        return summary(self.network, input_size, dtypes=dtype)

    # ---- files --------------------------------------------------------------------------------------------------
    def save(self, path, training=True):
        """``training=True``: ``path.pdparams`` (and ``path.pdopt`` with the optimizer state) to resume training;
        ``training=False``: an inference model via `oar.jit.save` (needs ``inputs`` specs). In a job of several
        ranks only rank 0 writes (the replicas are equal)."""
        from ..distributed import get_rank
        if get_rank() != 0:
            return
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        if not training:
            specs = self._inputs or self._seen
            if specs is None:
                raise ValueError("Model.save(training=False) needs the input shapes: build the Model with "
                                 "inputs=[InputSpec(...)], or run fit/evaluate/predict once so it has seen a batch")
            from ..jit import save as jit_save
            jit_save(self.network, path, input_spec=specs)
            return
        _save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            _save(self._optimizer.state_dict(), path + ".pdopt")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Loads ``path.pdparams`` (and ``path.pdopt`` unless ``reset_optimizer`` or absent); files written by
        Paddle's `paddle.save` load too. ``skip_mismatch`` skips, with a warning each, the parameters missing from
        the file or of another shape (fine-tuning with a new head); otherwise a shape mismatch raises."""
        path = path[:-len(".pdparams")] if path.endswith(".pdparams") else path
        state = _load(path + ".pdparams")
        own = self.network.state_dict()
        bad = {k: (list(np.shape(_numpy(state[k]))), list(v.shape)) for k, v in own.items()
               if k in state and list(np.shape(_numpy(state[k]))) != list(v.shape)}
        if bad and not skip_mismatch:
            k, (got, want) = next(iter(bad.items()))
            raise ValueError(f"Model.load: {path}.pdparams holds {k!r} of shape {got} but the network's is {want} "
                             f"({len(bad)} such); pass skip_mismatch=True to load the rest")
        if skip_mismatch:
            import warnings
            for k in own:
                if k not in state:
                    warnings.warn(f"Model.load: skip loading for {k!r}: it is not in {path}.pdparams")
                elif k in bad:
                    warnings.warn(f"Model.load: skip loading for {k!r}: shape {bad[k][0]} in the file, "
                                  f"{bad[k][1]} in the network")
            state = {k: v for k, v in state.items() if k in own and k not in bad}
        self.network.set_state_dict(state)
        if self._optimizer is not None and not reset_optimizer and os.path.exists(path + ".pdopt"):
            self._optimizer.set_state_dict(_load(path + ".pdopt"))
