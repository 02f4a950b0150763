"""Monitoring callbacks: `EarlyStopping`, `ReduceLROnPlateau` (both watch evaluation results), `VisualDL`
(needs the visualdl package), `WandbCallback` (needs wandb) and `CSVLogger` (one row per epoch, no dependency)."""
import csv
import numbers
import os
import warnings

import numpy as np

from .callbacks import Callback


def _monitored(logs, monitor, who):
    if logs is None or monitor not in logs:
        warnings.warn(f"{who}: the monitor {monitor!r} is not in the evaluation logs ({sorted(logs or {})}); "
                      "monitor 'loss' or a metric name and pass eval_data to fit")
        return None
    v = logs[monitor]
    v = v[0] if isinstance(v, (list, tuple)) else v
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.item()
    return float(v) if isinstance(v, numbers.Number) else None


def _mode_is_max(mode, monitor, who):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who}: mode {mode!r} is unknown, using 'auto'")
        mode = "auto"
    return mode == "max" or (mode == "auto" and "acc" in monitor)


class EarlyStopping(Callback):
    """Stops `fit` when the monitored evaluation value stops improving for `patience` evaluations; with
    `save_best_model` and a fit ``save_dir``, keeps the best weights in ``save_dir/best_model``.

    Args:
        monitor (str): 'loss' or a metric name. mode ('auto' | 'min' | 'max'): auto is max for names with 'acc'.
        patience (int), verbose (int), min_delta (float), baseline (float | None), save_best_model (bool).

    Example:
        >>> es = paddle.callbacks.EarlyStopping("loss", patience=1, verbose=0)
        >>> class M: stop_training = False
        >>> es.set_model(M()); es.on_train_begin()
        >>> for loss in [1.0, 0.5, 0.6]:
        ...     es.on_eval_end({"loss": [loss]})
        >>> es.model.stop_training, es.best_value
        (True, 0.5)
    """

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor, self.patience, self.verbose, self.baseline = monitor, patience, verbose, baseline
        self.save_best_model, self.save_dir = save_best_model, None
        self._max = _mode_is_max(mode, monitor, "EarlyStopping")
        self.min_delta = abs(min_delta) * (1 if self._max else -1)
        self.wait_epoch = self.stopped_epoch = 0

    def _better(self, a, b):
        return a > b if self._max else a < b

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        self.best_value = self.baseline if self.baseline is not None else (-np.inf if self._max else np.inf)

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, "EarlyStopping")
        if current is None:
            return
        if self._better(current - self.min_delta, self.best_value):
            self.best_value, self.wait_epoch = current, 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    print(f"Best checkpoint has been saved at "
                          f"{os.path.abspath(os.path.join(self.save_dir, 'best_model'))}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by `factor` when the monitored evaluation value has not improved for
    `patience` evaluations (then waits `cooldown` evaluations); never below `min_lr`.

    Example:
        >>> net = paddle.nn.Linear(2, 2)
        >>> model = paddle.Model(net)
        >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()))
        >>> cb = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, verbose=0)
        >>> cb.set_model(model); cb.on_train_begin()
        >>> for loss in [1.0, 1.0, 1.0]:
        ...     cb.on_eval_end({"loss": [loss]})
        >>> model._optimizer.get_lr()
        0.025
    """

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto", min_delta=1e-4, cooldown=0,
                 min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1.0, got {factor}")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self._max = _mode_is_max(mode, monitor, "ReduceLROnPlateau")
        self.epoch = 0
        self._reset()

    def _reset(self):
        self.best = -np.inf if self._max else np.inf
        self.cooldown_counter = self.wait = 0

    def _improved(self, a):
        return a > self.best + self.min_delta if self._max else a < self.best - self.min_delta

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, "ReduceLROnPlateau")
        opt = getattr(self.model, "_optimizer", None)
        if current is None or opt is None:
            return
        if not isinstance(opt._learning_rate, (int, float)):
            warnings.warn("ReduceLROnPlateau: the optimizer's learning rate is a scheduler, not a float; left alone")
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = opt.get_lr()
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    opt.set_lr(new)
                    if self.verbose > 0:
                        print(f"Epoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0
        self.epoch += 1


class VisualDL(Callback):
    """Writes loss and metrics to a VisualDL log folder (needs ``pip install visualdl``).

    Example:
        >>> try:
        ...     cb = paddle.callbacks.VisualDL(log_dir="vdl_log")
        ... except ImportError as e:
        ...     print(str(e).split(";")[0])
        paddle.callbacks.VisualDL needs the visualdl package
    """

    def __init__(self, log_dir):
        super().__init__()
        try:
            import visualdl
        except ImportError:
            raise ImportError("paddle.callbacks.VisualDL needs the visualdl package; install it with `pip install "
                              "visualdl`, or use paddle.callbacks.CSVLogger, which needs nothing") from None
        self._visualdl, self.log_dir = visualdl, log_dir
        self.writer, self.train_step, self.epoch = None, 0, 0

    def _write(self, logs, mode, step):
        if self.writer is None:
            self.writer = self._visualdl.LogWriter(self.log_dir)
        for k in self.params.get("metrics", []):
            if k in logs:
                v = logs[k][0] if isinstance(logs[k], (list, tuple)) else logs[k]
                self.writer.add_scalar(tag=f"{mode}/{k}", step=step, value=float(np.asarray(v).reshape(-1)[0]))

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._write(logs or {}, "train", self.train_step)

    def on_eval_end(self, logs=None):
        self._write(logs or {}, "eval", self.epoch)

    def on_train_end(self, logs=None):
        if self.writer is not None:
            self.writer.close()


class CSVLogger(Callback):
    """Appends one CSV row per epoch to `path`: ``epoch``, the training loss/metrics at the epoch's end, and the
    evaluation results (``eval_`` prefixed) when `fit` evaluated that epoch.

    Example:
        >>> cb = paddle.callbacks.CSVLogger("log.csv")
        >>> cb.on_train_begin(); cb.on_epoch_end(0, {"loss": [0.5], "acc": 0.8}); cb.on_train_end()
        >>> open("log.csv").read().splitlines()
        ['epoch,loss,acc', '0,0.5,0.8']
    """

    def __init__(self, path, separator=","):
        super().__init__()
        self.path, self.separator = path, separator
        self._rows = []

    def on_train_begin(self, logs=None):
        self._rows = []

    @staticmethod
    def _scalars(logs, prefix=""):
        out = {}
        for k, v in (logs or {}).items():
            if k in ("batch_size", "step", "steps", "metrics"):
                continue
            v = v[0] if isinstance(v, (list, tuple)) and len(v) == 1 else v
            if isinstance(v, np.ndarray) and v.size == 1:
                v = v.item()
            if isinstance(v, numbers.Number):
                out[prefix + k] = float(v)
        return out

    def on_eval_end(self, logs=None):
        if self._rows:   # fit evaluates right after on_epoch_end: the results join that epoch's row
            self._rows[-1].update(self._scalars(logs, "eval_"))

    def on_epoch_end(self, epoch, logs=None):
        self._rows.append({"epoch": epoch, **self._scalars(logs)})

    def on_train_end(self, logs=None):
        self._flush()

    def _flush(self):
        keys = []
        for r in self._rows:
            keys += [k for k in r if k not in keys]
        parent = os.path.dirname(self.path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(self.path, "w", newline="") as f:
            w = csv.DictWriter(f, keys, delimiter=self.separator)
            w.writeheader()
            for r in self._rows:
                w.writerow({k: (f"{v:g}" if isinstance(v, float) else v) for k, v in r.items()})


class WandbCallback(Callback):
    """Logs loss and metrics to Weights & Biases (needs ``pip install wandb``): ``train/<metric>`` against
    ``train/step`` after each batch, ``eval/<metric>`` against ``epoch`` after each evaluation. The run is made by
    ``wandb.init`` with `project`, `entity`, `name`, `dir`, `mode`, `job_type` and `kwargs` (an active run is
    reused, with a warning); only local rank 0 writes.

    Example:
        >>> try:
        ...     cb = paddle.callbacks.WandbCallback(project="demo", mode="disabled")
        ... except ImportError as e:
        ...     print(str(e).split(";")[0])
        paddle.callbacks.WandbCallback needs the wandb package
    """

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs):
        super().__init__()
        try:
            import wandb
        except ImportError:
            raise ImportError("paddle.callbacks.WandbCallback needs the wandb package; install it with `pip install "
                              "wandb`, or use paddle.callbacks.CSVLogger, which needs nothing") from None
        self.wandb = wandb
        self.wandb_args = dict(project=project, name=name, entity=entity, dir=dir, mode=mode, job_type=job_type,
                               **kwargs)
        self._run = None
        self.train_step, self.epoch, self._is_fit = 0, 0, False
        _ = self.run

    @staticmethod
    def _is_write():
        from ..distributed.env import ParallelEnv
        return ParallelEnv().local_rank == 0

    @property
    def run(self):
        if self._is_write() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("WandbCallback: a wandb run is already in progress and is reused; call wandb.finish() "
                              "before creating the callback for a new run")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        self._is_fit, self.train_step = True, 0
        if self._is_write():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _log(self, logs, mode, names):
        out = {"train/step": self.train_step} if mode == "train" else {"epoch": self.epoch}
        for k in names:
            v = (logs or {}).get(k)
            v = v[0] if isinstance(v, (list, tuple)) else v
            if isinstance(v, numbers.Number) or isinstance(v, np.number):
                out[f"{mode}/{k}"] = float(v)
        self.run.log(out)

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if self._is_write():
            self._log(logs, "train", self.params.get("metrics", []))

    def on_eval_begin(self, logs=None):
        self._eval_metrics = (logs or {}).get("metrics", [])

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._log(logs, "eval", getattr(self, "_eval_metrics", None) or self.params.get("metrics", []))
            if not self._is_fit:
                self.run.finish()
                self._run = None

    def on_train_end(self, logs=None):
        if self._is_write():
            self.run.finish()
            self._run = None
