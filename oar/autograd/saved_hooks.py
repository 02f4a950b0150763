"""`paddle.autograd.saved_tensors_hooks`: a pair of functions applied to the tensors gradient rules keep."""
from ..ops.registry import SAVED_HOOKS, SavedTensorHooks


class saved_tensors_hooks:
    """Inside the block, every tensor an op keeps for its gradient is replaced by ``pack_hook(tensor)`` when the op
    runs, and ``unpack_hook(packed)`` (which must return a Tensor) gives it back when the backward pass needs it
    (e.g. to offload activations, or to store them compressed). Per thread; blocks nest.

    Example:
        >>> packed, unpacked = [], []
        >>> def pack(t):
        ...     packed.append(t.shape)
        ...     return t.numpy()
        >>> def unpack(a):
        ...     unpacked.append(list(a.shape))
        ...     return oar.to_tensor(a)
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> with oar.autograd.saved_tensors_hooks(pack, unpack):
        ...     y = (x * 3 * x).sum()
        >>> y.backward()
        >>> x.grad.numpy().tolist(), len(packed) == len(unpacked) > 0
        ([6.0, 12.0], True)
    """

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self._hooks = SavedTensorHooks(pack_hook, unpack_hook)

    def __enter__(self):
        SAVED_HOOKS.push(self._hooks)
        return self

    def __exit__(self, *exc):
        SAVED_HOOKS.pop()
