"""The tracing proxy: `Variable`, an `ir.Var` with the operators and methods of `Tensor`, so the same user code
builds a Program in static mode that computes in eager mode."""
from .. import ir
from ..core.tensor_methods import TensorMethods


class StaticValueError(TypeError):
    """A static Variable used where Python needs its value (`bool()`, `.tolist()`, NumPy): the value exists only
    when the program runs. In a function converted with `full_graph=False` such a statement is a graph break."""


class Variable(ir.Var, TensorMethods):
    """A named, typed value in a Block: shape (-1 for unknown dims), dtype, persistable, stop_gradient.

    Static-mode ops take and return Variables; the same operators and methods as `Tensor` apply.

    Example:
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 3], 'float32')
        >>> x.name, x.shape, x.dtype == oar.float32
        ('x', [-1, 3], True)
    """

    __slots__ = ()

    __hash__ = ir.Var.__hash__

    def __len__(self):
        if not self.shape or self.shape[0] < 0:
            raise TypeError(f"len() of a static Variable '{self.name}' whose first dim is unknown; "
                            "use oar.shape(x)[0] for the run-time length")
        return self.shape[0]

    def __getitem__(self, index):
        if self.attrs.get("kind") == "tensor_array":   # a list carried through a static loop
            from .tensor_array import array_length, array_read, array_slice
            if isinstance(index, slice):
                return array_slice(self, index)
            if isinstance(index, int) and not isinstance(index, bool):
                if index < 0:
                    return array_read(self, array_length(self) + index)
            elif not isinstance(index, TensorMethods):
                raise TypeError(f"a tensor array (the list '{self.name}' carried through a tensor-dependent loop) "
                                f"can be indexed only by an int, an int tensor or an int slice, got {index!r}")
            return array_read(self, index)
        return TensorMethods.__getitem__(self, index)

    def __setitem__(self, index, value):
        if self.attrs.get("kind") == "tensor_array":   # `xs[i] = v` on a list carried through a static loop
            from .tensor_array import array_length, array_write
            if isinstance(index, int) and not isinstance(index, bool):
                index = array_length(self) + index if index < 0 else index
            elif not isinstance(index, TensorMethods):
                raise TypeError(f"a tensor array (the list '{self.name}' carried through a tensor-dependent loop) "
                                f"can be item-assigned only at an int or an int tensor, got {index!r}")
            array_write(value, index, self)
            return
        TensorMethods.__setitem__(self, index, value)

    def _static_value_error(self, what):
        raise StaticValueError(f"{what} needs a concrete value, but '{self.name}' is a static Variable whose value "
                               "exists only when the program runs. Keep the computation in oar ops, or fetch the "
                               "value from the Executor.")

    def __array_function__(self, func, types, args, kwargs):  # numpy.sum(v), numpy.abs(v), ...
        self._static_value_error(f"numpy.{func.__name__}()")

    def numpy(self):
        self._static_value_error("Variable.numpy()")

    def item(self):
        self._static_value_error("Variable.item()")

    def tolist(self):
        self._static_value_error("Variable.tolist()")

    def __bool__(self):
        self._static_value_error(f"bool() of Variable '{self.name}' (a Python `if`/`while` on it)")

    def __float__(self):
        self._static_value_error("float()")

    def __int__(self):
        self._static_value_error("int()")

    def __index__(self):
        self._static_value_error("using a Variable as a Python index")

    def __array__(self, dtype=None, copy=None):
        self._static_value_error("numpy.asarray()")

    def _inplace(self, out, keep_dtype=True):
        """In-place ops in static mode rebind this Python object to the result Variable (cast back to this
        variable's dtype when `keep_dtype`, as the eager tensor's: ``cumsum_`` of int32 stays int32)."""
        if keep_dtype and out.dtype is not self.dtype:
            from ..ops.math import cast
            out = cast(out, self.dtype)
        b = self.block
        if b is not None and b.vars.get(self.name) is self:  # the block keeps the old value under its own name
            old = Variable(b, self.name, self.shape, self.dtype, self.persistable, self.stop_gradient,
                           self.is_parameter, self.trainable, self.is_data)
            old.attrs = self.attrs
            b.vars[self.name] = old
        for k in ("name", "shape", "dtype", "block", "persistable", "stop_gradient"):
            setattr(self, k, getattr(out, k))
        return self

    def _assign_from(self, src):
        from .builder import append_assign
        append_assign(src, self)

    def get_value(self, scope=None):
        """The handle of this variable's value in `scope` (default: the global scope), as Paddle's
        ``scope.find_var(name).get_tensor()``: read with ``np.array(t)``, save with `oar.save`.

        Example:
            >>> oar.enable_static()
            >>> main, startup = oar.static.Program(), oar.static.Program()
            >>> with oar.static.program_guard(main, startup):
            ...     w = oar.static.create_parameter([2], 'float32', name='w_get_value',
            ...                                     default_initializer=oar.nn.initializer.Constant(2.0))
            >>> _ = oar.static.Executor().run(startup)
            >>> np.array(w.get_value()).tolist()
            [2.0, 2.0]
            >>> oar.disable_static()
        """
        from .scope import global_scope
        scope = global_scope() if scope is None else scope
        found = scope.find_var(self.name)
        if found is None:
            raise ValueError(f"get_value: variable {self.name!r} has no value in the scope (persistable variables "
                             "get theirs when the startup program runs: exe.run(startup_program))")
        return found.get_tensor()

    def set_value(self, value, scope=None):
        """Writes `value` (an array or Tensor of this variable's shape) into `scope` (default: the global scope).

        Example:
            >>> oar.enable_static()
            >>> main, startup = oar.static.Program(), oar.static.Program()
            >>> with oar.static.program_guard(main, startup):
            ...     w = oar.static.create_parameter([2], 'float32', name='w_set_value')
            >>> _ = oar.static.Executor().run(startup)
            >>> w.set_value(np.array([3.0, 4.0], 'float32'))
            >>> np.array(w.get_value()).tolist()
            [3.0, 4.0]
            >>> oar.disable_static()
        """
        import numpy as np
        a = np.asarray(getattr(value, "_data", value))
        old = np.asarray(self.get_value(scope))
        if list(a.shape) != list(old.shape):
            raise ValueError(f"set_value: variable {self.name!r} has shape {list(old.shape)}, got a value of shape "
                             f"{list(a.shape)}")
        from .scope import global_scope
        (global_scope() if scope is None else scope).set(self.name, a.astype(old.dtype, copy=True))

    def detach(self):
        from ..ops.creation import assign
        out = assign(self)
        out.stop_gradient = True
        return out

    def backward(self, grad_tensor=None, retain_graph=False):
        """In a function being converted by `to_static`: the backward of this loss becomes part of the captured
        training step (`oar.jit.train_step`). Elsewhere in static mode, use append_backward or minimize."""
        from ..core.capture import CAPTURING
        if CAPTURING.capture is None:
            raise RuntimeError("Variable.backward() is not available in static mode; use "
                               "oar.static.append_backward(loss) or optimizer.minimize(loss)")
        CAPTURING.capture.backward(self, grad_tensor)
