"""`dynamic_decode`: the loop that drives a `paddle.nn.decode.Decoder` (eager: a Python loop; static: one `while`
op whose per-step outputs go to tensor arrays created before it)."""
import contextlib
import warnings

import numpy as np

from ..core.state import STATE
from ..graph import tensor_array
from ..graph.control_flow import in_block, while_loop
from ..graph.debug_ops import Assert
from ..graph.pytree import flatten, unflatten
from ..graph.variable import Variable
from ..ops import creation as C
from ..ops import logic as L
from ..ops import manipulation as S
from ..ops import math as M


def map_structure(fn, *trees):
    """`fn` over the leaves of same-shaped nested structures (lists, tuples, namedtuples, dicts)."""
    leaves, tree = flatten(trees[0])
    rest = []
    for t in trees[1:]:
        lv, tr = flatten(t)
        if tr != tree:
            raise ValueError(f"dynamic_decode: the decoder's states changed structure between steps ({tree} -> {tr})")
        rest.append(lv)
    return unflatten(tree, [fn(*xs) for xs in zip(leaves, *rest)])


def _keep_finished(old, new, finished):
    """`new` where the entry is unfinished, `old` where it was already finished (impute_finished)."""
    mask = S.reshape(finished, list(finished.shape) + [1] * (new.ndim - finished.ndim))
    return M.where(mask, old, new)


def _track(decoder, finished, next_finished, lengths, states, next_states, impute_finished):
    """(finished, lengths, states) after a step. A decoder that does not track its own finished flags gets them
    OR-ed with the ones before the step, and a length that counts every step taken while unfinished (the step
    that finishes a sequence counts); with `impute_finished` its already finished entries keep their states."""
    if decoder.tracks_own_finished:
        if not hasattr(next_states, "lengths"):
            warnings.warn("`next_states` has no `lengths` attribute, the returned `sequence_lengths` would be all "
                          "zeros.", stacklevel=3)
            return next_finished, lengths, next_states
        return next_finished, next_states.lengths, next_states
    next_lengths = lengths + M.cast(L.logical_not(finished), lengths.dtype)
    if impute_finished:
        next_states = map_structure(lambda old, new: _keep_finished(old, new, finished), states, next_states)
    return L.logical_or(next_finished, finished), next_lengths, next_states


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Runs ``decoder.step`` from ``decoder.initialize(inits)`` until every sequence is finished, or for at most
    ``max_step_num + 1`` steps (Paddle's count: the step numbered `max_step_num` is the last).

    Args:
        decoder: a `Decoder` (e.g. `BeamSearchDecoder`).
        inits: passed to ``decoder.initialize`` (a cell's initial states for `BeamSearchDecoder`).
        max_step_num (int, optional): the last step number (steps are numbered from 0); None decodes until every
            sequence is finished.
        output_time_major (bool): outputs ``[time, batch, ...]`` when True, ``[batch, time, ...]`` when False.
        impute_finished (bool): for a decoder that does not track its own finished flags, the states of finished
            entries are kept from the step they finished at (their outputs are not changed). `BeamSearchDecoder`
            tracks its own, so this has no effect on it (as in Paddle).
        is_test (bool): recorded on the `while` op of a static program (Paddle uses it to skip keeping each step's
            inputs and states for a gradient; oar keeps them only when a gradient is asked for); no effect eagerly.
        return_length (bool): also return the sequence lengths.
        **kwargs: passed to every ``decoder.step`` (and from there to the cell).

    Returns:
        ``(final_outputs, final_states)``, or ``(final_outputs, final_states, sequence_lengths)`` with
        `return_length`: the stacked step outputs (after ``decoder.finalize`` when it is implemented), the states
        after the last step, and int64 lengths (the decoder's ``final_states.lengths`` when it tracks its own).

    Deliberate difference: Paddle's eager loop copies each step's `finished` into the previous flags before it
    counts lengths and imputes states, so there (eagerly only, for decoders that do not track their own flags) the
    step that finishes a sequence is not counted and its state is not updated; oar counts it and updates it in
    both modes, as Paddle's static loop does.

    Example:
        >>> _ = oar.seed(2)
        >>> cell = oar.nn.LSTMCell(4, 8)
        >>> decoder = oar.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=2,
        ...                                    embedding_fn=oar.nn.Embedding(6, 4), output_fn=oar.nn.Linear(8, 6))
        >>> h = oar.zeros([3, 8])
        >>> ids, states, lengths = oar.nn.dynamic_decode(decoder, (h, h), max_step_num=5, return_length=True)
        >>> ids.shape[0], lengths.shape, states.finished.dtype == oar.bool
        (3, [3, 2], True)
    """
    for name in ("initialize", "step"):
        if not callable(getattr(decoder, name, None)):
            raise TypeError(f"dynamic_decode: decoder must have a callable {name}() (a paddle.nn.decode.Decoder), "
                            f"got {type(decoder).__name__}")
    if max_step_num is not None:
        if isinstance(max_step_num, bool) or not isinstance(max_step_num, (int, np.integer)):
            raise TypeError(f"dynamic_decode: max_step_num must be None or an int >= 0, got "
                            f"{type(max_step_num).__name__} {max_step_num!r}")
        if max_step_num < 0:
            raise ValueError(f"dynamic_decode: max_step_num must be None or an int >= 0, got {max_step_num}")
    with _static_attributes_scoped(decoder):
        return _decode(decoder, inits, max_step_num, output_time_major, impute_finished, is_test, return_length,
                       kwargs)


@contextlib.contextmanager
def _static_attributes_scoped(decoder):
    """While a static program is built, the attributes a decoder sets to static values as it decodes (Paddle's
    BeamSearchDecoder keeps `batch_size`, `vocab_size_tensor`, ... on itself for its subclasses) are put back
    afterwards: static values exist only while the program is built, and must not outlive it on the decoder."""
    before = dict(vars(decoder)) if STATE.static and hasattr(decoder, "__dict__") else None
    try:
        yield
    finally:
        if before is not None:
            for k, v in list(vars(decoder).items()):
                if isinstance(v, Variable) and before.get(k) is not v:
                    if k in before:
                        setattr(decoder, k, before[k])
                    else:
                        delattr(decoder, k)


def _decode(decoder, inits, max_step_num, output_time_major, impute_finished, is_test, return_length, kwargs):
    inputs, states, finished = decoder.initialize(inits)
    if not hasattr(finished, "dtype") or finished.dtype.name != "bool":
        raise TypeError(f"dynamic_decode: decoder.initialize must return a bool `finished` tensor as its third "
                        f"value, got {getattr(finished, 'dtype', type(finished).__name__)}")
    lengths = M.zeros_like(finished, dtype="int64")
    # checked when the values exist: at once eagerly, when the program runs in a static one
    Assert(L.logical_not(L.all(finished)), name="dynamic_decode: every sequence is finished before the first step "
           "(the `finished` of decoder.initialize is all True): nothing to decode")
    run = _run_static if STATE.static else _run_eager
    outputs, states, lengths = run(decoder, inputs, states, finished, lengths, max_step_num, impute_finished,
                                   is_test, kwargs)
    try:
        outputs, states = decoder.finalize(outputs, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = map_structure(lambda x: S.transpose(x, [1, 0] + list(range(2, x.ndim))), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _run_eager(decoder, inputs, states, finished, lengths, max_step_num, impute_finished, is_test, kwargs):
    steps, tree, step = [], None, 0
    while True:
        time = C.full([1], step, "int64")
        outs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        finished, lengths, states = _track(decoder, finished, next_finished, lengths, states, next_states,
                                           impute_finished)
        leaves, t = flatten(outs)
        if tree is not None and t != tree:
            raise ValueError(f"dynamic_decode: decoder.step returned outputs of another structure at step {step}")
        tree = t
        steps.append(leaves)
        inputs, step = next_inputs, step + 1
        if bool(L.all(finished)) or (max_step_num is not None and step > max_step_num):
            break
    return unflatten(tree, [S.stack(list(col), axis=0) for col in zip(*steps)]), states, lengths


class _StepArrays:
    """The tensor arrays (in the block around the loop) that the `while` body writes each step's outputs to.
    Created on the body's first trace; a retrace of the body (a loop var's shape changed) writes the same ones."""

    def __init__(self, block):
        self.block, self.arrays, self.tree = block, None, None

    def write(self, outputs, step):
        leaves, tree = flatten(outputs)
        if self.arrays is None or tree != self.tree or [a.dtype for a in self.arrays] != [v.dtype for v in leaves]:
            with in_block(self.block):
                self.arrays = [tensor_array.create_array(v.dtype) for v in leaves]
            self.tree = tree
        for v, a in zip(leaves, self.arrays):
            tensor_array.array_write(v, step, a)

    def stacked(self):
        return unflatten(self.tree, [tensor_array.array_to_tensor(a, axis=0, use_stack=True) for a in self.arrays])


def _run_static(decoder, inputs, states, finished, lengths, max_step_num, impute_finished, is_test, kwargs):
    from ..graph import builder
    arrays = _StepArrays(builder.default_main_program().current_block())
    last = None if max_step_num is None else C.full([1], int(max_step_num), "int64")

    def cond(step, inputs, states, finished, lengths):
        go = L.logical_not(L.all(finished))
        return go if last is None else L.logical_and(go, L.less_equal(step, last))

    def body(step, inputs, states, finished, lengths):
        outs, next_states, next_inputs, next_finished = decoder.step(step, inputs, states, **kwargs)
        finished, lengths, states = _track(decoder, finished, next_finished, lengths, states, next_states,
                                           impute_finished)
        arrays.write(outs, step)
        return [step + 1, next_inputs, states, finished, lengths]

    step0 = C.full([1], 0, "int64")
    _, _, states, _, lengths = while_loop(cond, body, [step0, inputs, states, finished, lengths], is_test=is_test)
    return arrays.stacked(), states, lengths
