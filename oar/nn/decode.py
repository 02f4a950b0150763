"""`paddle.nn.decode`: the `Decoder` interface, `BeamSearchDecoder` and `dynamic_decode` (Paddle 2.x's sequence
decoding, as PaddleNLP's seq2seq models use it).

`dynamic_decode` calls `decoder.step` until every sequence is finished or `max_step_num` is passed: a Python loop
in eager mode, one `while` op in a static program (`oar.jit.to_static`, `oar.static`), whose per-step outputs are
written to tensor arrays, so a converted function stops at the step eager code stops at.
"""
from typing import NamedTuple

import numpy as np

from ..core import dtype as D
from ..graph.pytree import flatten
from ..eager.tensor import to_tensor
from ..ops import creation as C
from ..ops import indexing as I
from ..ops import logic as L
from ..ops import manipulation as S
from ..ops import math as M
from ..ops.nn.activation import log_softmax
from ..ops.search import gather_tree, topk
from .decode_loop import dynamic_decode, map_structure as _map

_NEG_INF = 1e9  # Paddle's stand-in for -inf: the score of impossible candidates is -1e9


def _int_arg(value, what, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int >= {low}, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{what} must be an int >= {low}, got {value!r}")
    return int(value)


class Decoder:
    """The interface `dynamic_decode` drives (Paddle's `paddle.nn.decode.Decoder`): subclasses implement

    - ``initialize(inits) -> (initial_inputs, initial_states, finished)``, called once;
    - ``step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs, finished)``, once per step
      (`time` is an int64 tensor of shape [1]; `next_inputs`/`next_states` keep the structure of the arguments);
    - optionally ``finalize(outputs, final_states, sequence_lengths) -> (final_outputs, final_states)``, called
      with every step's outputs stacked on axis 0 (the default raises NotImplementedError: outputs kept as they are);
    - ``tracks_own_finished``: False (the default) lets `dynamic_decode` OR each step's `finished` into the ones
      already finished and count lengths itself; True takes the decoder's `finished` and `next_states.lengths`.

    Example:
        >>> class Countdown(oar.nn.decode.Decoder):
        ...     def initialize(self, inits):
        ...         return inits, inits, inits <= 0
        ...     def step(self, time, inputs, states, **kwargs):
        ...         return states, states - 1, inputs, states - 1 <= 0
        >>> out, state, lengths = oar.nn.dynamic_decode(Countdown(), oar.to_tensor([2, 3]), return_length=True)
        >>> out.numpy().tolist(), lengths.numpy().tolist()
        ([[2, 1, 0], [3, 2, 1]], [2, 3])
    """

    def initialize(self, inits):
        raise NotImplementedError(f"{type(self).__name__} must implement initialize(inits)")

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement step(time, inputs, states, **kwargs)")

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError  # the stacked outputs and the last states are the result

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over a cell (Paddle's `paddle.nn.BeamSearchDecoder`): each step the cell's output (through
    `output_fn`) gives log-probabilities (log_softmax), every beam's candidates are scored by the beam's
    accumulated log-probability plus the token's, and the `beam_size` best candidates of each batch entry become
    the next beams. A finished beam offers only `end_token` at no cost, so finished beams are padded with
    `end_token`. The cell's inputs and states are tiled to ``[batch * beam_size, ...]``; any other per-batch tensor
    the cell reads must be tiled with `tile_beam_merge_with_batch`.

    Args:
        cell: an RNN cell (``cell(inputs, states, **kwargs) -> (outputs, new_states)``).
        start_token (int): the id every beam starts from.
        end_token (int): the id that finishes a beam (in [0, vocab size)).
        beam_size (int): the number of beams kept per batch entry (>= 1; 1 is greedy decoding).
        embedding_fn (callable, optional): maps selected ids to the cell's inputs (ids are the inputs when None).
        output_fn (callable, optional): maps the cell's outputs to logits over the vocabulary.

    `step` returns ``OutputWrapper(scores, predicted_ids, parent_ids)`` (each ``[batch, beam_size]``) and
    ``StateWrapper(cell_states, log_probs, finished, lengths)``; `finalize` backtracks the stacked steps with
    `gather_tree` into ``[time, batch, beam_size]`` sequences. Deliberate difference: Paddle computes
    ``log(softmax(x))``, which is -inf (and masks to NaN) where softmax underflows; log_softmax stays finite.

    Example:
        >>> _ = oar.seed(1)
        >>> cell = oar.nn.GRUCell(8, 16)
        >>> decoder = oar.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3,
        ...                                    embedding_fn=oar.nn.Embedding(10, 8), output_fn=oar.nn.Linear(16, 10))
        >>> ids, states = oar.nn.dynamic_decode(decoder, inits=oar.zeros([2, 16]), max_step_num=4)
        >>> ids.shape[0], ids.shape[2], states.log_probs.shape
        (2, 3, [2, 3])
    """

    class OutputWrapper(NamedTuple):
        """What `step` outputs: the beams' scores, their last ids and the beams they came from."""
        scores: object
        predicted_ids: object
        parent_ids: object

    class StateWrapper(NamedTuple):
        """The beam-search state: the cell's states, accumulated log-probabilities, finished flags, lengths."""
        cell_states: object
        log_probs: object
        finished: object
        lengths: object

    kinf = _NEG_INF

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        if not callable(cell):
            raise TypeError(f"BeamSearchDecoder: cell must be callable (an RNN cell), got {type(cell).__name__}")
        for fn, what in ((embedding_fn, "embedding_fn"), (output_fn, "output_fn")):
            if fn is not None and not callable(fn):
                raise TypeError(f"BeamSearchDecoder: {what} must be callable or None, got {type(fn).__name__}")
        self.cell = cell
        self.start_token = _int_arg(start_token, "BeamSearchDecoder: start_token", 0)
        self.end_token = _int_arg(end_token, "BeamSearchDecoder: end_token", 0)
        self.beam_size = _int_arg(beam_size, "BeamSearchDecoder: beam_size", 1)
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """``[batch, ...] -> [batch * beam_size, ...]``, each entry repeated `beam_size` times in a row.

        Example:
            >>> x = oar.to_tensor([[1, 2], [3, 4]])
            >>> oar.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy().tolist()
            [[1, 2], [1, 2], [3, 4], [3, 4]]
        """
        beam_size = _int_arg(beam_size, "tile_beam_merge_with_batch: beam_size", 1)
        return S.flatten(_expand(x, beam_size), 0, 1)

    def _split_batch_beams(self, x):
        """``[batch * beam_size, ...] -> [batch, beam_size, ...]``."""
        rest = list(x.shape[1:])
        if any(d < 0 for d in rest):  # a dim a static program does not know: read when it runs
            dims = S.shape(x)
            rest = [dims[i + 1] if d < 0 else d for i, d in enumerate(rest)]
        return S.reshape(x, [-1, self.beam_size] + rest)

    def _merge_batch_beams(self, x):
        return S.flatten(x, 0, 1)

    def _expand_to_beam_size(self, x):
        return _expand(x, self.beam_size)

    def _mask_probs(self, probs, finished):
        """Log-probabilities ``[batch, beam_size, vocab]`` where a finished beam offers only `end_token`, at no
        cost (the others at -1e9); unfinished beams unchanged."""
        return M.where(S.unsqueeze(finished, [2]), self.noend_mask_tensor, probs)

    def _gather(self, x, indices, batch_size):
        """``x[b, indices[b, k], ...]`` for ``x`` of shape [batch_size, beam_size, ...]."""
        rows = S.tile(S.unsqueeze(C.arange(0, batch_size, 1, dtype=indices.dtype), [1]), [1, self.beam_size])
        coords = S.stack([rows, indices], axis=2)
        coords.stop_gradient = True
        return I.gather_nd(x, coords)

    def initialize(self, initial_cell_states):
        """``(initial_inputs, initial_states, finished)``: ids `start_token` ``[batch, beam_size]`` (embedded when
        `embedding_fn` is set), a `StateWrapper` whose cell states are tiled to ``[batch, beam_size, ...]``, whose
        log_probs are 0 for the first beam and -1e9 for the others (so the first step expands one beam), no beam
        finished and lengths 0."""
        leaves = flatten(initial_cell_states)[0]
        if not leaves or not hasattr(leaves[0], "shape") or len(leaves[0].shape) == 0:
            raise ValueError("BeamSearchDecoder.initialize: initial_cell_states must hold tensors of shape "
                             f"[batch, ...], got {initial_cell_states!r:.200}")
        first = leaves[0]
        self.batch_size = S.shape(first)[0]  # a tensor, as Paddle's (subclasses reshape with it)
        self.start_token_tensor = C.full([1], self.start_token, "int64")
        self.end_token_tensor = C.full([1], self.end_token, "int64")
        # [batch, beam_size] int64 zeros, built from the state itself so an unknown batch size stays unknown
        zeros = S.tile(S.reshape(M.zeros_like(first, dtype="int64"), [0, -1])[:, :1], [1, self.beam_size])
        fdt = D.default_float()
        first_beam = to_tensor(np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)], dtype=np.float32))
        log_probs = M.cast(zeros, fdt) + M.cast(first_beam, fdt)
        finished = M.cast(zeros, "bool")
        ids = zeros + self.start_token
        inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        return inputs, self.StateWrapper(cell_states, log_probs, finished, zeros), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        if vocab is None or vocab < 0:
            raise ValueError("BeamSearchDecoder: the logits' last dim (the vocabulary) must be known")
        if self.end_token >= vocab:
            raise ValueError(f"BeamSearchDecoder: end_token {self.end_token} is outside the vocabulary of {vocab}")
        self.vocab_size = vocab
        self.vocab_size_tensor = C.full([1], vocab, "int64")
        no_end = np.full([vocab], -self.kinf, np.float32)
        no_end[self.end_token] = 0.0
        self.noend_mask_tensor = M.cast(to_tensor(no_end), D.default_float())
        step_log_probs = self._mask_probs(log_softmax(logits), beam_state.finished)
        log_probs = step_log_probs + S.unsqueeze(beam_state.log_probs, [2])
        scores, flat = topk(S.reshape(log_probs, [-1, self.beam_size * vocab]), k=self.beam_size)
        parents = M.floor_divide(flat, self.vocab_size_tensor)
        tokens = M.remainder(flat, self.vocab_size_tensor)
        gather = lambda x: self._gather(x, parents, self.batch_size)  # noqa: E731
        cell_states = _map(gather, next_cell_states)
        was_finished = gather(beam_state.finished)
        lengths = gather(beam_state.lengths) + M.cast(L.logical_not(was_finished), beam_state.lengths.dtype)
        finished = L.logical_or(was_finished, L.equal(tokens, self.end_token_tensor))
        return (self.OutputWrapper(scores, tokens, parents),
                self.StateWrapper(cell_states, scores, finished, lengths))

    def step(self, time, inputs, states, **kwargs):
        """One beam-search step: ``(OutputWrapper, StateWrapper, next_inputs, finished)``; `kwargs` go to the
        cell."""
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        ids = output.predicted_ids
        ids.stop_gradient = True
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """``(predicted_ids, final_states)``: the stacked steps' ids backtracked along their parents
        (`gather_tree`) into ``[time, batch, beam_size]`` sequences."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        return True  # beams are reordered each step, so their finished flags and lengths are the decoder's


def _expand(x, beam_size):
    """``[batch, ...] -> [batch, beam_size, ...]``."""
    x = S.unsqueeze(x, [1])
    return S.tile(x, [1, beam_size] + [1] * (x.ndim - 2))


__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]
