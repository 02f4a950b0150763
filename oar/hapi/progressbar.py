"""The progress line `Model.fit` prints, in Paddle's format: ``step 10/938 [===>....] - loss: 0.5178 - acc: 0.7341 -
ETA: 1:07 - 72ms/step`` (verbose 1, redrawn in place on a terminal) or one line per update (verbose 2)."""
import shutil
import sys
import time

import numpy as np


def _fmt_value(v):
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(-1)[0]
    if isinstance(v, (float, np.floating)):
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    return f" {v}"


def _fmt_eta(seconds):
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


def _fmt_rate(per_unit, name):
    if per_unit >= 1 or per_unit == 0:
        return f" - {per_unit:.0f}s/{name}"
    if per_unit >= 1e-3:
        return f" - {per_unit * 1e3:.0f}ms/{name}"
    return f" - {per_unit * 1e6:.0f}us/{name}"


class ProgressBar:
    """Prints progress over ``num`` steps (None: unknown length).

    Args:
        num (int | None): total steps.
        width (int): bar width for verbose 1 (capped by the terminal).
        verbose (int): 1 = bar redrawn in place, 2 = one line per `update`.
        file: where to write (default: sys.stdout at call time).
        name (str): the unit ('step').

    Example:
        >>> from oar.hapi.progressbar import ProgressBar
        >>> import io
        >>> out = io.StringIO()
        >>> bar = ProgressBar(num=4, verbose=2, file=out)
        >>> bar.update(2, [("loss", [0.5]), ("acc", 0.75)])
        >>> out.getvalue().split(" - ")[:3]
        ['step 2/4', 'loss: 0.5000', 'acc: 0.7500']
    """

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if isinstance(num, int) and num <= 0:
            raise ValueError(f"ProgressBar: num must be None or a positive int, got {num}")
        cols = shutil.get_terminal_size((80, 24)).columns or 80
        self._num, self._verbose, self.name = num, verbose, name
        self._width = min(width, max(10, min(int(cols * 0.6), cols - 50)))
        self._file = file
        self._total_width = 0
        self._start = time.perf_counter() if start else None

    @property
    def file(self):
        return self._file if self._file is not None else sys.stdout

    def start(self):
        """Restarts the clock."""
        self.file.flush()
        self._start = time.perf_counter()

    def _values(self, values):
        info = ""
        for k, val in values:
            info += f" - {k}:"
            for v in (val if isinstance(val, list) else [val]):
                info += _fmt_value(v)
        return info

    def update(self, current_num, values=()):
        """Shows step `current_num` with `values`, a list of (name, value or list of values)."""
        per_unit = (time.perf_counter() - self._start) / current_num if current_num and self._start else 0.0
        rate = _fmt_rate(per_unit, self.name)
        f = self.file
        if self._verbose == 1:
            dynamic = hasattr(f, "isatty") and f.isatty()   # a terminal redraws one line; a log gets one per update
            prev = self._total_width
            if dynamic:
                f.write("\b" * prev + "\r")
            if self._num is not None:
                digits = len(str(self._num))
                bar = f"{self.name} {current_num:{digits}d}/{self._num} ["
                filled = int(self._width * current_num / self._num)
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current_num < self._num else "=")
                bar += "." * (self._width - filled) + "]"
            else:
                bar = f"{self.name} {current_num:3d}"
            info = self._values(values)
            if self._num is not None and current_num < self._num:
                info += " - ETA: " + _fmt_eta(per_unit * (self._num - current_num))
            info += rate
            self._total_width = len(bar) + len(info)
            if dynamic and prev > self._total_width:
                info += " " * (prev - self._total_width)
            if not dynamic or self._num is None or current_num >= self._num:
                info += "\n"
            f.write(bar + info)
        elif self._verbose in (2, 3):
            if self._num:
                count = f"{self.name} {current_num:{len(str(self._num))}d}/{self._num}"
            else:
                count = f"{self.name} {current_num:3d}"
            f.write(count + self._values(values) + rate + "\n")
        f.flush()
