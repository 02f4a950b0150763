"""The op families behind the neural-network layers: activations, linear / dropout / embedding / pad, convolution,
pooling and normalization. `oar.nn.functional` re-exports their public functions; they live here, beside the other
op families, so that running a saved program (`oar.lite`) needs no layer above the executor."""
from . import activation, activation_composed, common, conv, pooling, norm, fold, rnn  # noqa: F401
