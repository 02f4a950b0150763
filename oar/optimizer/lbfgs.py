"""L-BFGS (Nocedal & Wright, Algorithm 7.5) with an optional strong-Wolfe line search (Algorithm 3.5 with cubic
interpolation), as Paddle's `paddle.optimizer.LBFGS`: `step(closure)` runs up to `max_iter` iterations, the closure
re-evaluating the loss and its gradients. Works on the parameters' values directly (dynamic mode only)."""
import numpy as np

from ..core.devices import device_of, is_device_array, place_array, to_host
from ..core.state import STATE
from .optimizer import Optimizer


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to `bounds` (default [x1, x2])."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = np.sqrt(d2_square)
    if x1 <= x2:
        pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(pos, lo), hi)


def _strong_wolfe(obj, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step `t` along `d` meeting the strong Wolfe conditions: (loss, grad, t, evaluations)."""
    d_norm = np.abs(d).max()
    f_new, g_new = obj(x, t, d)
    evals, gtd_new = 1, float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done, it = False, 0
    while it < max_ls:  # bracketing
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev):
            bracket, bf, bg, bgtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bf, bg, done = [t], [f_new], [g_new], True
            break
        if gtd_new >= 0:
            bracket, bf, bg, bgtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        nxt = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                 bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = nxt
        f_new, g_new = obj(x, t, d)
        evals, gtd_new, it = evals + 1, float(g_new @ d), it + 1
    if it == max_ls:
        bracket, bf, bg = [0, t], [f, f_new], [g, g_new]
    insufficient = False
    low, high = (0, 1) if bf[0] <= bf[-1] else (1, 0)
    while not done and it < max_ls:  # zoom
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bf[0], bgtd[0], bracket[1], bf[1], bgtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = obj(x, t, d)
        evals, gtd_new, it = evals + 1, float(g_new @ d), it + 1
        if f_new > f + c1 * t * gtd or f_new >= bf[low]:
            bracket[high], bf[high], bg[high], bgtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if bf[0] <= bf[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bf[high], bg[high], bgtd[high] = bracket[low], bf[low], bg[low], bgtd[low]
            bracket[low], bf[low], bg[low], bgtd[low] = t, f_new, g_new, gtd_new
    return bf[low], bg[low], bracket[low], evals


class LBFGS(Optimizer):
    """Limited-memory BFGS: ``step(closure)`` where ``closure()`` clears the gradients, computes the loss, calls
    ``backward()`` and returns the loss. `line_search_fn` is None (fixed step `learning_rate`) or 'strong_wolfe'.
    Paddle's LBFGS accepts `weight_decay` and `grad_clip` but never applies them; oar refuses them instead.

    Example:
        >>> w = oar.to_tensor([3.0, -1.0], stop_gradient=False)
        >>> opt = oar.optimizer.LBFGS(parameters=[w], line_search_fn='strong_wolfe')
        >>> def closure():
        ...     opt.clear_grad()
        ...     loss = ((w - oar.to_tensor([1.0, 2.0])) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> _ = opt.step(closure)
        >>> [round(v, 4) for v in w.numpy().tolist()]
        [1.0, 2.0]
    """

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        if weight_decay is not None or grad_clip is not None:
            raise NotImplementedError("LBFGS: weight_decay and grad_clip are not applied by Paddle's LBFGS (it reads "
                                      "the raw gradients); add the penalty to the loss in the closure instead")
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        if parameters is None:
            raise ValueError("LBFGS: parameters are required (dynamic mode)")
        super().__init__(1.0, parameters, None, None, name)
        self.learning_rate, self.max_iter = learning_rate, max_iter
        self.max_eval = max_eval if max_eval is not None else max_iter * 5 // 4
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = history_size, line_search_fn
        self._params = list(self._parameter_list)
        self.state = {"func_evals": 0, "n_iter": 0}

    # ---- the parameters as one flat vector ----------------------------------------------------------------------
    # (host vectors: on a GPU the gradient is copied to the host and each step back, one copy per parameter)
    def _flat_grad(self):
        return np.concatenate([np.zeros(p._data.size, p._data.dtype) if p.grad is None else
                               to_host(p.grad._data).reshape(-1) if is_device_array(p.grad._data) else
                               np.asarray(p.grad._data).reshape(-1) for p in self._params])

    def _add(self, t, d):
        i = 0
        for p in self._params:
            n = p._data.size
            step = place_array(t * d[i:i + n].reshape(p._data.shape), device_of(p._data))
            p._data = (p._data + step).astype(p._data.dtype)
            p._version += 1
            i += n

    def _values(self):
        return [p._data.copy() for p in self._params]

    def _restore(self, values):
        for p, v in zip(self._params, values):
            p._data = v.copy()
            p._version += 1

    def _evaluate_at(self, closure, x, t, d):
        self._add(t, d)
        loss = float(closure())
        g = self._flat_grad()
        self._restore(x)
        return loss, g

    def step(self, closure):
        """Runs up to `max_iter` L-BFGS iterations; returns the loss the first closure call computed."""
        if STATE.static:
            raise RuntimeError("LBFGS.step works in dynamic mode only (it calls the closure repeatedly)")
        st = self.state
        orig_loss = closure()
        loss, evals = float(orig_loss), 1
        st["func_evals"] += 1
        g = self._flat_grad()
        if np.abs(g).max() <= self.tolerance_grad:
            return orig_loss
        d, t = st.get("d"), st.get("alpha")
        old_y, old_s, ro = st.get("old_yk"), st.get("old_sk"), st.get("ro")
        h_diag, prev_g, prev_loss = st.get("H_diag"), st.get("prev_flat_grad"), st.get("prev_loss")
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                d, old_y, old_s, ro, h_diag = -g, [], [], [], 1.0
            else:
                y, s = g - prev_g, d * t
                ys = float(y @ s)
                if ys > 1e-10:
                    if len(old_y) == self.history_size:
                        old_y.pop(0), old_s.pop(0), ro.pop(0)
                    old_y.append(y), old_s.append(s), ro.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                q, al = -g, [0.0] * len(old_y)
                for i in range(len(old_y) - 1, -1, -1):
                    al[i] = float(old_s[i] @ q) * ro[i]
                    q = q - al[i] * old_y[i]
                d = q * h_diag
                for i in range(len(old_y)):
                    d = d + old_s[i] * (al[i] - float(old_y[i] @ d) * ro[i])
            prev_g, prev_loss = g.copy(), loss
            t = min(1.0, 1.0 / float(np.abs(g).sum())) * self.learning_rate if st["n_iter"] == 1 else \
                self.learning_rate
            gtd = float(g @ d)
            if gtd > -self.tolerance_change:
                break
            ls_evals = 0
            if self.line_search_fn == "strong_wolfe":
                x0 = self._values()
                loss, g, t, ls_evals = _strong_wolfe(
                    lambda x, a, dd: self._evaluate_at(closure, x, a, dd), x0, t, d, loss, g, gtd)
                self._add(t, d)
                converged = np.abs(g).max() <= self.tolerance_grad
            else:
                self._add(t, d)
                converged = False
                if n_iter != self.max_iter:
                    loss = float(closure())
                    g = self._flat_grad()
                    converged, ls_evals = np.abs(g).max() <= self.tolerance_grad, 1
            evals += ls_evals
            st["func_evals"] += ls_evals
            if converged or np.abs(d * t).max() <= self.tolerance_change or \
                    abs(loss - prev_loss) < self.tolerance_change or evals >= self.max_eval:
                break
        st.update(d=d, alpha=t, old_yk=old_y, old_sk=old_s, ro=ro, H_diag=h_diag, prev_flat_grad=prev_g,
                  prev_loss=prev_loss)
        return orig_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS has no minimize(); call step(closure) (as Paddle)")
