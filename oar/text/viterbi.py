"""Viterbi decoding of a linear-chain CRF: the highest-scoring tag sequence of each batch item (Paddle's
`paddle.text.viterbi_decode` and its layer `ViterbiDecoder`), composed from oar ops (a loop over time steps)."""
from ..core.state import STATE
from ..nn.layer.layers import Layer
from ..ops import creation as C
from ..ops import indexing as I
from ..ops import manipulation as S
from ..ops import math as M
from ..ops import reduction as R
from ..ops import search


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """Best paths and their scores: `potentials` [B, T, N] emission scores, `transition_params` [N, N] (from row
    tag to column tag), `lengths` [B] int64. With `include_bos_eos_tag` the last tag is the start tag (its row is
    added at the first step) and the second to last the stop tag (its row is added after the last step), as in
    Paddle. Returns (scores [B], paths [B, max(lengths)] int64, 0 past each length).

    Example:
        >>> pot = oar.to_tensor([[[1.0, 0.0], [0.0, 1.0]]])
        >>> scores, paths = oar.text.viterbi_decode(pot, oar.zeros([2, 2]), oar.to_tensor([2]), False)
        >>> float(scores[0]), paths.numpy().tolist()
        (2.0, [[0, 1]])
    """
    if potentials.ndim != 3 or list(transition_params.shape) != [potentials.shape[2]] * 2:
        raise ValueError(f"viterbi_decode: potentials must be [B, T, N] and transition_params [N, N], got "
                         f"{potentials.shape} and {transition_params.shape}")
    n_tags = potentials.shape[2]
    if include_bos_eos_tag and n_tags < 2:
        raise ValueError("viterbi_decode: include_bos_eos_tag needs at least 2 tags (start and stop)")
    steps = potentials.shape[1]
    lengths = M.cast(lengths, "int64")
    alpha = potentials[:, 0]
    if include_bos_eos_tag:
        alpha = alpha + transition_params[n_tags - 1]
    history = []
    for t in range(1, steps):
        scores = S.unsqueeze(alpha, 2) + S.unsqueeze(transition_params, 0)  # [B, from, to]
        history.append(search.argmax(scores, axis=1))
        alive = S.unsqueeze(lengths > t, 1)
        alpha = M.where(alive, R.max(scores, axis=1) + potentials[:, t], alpha)  # ended sequences keep theirs
    if include_bos_eos_tag:
        alpha = alpha + transition_params[n_tags - 2]
    best, tag = R.max(alpha, axis=1), search.argmax(alpha, axis=1)
    out_steps = steps if STATE.static else max(int(R.max(lengths)), 0) if lengths.shape[0] else 0
    path = [None] * steps
    for t in range(steps - 1, -1, -1):
        tag = M.where(lengths - 1 == t, search.argmax(alpha, axis=1), tag)
        path[t] = M.where(lengths > t, tag, M.zeros_like(tag))
        if t > 0:
            prev = S.reshape(I.take_along_axis(history[t - 1], S.unsqueeze(tag, 1), axis=1), [-1])
            tag = M.where(lengths > t, prev, tag)
    paths = S.stack(path, axis=1) if steps else C.zeros([potentials.shape[0], 0], dtype="int64")
    return best, paths[:, :out_steps]


class ViterbiDecoder(Layer):
    """`viterbi_decode` with fixed transitions: forward(potentials, lengths) -> (scores, paths).

    Example:
        >>> decoder = oar.text.ViterbiDecoder(oar.zeros([2, 2]), include_bos_eos_tag=False)
        >>> scores, paths = decoder(oar.to_tensor([[[1.0, 0.0], [0.0, 1.0]]]), oar.to_tensor([2]))
        >>> paths.numpy().tolist()
        [[0, 1]]
    """

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self._name = name
        self.transitions, self.include_bos_eos_tag = transitions, include_bos_eos_tag

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag)
