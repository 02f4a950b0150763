"""Eager execution: the `Tensor` (an array plus autograd metadata), the tape walk of `backward` (`engine.py`),
`PyLayer`, printing and the device methods. Public names are re-exported by `oar`, `oar.tensor` and
`oar.autograd`."""
