"""`oar.callbacks` (Paddle's `paddle.callbacks`): hooks that `Model.fit/evaluate/predict` call around epochs and
batches: the progress logger, checkpoints, learning-rate stepping; `callbacks_more.py` holds the monitors."""
import os
import time

from ..optimizer.lr import LRScheduler as _Schedule
from .progressbar import ProgressBar


class Callback:
    """Base class of callbacks: override the ``on_*`` hooks you need; ``self.model`` is the `oar.Model` and
    ``self.params`` holds ``batch_size``, ``epochs``, ``steps`` (per epoch), ``verbose`` and ``metrics`` (names).

    Example:
        >>> class CountBatches(paddle.callbacks.Callback):
        ...     def on_train_begin(self, logs=None):
        ...         self.n = 0
        ...     def on_train_batch_end(self, step, logs=None):
        ...         self.n += 1
        >>> cb = CountBatches()
        >>> cb.on_train_begin(); cb.on_train_batch_end(0, {"loss": [0.3]}); cb.n
        1
    """

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


_MODES = ("train", "eval", "predict")


class CallbackList:
    """Calls every callback's hook in order (what `Model` talks to)."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        assert mode in _MODES
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        assert mode in _MODES
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step, logs=None):
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step, logs=None):
        self._call(f"on_{mode}_batch_end", step, logs)


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2, verbose=2,
                     save_freq=1, save_dir=None, metrics=None, mode="train"):
    """The callback list `Model` runs: the user's, plus a `ProgBarLogger` (when verbose), a `ModelCheckpoint` and
    an `LRScheduler` stepping per batch unless the user gave their own (Paddle's defaults)."""
    from .callbacks_more import EarlyStopping
    cbks = [] if callbacks is None else list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"Model: callbacks must be paddle.callbacks.Callback objects, got {type(c).__name__}")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    out = CallbackList(cbks)
    out.set_model(model)
    out.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                    "metrics": (metrics or []) if mode != "predict" else []})
    return out


class ProgBarLogger(Callback):
    """Prints progress as Paddle does: ``Epoch 1/2``, then ``step 10/938 - loss: ... - acc: ... - ETA: 9s -
    12ms/step`` every `log_freq` steps and at the end of the epoch; ``Eval begin...`` / ``Eval samples: N`` and
    ``Predict begin...`` / ``Predict samples: N`` around evaluation and prediction.

    Args:
        log_freq (int): print every `log_freq` steps. Default 1.
        verbose (int): 0 silent, 1 a progress bar redrawn in place, 2 one line per print, 3 = 2 plus timings.

    Example:
        >>> logger = paddle.callbacks.ProgBarLogger(log_freq=10, verbose=2)
        >>> logger.set_params({"epochs": 1, "steps": 20, "metrics": ["loss"]})
        >>> logger.on_train_begin()    # doctest: +ELLIPSIS
        The loss value printed in the log is the current batch...
        >>> logger.on_epoch_begin(0)
        Epoch 1/1
    """

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq, self.verbose = max(1, int(log_freq)), verbose
        self.epochs = self.steps = None

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics") or ["loss"]
        self._timer = {"data": 0.0, "batch": 0.0, "count": 0, "samples": 0}
        if self.verbose:
            print("The loss value printed in the log is the current batch, and the metric is the average value of "
                  "previous step.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get("steps")
        self.train_step = 0
        if self.epochs and self.verbose:
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._batch_start = time.perf_counter()

    def _updates(self, logs, mode):
        metrics = getattr(self, f"{mode}_metrics")
        values = [(k, logs[k]) for k in metrics if k in logs]
        if self.verbose == 3 and mode == "train":
            t = self._timer
            n, s = max(t["count"], 1), max(t["samples"], 1)
            values += [("avg_reader_cost", f"{t['data'] / n:.5f} sec"), ("avg_batch_cost", f"{t['batch'] / n:.5f} sec"),
                       ("ips", f"{s / max(t['batch'], 1e-12):.5f} samples/sec")]
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def on_train_batch_begin(self, step, logs=None):
        self._data_end = time.perf_counter()
        self._timer["data"] += self._data_end - self._batch_start

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        self._timer["batch"] += time.perf_counter() - self._data_end
        self._timer["count"] += 1
        self._timer["samples"] += logs.get("batch_size", 1)
        if self.verbose and self.train_step % self.log_freq == 0 \
                and (self.steps is None or self.train_step < self.steps):
            self._updates(logs, "train")
        self._batch_start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        if self.verbose and self.steps is not None:
            self._updates(logs or {}, "train")

    def _begin(self, mode, logs):
        logs = logs or {}
        setattr(self, f"{mode}_steps", logs.get("steps"))
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        setattr(self, f"{mode}_samples", 0)
        setattr(self, f"{mode}_progbar", ProgressBar(num=logs.get("steps"), verbose=self.verbose))

    def _batch_end(self, mode, logs):
        logs = logs or {}
        setattr(self, f"{mode}_step", getattr(self, f"{mode}_step") + 1)
        setattr(self, f"{mode}_samples", getattr(self, f"{mode}_samples") + logs.get("batch_size", 1))
        step, steps = getattr(self, f"{mode}_step"), getattr(self, f"{mode}_steps")
        if self.verbose and step % self.log_freq == 0 and (steps is None or step < steps):
            self._updates(logs, mode)

    def on_eval_begin(self, logs=None):
        self._begin("eval", logs)
        if self.verbose:
            print("Eval begin...")
            print("The loss value printed in the log is the current batch, and the metric is the average value of "
                  "previous step.")

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end("eval", logs)

    def on_eval_end(self, logs=None):
        if self.verbose and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.eval_samples}")

    def on_predict_begin(self, logs=None):
        self._begin("test", logs)
        if self.verbose:
            print("Predict begin...")

    def on_predict_batch_end(self, step, logs=None):
        self._batch_end("test", logs)

    def on_predict_end(self, logs=None):
        if self.verbose:
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.test_samples}")


class ModelCheckpoint(Callback):
    """Saves ``save_dir/{epoch}`` every `save_freq` epochs (epochs counted from 0) and ``save_dir/final`` at the
    end of training; nothing when `save_dir` is None.

    Example:
        >>> cb = paddle.callbacks.ModelCheckpoint(save_freq=2, save_dir="ckpt")
        >>> cb.save_freq, cb.save_dir
        (2, 'ckpt')
    """

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return self.model is not None and self.save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and epoch % self.save_freq == 0:
            path = os.path.join(self.save_dir, str(epoch))
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = os.path.join(self.save_dir, "final")
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (`by_step`, the default `Model.fit` adds)
    or after every epoch (`by_epoch`).

    Example:
        >>> sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
        >>> net = paddle.nn.Linear(2, 2)
        >>> model = paddle.Model(net)
        >>> model.prepare(paddle.optimizer.SGD(sched, parameters=net.parameters()))
        >>> cb = paddle.callbacks.LRScheduler(by_step=True)
        >>> cb.set_model(model)
        >>> for step in range(8):
        ...     cb.on_train_batch_end(step)
        >>> sched.last_lr
        0.00625
    """

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step and by_epoch are mutually exclusive")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self):
        opt = getattr(self.model, "_optimizer", None)
        lr = getattr(opt, "_learning_rate", None)
        if isinstance(lr, _Schedule):
            lr.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()
