"""Recurrent layers with Paddle's parameter layout and gate order.

Cells hold ``weight_ih [gates*hidden, input]``, ``weight_hh [gates*hidden, hidden]``, ``bias_ih``, ``bias_hh``,
all initialised Uniform(-1/sqrt(hidden), 1/sqrt(hidden)). LSTM gates are ordered i, f, g(cell), o; GRU
computes ``r, z`` from input and hidden parts, ``c = tanh(x_c + r * h_c)``, ``h = (h_prev - c) * z + c``.
"""
from ...core import dtype as D
from ...core.info import FLAGS
from ...core.state import mode
from ...ops import creation as C
from ...ops import logic as L
from ...ops import manipulation as S
from ...ops import math as M
from ...ops.nn import rnn as fused
from .. import functional as F
from .container import LayerList
from ..initializer import Uniform
from .layers import Layer


class RNNCellBase(Layer):
    """Base of recurrent cells: parameter creation and zero initial states.

    Example:
        >>> cell = oar.nn.LSTMCell(4, 8)
        >>> isinstance(cell, oar.nn.RNNCellBase)
        True
        >>> [s.shape for s in cell.get_initial_states(oar.ones([2, 4]))]
        [[2, 8], [2, 8]]
    """

    _gates = 1

    def _make_params(self, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr):
        if hidden_size <= 0:
            raise ValueError(f"hidden_size must be positive, got {hidden_size}")
        self.input_size, self.hidden_size = input_size, hidden_size
        k = 1.0 / hidden_size ** 0.5
        init = Uniform(-k, k)
        g = self._gates * hidden_size
        self.weight_ih = self.create_parameter([g, input_size], weight_ih_attr, default_initializer=init)
        self.weight_hh = self.create_parameter([g, hidden_size], weight_hh_attr, default_initializer=init)
        self.bias_ih = self.create_parameter([g], bias_ih_attr, is_bias=True, default_initializer=init)
        self.bias_hh = self.create_parameter([g], bias_hh_attr, is_bias=True, default_initializer=init)

    def _fused(self, ndim):
        """Whether a step runs as one fused op (`oar.ops.nn.rnn`): ``FLAGS_fused_rnn`` on, both biases present,
        inputs of `ndim` 2 (``[batch, input]``), no auto_cast (whose per-op casts the composed form follows)."""
        return (FLAGS.values["FLAGS_fused_rnn"] and self.bias_ih is not None and self.bias_hh is not None
                and ndim == 2 and mode().amp is None)

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def _proj(self, x, w, b):
        y = M.matmul(x, w, transpose_y=True)
        return y if b is None else y + b

    def _zeros(self, inputs):
        return C.zeros([inputs.shape[0], self.hidden_size], dtype=inputs.dtype) if inputs.shape[0] >= 0 else \
            M.zeros_like(M.matmul(inputs, self.weight_ih, transpose_y=True)[:, :self.hidden_size])

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with `init_value`, batch size taken from ``batch_ref.shape[batch_dim_idx]``.

        Args:
            batch_ref: a tensor (or a nested list/tuple whose first tensor is used) giving the batch size.
            shape: a shape or a nested structure of shapes, without the batch dim (a leading -1 is
                replaced by the batch size); default the cell's `state_shape`.
            dtype: a dtype, or a structure of dtypes matching `shape`; default the default float dtype.
            init_value: the value of every element.
            batch_dim_idx: which dim of `batch_ref` is the batch.

        Example:
            >>> cell = oar.nn.GRUCell(4, 8)
            >>> h = cell.get_initial_states(oar.ones([3, 4]), shape=[5], dtype='float64', init_value=2.0)
            >>> h.shape, h.dtype == oar.float64, float(h[0, 0])
            ([3, 5], True, 2.0)
        """
        ref = batch_ref
        while isinstance(ref, (list, tuple)):
            ref = ref[0]
        shapes = self.state_shape if shape is None else shape
        dtypes = D.default_float() if dtype is None else dtype
        return _map_shapes(lambda s, dt: _filled(ref, batch_dim_idx, s, dt, init_value), shapes, dtypes)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


def _is_shape(s):
    return isinstance(s, (list, tuple)) and all(isinstance(d, int) for d in s)


def _map_shapes(fn, shapes, dtypes):
    """``fn(shape, dtype)`` over a nested structure of shapes; `dtypes` is one dtype or the same structure."""
    if _is_shape(shapes):
        return fn(list(shapes), dtypes)
    if not isinstance(shapes, (list, tuple)):
        raise TypeError(f"get_initial_states: shape must be a list of ints or a nested list/tuple of them, got "
                        f"{shapes!r}")
    if isinstance(dtypes, (list, tuple)):
        if len(dtypes) != len(shapes):
            raise ValueError(f"get_initial_states: dtype structure {dtypes!r} does not match shape {shapes!r}")
        return type(shapes)(_map_shapes(fn, s, d) for s, d in zip(shapes, dtypes))
    return type(shapes)(_map_shapes(fn, s, dtypes) for s in shapes)


def _filled(ref, batch_dim_idx, shape, dtype, value):
    """``[batch] + shape`` (a leading -1 of `shape` is the batch) filled with `value`; the batch size is read from
    `ref` at run time when it is unknown (a static program's -1)."""
    rest = shape[1:] if shape and shape[0] == -1 else shape
    batch = ref.shape[batch_dim_idx]
    if batch >= 0:
        return C.full([batch] + rest, value, dtype)
    index = tuple(slice(None) if i == batch_dim_idx % ref.ndim else 0 for i in range(ref.ndim))
    zeros = M.cast(S.reshape(M.zeros_like(ref)[index], [-1] + [1] * len(rest)), dtype)
    return zeros + C.full(rest, value, dtype)


def _no_projection(proj_size):
    if proj_size:
        raise NotImplementedError(f"LSTM proj_size={proj_size}: projected LSTM states are not supported; use "
                                  "proj_size=0 (and a Linear layer on the outputs)")


class SimpleRNNCell(RNNCellBase):
    """``h = act(x W_ih^T + b_ih + h W_hh^T + b_hh)`` with act 'tanh' or 'relu'; returns ``(h, h)``.

    Example:
        >>> cell = oar.nn.SimpleRNNCell(4, 8)
        >>> y, h = cell(oar.ones([2, 4]))
    """

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._name = name
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell activation must be 'tanh' or 'relu', got {activation!r}")
        self.activation = activation
        self._make_params(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        h = self._zeros(inputs) if states is None else states
        if self._fused(inputs.ndim):
            h = fused.simple_rnn_cell(inputs, h, *self._weights(), activation=self.activation)
            return h, h
        pre = self._proj(inputs, self.weight_ih, self.bias_ih) + self._proj(h, self.weight_hh, self.bias_hh)
        h = M.tanh(pre) if self.activation == "tanh" else F.relu(pre)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


class LSTMCell(RNNCellBase):
    """LSTM cell, gates in Paddle's order i, f, g, o; states ``(h, c)``; returns ``(h, (h, c))``.

    Example:
        >>> cell = oar.nn.LSTMCell(4, 8)
        >>> y, (h, c) = cell(oar.ones([2, 4]))
        >>> y.shape, h.shape, c.shape
        ([2, 8], [2, 8], [2, 8])
    """

    _gates = 4

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        self._name = name
        _no_projection(proj_size)
        self._make_params(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        if states is None:
            z = self._zeros(inputs)
            states = (z, z)
        h, c = states
        if self._fused(inputs.ndim):
            h, c = fused.lstm_cell(inputs, h, c, *self._weights())
            return h, (h, c)
        gates = self._proj(inputs, self.weight_ih, self.bias_ih) + self._proj(h, self.weight_hh, self.bias_hh)
        i, f, g, o = S.split(gates, 4, axis=-1)
        c = M.sigmoid(f) * c + M.sigmoid(i) * M.tanh(g)
        h = M.sigmoid(o) * M.tanh(c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))


class GRUCell(RNNCellBase):
    """GRU cell with Paddle's formula (reset gate applied to the hidden projection); returns ``(h, h)``.

    Example:
        >>> cell = oar.nn.GRUCell(4, 8)
        >>> y, h = cell(oar.ones([2, 4]))
        >>> y.shape, h.shape
        ([2, 8], [2, 8])
    """

    _gates = 3

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        self._name = name
        self._make_params(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        h = self._zeros(inputs) if states is None else states
        if self._fused(inputs.ndim):
            h = fused.gru_cell(inputs, h, *self._weights())
            return h, h
        x_r, x_z, x_c = S.split(self._proj(inputs, self.weight_ih, self.bias_ih), 3, axis=-1)
        h_r, h_z, h_c = S.split(self._proj(h, self.weight_hh, self.bias_hh), 3, axis=-1)
        r = M.sigmoid(x_r + h_r)
        z = M.sigmoid(x_z + h_z)
        c = M.tanh(x_c + r * h_c)
        h = (h - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


def _map(fn, *trees):
    if isinstance(trees[0], (tuple, list)):
        return type(trees[0])(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def _step_mask(sequence_length, steps, dtype):
    """``[T, B, 1]`` float mask: 1 where the step is inside the sequence."""
    t = C.arange(0, steps, dtype=sequence_length.dtype)
    m = L.less_than(S.unsqueeze(t, 1), S.unsqueeze(sequence_length, 0))
    return S.unsqueeze(M.cast(m, dtype), 2)


# cells whose step `oar.ops.nn.rnn.rnn_seq` runs (a subclass overriding `forward` runs its own step)
_SEQ_MODES = {SimpleRNNCell.forward: "RNN", LSTMCell.forward: "LSTM", GRUCell.forward: "GRU"}


class RNN(Layer):
    """Runs a cell over a sequence ``[B, T, ...]`` (or ``[T, B, ...]`` with ``time_major``).

    With `sequence_length`, states stop changing after each sequence's end (Paddle's semantics).
    Returns ``(outputs, final_states)``.

    Example:
        >>> rnn = oar.nn.RNN(oar.nn.SimpleRNNCell(4, 8))
        >>> out, h = rnn(oar.ones([2, 5, 4]))
        >>> out.shape, h.shape
        ([2, 5, 8], [2, 8])
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        x = inputs if self.time_major else S.transpose(inputs, [1, 0] + list(range(2, inputs.ndim)))
        steps = x.shape[0]
        if steps < 0:
            raise ValueError("RNN needs a known number of time steps")
        states = self.cell.get_initial_states(x[0], dtype=x.dtype) if initial_states is None else initial_states
        mask = None if sequence_length is None else _step_mask(sequence_length, steps, x.dtype)
        mode = None if kwargs else _SEQ_MODES.get(type(self.cell).forward)
        if mode is not None and self.cell._fused(x.ndim - 1):  # one op for the whole sequence
            y, states = fused.rnn_seq(mode, x, states, self.cell._weights(),
                                      C.ones([steps, 1, 1], x.dtype) if mask is None else mask, self.is_reverse,
                                      getattr(self.cell, "activation", "tanh"))
            return (y if self.time_major else S.transpose(y, [1, 0, 2])), states
        xs = S.unbind(x, 0)
        outs = [None] * steps
        order = range(steps - 1, -1, -1) if self.is_reverse else range(steps)
        for t in order:
            out, new = self.cell(xs[t], states, **kwargs)
            if mask is not None:
                m = mask[t]
                new = _map(lambda n, o: n * m + o * (1.0 - m), new, states)
            states = new
            outs[t] = out
        y = S.stack(outs, 0)
        if not self.time_major:
            y = S.transpose(y, [1, 0] + list(range(2, y.ndim)))
        return y, states


class BiRNN(Layer):
    """Forward and backward RNNs; outputs concatenated on the last dim, states ``(fw, bw)``.

    Example:
        >>> rnn = oar.nn.BiRNN(oar.nn.GRUCell(4, 8), oar.nn.GRUCell(4, 8))
        >>> out, (h_fw, h_bw) = rnn(oar.ones([2, 5, 4]))
        >>> out.shape, h_fw.shape
        ([2, 5, 16], [2, 8])
    """

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major
        # plain runners, not sublayers: the parameters stay under Paddle's keys cell_fw.* / cell_bw.*
        self.__dict__["_fw_rnn"] = _Runner(cell_fw, False, time_major)
        self.__dict__["_bw_rnn"] = _Runner(cell_bw, True, time_major)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        s_fw, s_bw = (None, None) if initial_states is None else initial_states
        y_fw, st_fw = self._fw_rnn(inputs, s_fw, sequence_length)
        y_bw, st_bw = self._bw_rnn(inputs, s_bw, sequence_length)
        return S.concat([y_fw, y_bw], axis=-1), (st_fw, st_bw)


class _Runner:
    """RNN.forward for a cell owned elsewhere (so parameters are registered once, under the owner's name)."""

    def __init__(self, cell, is_reverse, time_major):
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def __call__(self, inputs, initial_states=None, sequence_length=None):
        return RNN.forward(self, inputs, initial_states, sequence_length)


class RNNBase(LayerList):
    """Multi-layer, optionally bidirectional recurrent network (base of SimpleRNN, LSTM, GRU)."""

    _cell_cls = None

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 **cell_kwargs):
        super().__init__()
        if direction in ("bidirect", "bidirectional"):
            self.num_directions = 2
        elif direction == "forward":
            self.num_directions = 1
        else:
            raise ValueError(f"direction must be 'forward', 'bidirect' or 'bidirectional', got {direction!r}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr, bias_ih_attr=bias_ih_attr,
                     bias_hh_attr=bias_hh_attr, **cell_kwargs)
        for i in range(num_layers):
            in_size = input_size if i == 0 else hidden_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(self._cell_cls(in_size, hidden_size, **attrs), time_major=time_major))
            else:
                self.append(BiRNN(self._cell_cls(in_size, hidden_size, **attrs),
                                  self._cell_cls(in_size, hidden_size, **attrs), time_major))
        self.could_use_cudnn = False
        self._flat_names()

    def _flat_names(self):
        """Paddle's flat parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``, ...) for the cells' own
        parameters, the same tensors: `state_dict` lists them first, then the ``0.cell_fw.weight_ih`` paths, as
        Paddle's does, so checkpoints load either way."""
        for i, layer in enumerate(self):
            cells = [layer.cell] if self.num_directions == 1 else [layer.cell_fw, layer.cell_bw]
            for d, cell in enumerate(cells):
                for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    p = getattr(cell, n, None)
                    if p is not None:
                        self._parameters[f"{n}_l{i}{'_reverse' if d else ''}"] = p

    def _split_states(self, initial_states):
        """[L*D, B, H] (pairs for LSTM) -> per layer: a state, an (h, c) pair, or (fw, bw) of those."""
        if initial_states is None:
            return [None] * self.num_layers
        is_lstm = self.mode == "LSTM"
        parts = [S.unbind(s, 0) for s in initial_states] if is_lstm else [S.unbind(initial_states, 0)]
        out = []
        for i in range(self.num_layers):
            per_dir = []
            for d in range(self.num_directions):
                k = i * self.num_directions + d
                per_dir.append(tuple(p[k] for p in parts) if is_lstm else parts[0][k])
            out.append(per_dir[0] if self.num_directions == 1 else tuple(per_dir))
        return out

    def forward(self, inputs, initial_states=None, sequence_length=None):
        if inputs.ndim != 3 or inputs.shape[-1] not in (-1, self.input_size):
            layout = "[time, batch, input_size]" if self.time_major else "[batch, time, input_size]"
            raise ValueError(f"{type(self).__name__}: expected inputs of shape {layout} with input_size="
                             f"{self.input_size}, got shape {inputs.shape}")
        states = self._split_states(initial_states)
        finals = []
        x = inputs
        out_mask = None
        if sequence_length is not None:  # Paddle's rnn op returns zeros at padded steps
            steps = inputs.shape[0 if self.time_major else 1]
            out_mask = _step_mask(sequence_length, steps, inputs.dtype)
            if not self.time_major:
                out_mask = S.transpose(out_mask, [1, 0, 2])
        for i, layer in enumerate(self):
            if i > 0 and self.dropout:
                x = F.dropout(x, self.dropout, training=self.training, mode="upscale_in_train")
            x, st = layer(x, states[i], sequence_length)
            if out_mask is not None:
                x = x * out_mask
            finals.extend(st if self.num_directions == 2 else [st])
        if self.mode == "LSTM":
            final = (S.stack([s[0] for s in finals], 0), S.stack([s[1] for s in finals], 0))
        else:
            final = S.stack(finals, 0)
        return x, final

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}, " \
               f"direction={'bidirectional' if self.num_directions == 2 else 'forward'}"


class SimpleRNN(RNNBase):
    """Elman RNN. ``forward(inputs, initial_states=None, sequence_length=None) -> (outputs, final_states)``.

    Example:
        >>> rnn = oar.nn.SimpleRNN(4, 8, num_layers=2)
        >>> y, h = rnn(oar.ones([3, 5, 4]))     # y [3, 5, 8], h [2, 3, 8]
    """
    _cell_cls = SimpleRNNCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 activation="tanh", weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        super().__init__("RNN_" + activation.upper(), input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, activation=activation)
        self._name = name


class LSTM(RNNBase):
    """LSTM; final states are ``(h, c)``, each ``[num_layers*num_directions, B, hidden]``.

    Example:
        >>> lstm = oar.nn.LSTM(4, 8, direction='bidirect')
        >>> y, (h, c) = lstm(oar.ones([3, 5, 4]))   # y [3, 5, 16]
    """
    _cell_cls = LSTMCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0,
                 name=None):
        _no_projection(proj_size)
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self._name = name


class GRU(RNNBase):
    """GRU with Paddle's gate formula.

    Example:
        >>> gru = oar.nn.GRU(4, 8, num_layers=2)
        >>> out, h = gru(oar.ones([3, 5, 4]))
        >>> out.shape, h.shape
        ([3, 5, 8], [2, 3, 8])
    """
    _cell_cls = GRUCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self._name = name
