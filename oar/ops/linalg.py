"""Linear algebra: matmul (with transpose flags and batching), mm, bmm, dot, outer, t, inverse, einsum, add_n."""
from ..core import dtype as D
from ..core.tensor_methods import TensorMethods
from .common import public_api, broadcast_shapes, infer_same, operand
from .math import add, cast, expand_as, unbroadcast
from .reduction import sum
from ..kernels.linalg import einsum as _einsum, inverse as _inverse, matmul as _matmul, matmul_check as _matmul_check
from .registry import apply, defop, lowerings


def _matmul_infer(m, transpose_x, transpose_y):
    xs, ys = list(m[0][0]), list(m[1][0])
    _matmul_check(xs, ys, transpose_x, transpose_y)
    if transpose_x and len(xs) >= 2:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if transpose_y and len(ys) >= 2:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    xv, yv = len(xs) == 1, len(ys) == 1
    if xv:
        xs = [1] + xs
    if yv:
        ys = ys + [1]
    batch = broadcast_shapes(xs[:-2], ys[:-2]) if (len(xs) > 2 or len(ys) > 2) else []
    out = batch + ([] if xv else [xs[-2]]) + ([] if yv else [ys[-1]])
    return [(out, m[0][1])]


def _mm(a, b, ta, tb):
    attrs = _FLAGS.get((ta, tb))  # (one attribute dict per pair of flags, made once)
    return apply(MATMUL, (a, b), attrs if attrs is not None else {"transpose_x": ta, "transpose_y": tb})


def _matmul_grad(g, out, x, y, transpose_x, transpose_y):
    x2, y2, g2 = x, y, g
    xn, yn = x.ndim, y.ndim
    if xn == 1 or yn == 1:  # vectors: compute as matrices, then reshape back
        from .manipulation import unsqueeze, reshape
        if xn == 1:
            x2, g2 = unsqueeze(x, [0]), unsqueeze(g2, [-2 if yn > 1 else 0])
        if yn == 1:
            y2, g2 = unsqueeze(y, [1]), unsqueeze(g2, [-1])
    gx = gy = None
    if x.dtype.kind == "c" or y.dtype.kind == "c":  # complex: the adjoint uses conjugates
        from .math import _conj_operand
        x2, y2 = _conj_operand(x2), _conj_operand(y2)
    if not x.stop_gradient:
        gx = unbroadcast(_mm(y2, g2, transpose_y, True) if transpose_x else _mm(g2, y2, False, not transpose_y), x2)
        gx = reshape(gx, x.shape) if xn == 1 else gx
    if not y.stop_gradient:
        if yn <= 2 and xn > 2 and not transpose_x and x2.shape[-1] != -1 and g2.shape[-1] != -1:
            # a matrix applied over batch dims (a Linear layer on [B, T, K]): one GEMM over the flattened rows
            # instead of one per batch entry summed afterwards
            from .manipulation import reshape as _reshape
            x2, g2 = _reshape(x2, [-1, x2.shape[-1]]), _reshape(g2, [-1, g2.shape[-1]])
        gy = unbroadcast(_mm(g2, x2, True, transpose_x) if transpose_y else _mm(x2, g2, not transpose_x, False), y2)
        gy = reshape(gy, y.shape) if yn == 1 else gy
    return gx, gy


MATMUL = defop("matmul", _matmul, inputs=("x", "y"), infer=_matmul_infer, grad=_matmul_grad, amp="white",
               grad_reads=("x", "y"))


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with NumPy broadcasting of batch dims; 1-D inputs are vectors.

    Example:
        >>> oar.matmul(oar.ones([2, 3]), oar.ones([3, 4])).shape
        [2, 4]
    """
    if not (isinstance(x, TensorMethods) and isinstance(y, TensorMethods)):  # (`is_tensorlike` written out)
        x, y = operand(x), operand(y)
    if x.dtype is not y.dtype:
        t = D.promote(x.dtype, y.dtype)
        x, y = cast(x, t), cast(y, t)
    attrs = _FLAGS.get((transpose_x, transpose_y))  # (bools, or values equal to them: no bool() calls)
    return apply(MATMUL, (x, y), attrs if attrs is not None else _FLAGS[bool(transpose_x), bool(transpose_y)])


# the four attribute dicts, made once (matmul is on every eager hot path; kernels never change their attrs)
_FLAGS = {(a, b): {"transpose_x": a, "transpose_y": b} for a in (False, True) for b in (False, True)}


def mm(input, mat2, name=None):
    """Matrix product of two matrices.

    Example:
        >>> oar.mm(oar.to_tensor([[1.0, 2.0]]), oar.to_tensor([[3.0], [4.0]])).numpy().tolist()
        [[11.0]]
    """
    return matmul(input, mat2)


def bmm(x, y, name=None):
    """Batched matrix product of [B, N, K] and [B, K, M].

    Example:
        >>> oar.bmm(oar.ones([2, 3, 4]), oar.ones([2, 4, 5])).shape
        [2, 3, 5]
    """
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"bmm expects 3-D inputs, got shapes {x.shape} and {y.shape}")
    return matmul(x, y)


def dot(x, y, name=None):
    """Inner product of 1-D tensors (row-wise for 2-D).

    Example:
        >>> oar.dot(oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0, 4.0])).item()
        11.0
    """
    p = x * y
    return sum(p, axis=-1, dtype=p.dtype if p.dtype.kind in "iu" else None)  # Paddle: int32 stays int32


def outer(x, y, name=None):
    """Outer product of two vectors.

    Example:
        >>> oar.outer(oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 10.0, 100.0])).numpy().tolist()
        [[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]]
    """
    from .manipulation import reshape
    return reshape(x, [-1, 1]) * reshape(y, [1, -1])


def t(input, name=None):
    """Transpose of a matrix of at most 2 dims.

    Example:
        >>> oar.t(oar.ones([2, 3])).shape
        [3, 2]
    """
    if input.ndim > 2:
        raise ValueError(f"t() expects a tensor with at most 2 dims, got shape {input.shape}")
    from .manipulation import transpose
    return input if input.ndim < 2 else transpose(input, [1, 0])


def _inverse_grad(g, out, x):
    from .linalg_util import mH  # conjugate transposes: complex matrices too
    return -matmul(matmul(mH(out), g), mH(out))


INVERSE = defop("inverse", _inverse, infer=infer_same, grad=_inverse_grad,
                onnx_reason="no ONNX operator (linear algebra decompositions and solvers)")


def inverse(x, name=None):
    """Inverse of square matrices (batched over leading dims).

    Example:
        >>> oar.inverse(oar.to_tensor([[2.0, 0.0], [0.0, 4.0]])).numpy().tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    return apply(INVERSE, (x,))


def _einsum_grad(g, out, *xs, equation):
    lhs, rhs = equation.replace(" ", "").split("->")
    terms = lhs.split(",")
    grads = []
    for i, x in enumerate(xs):
        others = terms[:i] + terms[i + 1:]
        present = rhs + "".join(others)
        kept = "".join(c for c in dict.fromkeys(terms[i]) if c in present)
        gi = apply(EINSUM, (g,) + xs[:i] + xs[i + 1:], {"equation": ",".join([rhs] + others) + "->" + kept})
        if kept != terms[i]:  # a repeated or summed-out-alone index: broadcast the contraction back
            gi = _einsum_broadcast(gi, kept, terms[i], x)
        grads.append(gi)
    return tuple(grads)


def _einsum_broadcast(gi, kept, term, x):
    from .manipulation import transpose, unsqueeze
    if len(set(term)) != len(term):
        raise NotImplementedError("einsum gradient with a repeated index in one operand (a diagonal)")
    pos = [term.index(c) for c in kept]
    order = sorted(range(len(kept)), key=lambda k: pos[k])
    gi = transpose(gi, order) if order != list(range(len(kept))) else gi
    missing = [i for i, c in enumerate(term) if c not in kept]
    return expand_as(unsqueeze(gi, missing), x)


EINSUM = defop("einsum", _einsum, inputs=("operands",), variadic=True, grad=_einsum_grad, amp="white",
               infer_reason="probed")


def einsum(equation, *operands):
    """Einstein summation, e.g. ``oar.einsum('ij,jk->ik', a, b)``.

    Example:
        >>> oar.einsum('ij,jk->ik', oar.ones([2, 3]), oar.ones([3, 4])).shape
        [2, 4]
        >>> oar.einsum('ii', oar.eye(3)).item()
        3.0
        >>> oar.einsum('...ij,jk->...ik', oar.ones([5, 2, 3]), oar.ones([3, 4])).shape
        [5, 2, 4]
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    if "..." in eq:
        eq = _expand_ellipsis(eq, operands)
    if "->" not in eq:
        letters = eq.replace(",", "")
        eq = eq + "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return apply(EINSUM, tuple(operands), {"equation": eq})


def _expand_ellipsis(eq, operands):
    """Writes '...' out as letters the equation does not use: right-aligned broadcast dims, as NumPy; without an
    output, they lead the implicit output."""
    ins, arrow, out = eq.partition("->")
    terms = ins.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operands in {eq!r}, got {len(operands)} tensors")
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in eq]
    counts = [op.ndim - len(t.replace("...", "")) if "..." in t else 0 for t, op in zip(terms, operands)]
    n = max(counts)
    if min(counts) < 0 or n > len(free):
        raise ValueError(f"einsum: {eq!r} does not fit operands of ranks {[op.ndim for op in operands]}")
    dims = "".join(free[:n])
    terms = [t.replace("...", dims[n - k:]) for t, k in zip(terms, counts)]
    if not arrow:
        letters = "".join(terms).replace(dims, "")
        out = dims + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in dims))
    return ",".join(terms) + "->" + out.replace("...", dims)



def add_n(inputs, name=None):
    """Sum of a list of tensors of the same shape.

    Example:
        >>> oar.add_n([oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0, 4.0])]).numpy().tolist()
        [4.0, 6.0]
    """
    if not isinstance(inputs, (list, tuple)):
        return inputs
    out = inputs[0]
    for x in inputs[1:]:
        out = add(out, x)
    return out


def increment(x, value=1.0, name=None):
    """Adds `value` to the one-element tensor `x` in place and returns `x` (Paddle's loop counter op); `x` keeps
    its dtype.

    Example:
        >>> i = oar.to_tensor([1.0])
        >>> oar.increment(i, value=2.0) is i, i.numpy().tolist()
        (True, [3.0])
    """
    return x._inplace(add(x, cast(operand(value, x), x.dtype)))


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_transposed_last2(ctx, name, ndim):
    if ndim < 2:
        return name
    return ctx.node("Transpose", [name], perm=list(range(ndim - 2)) + [ndim - 1, ndim - 2])


def _onnx_matmul(ctx, op):
    a = op.attrs
    x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
    if a.get("transpose_x"):
        x = _onnx_transposed_last2(ctx, x, len(ctx.in_meta(op, "x")[0]))
    if a.get("transpose_y"):
        y = _onnx_transposed_last2(ctx, y, len(ctx.in_meta(op, "y")[0]))
    ctx.node("MatMul", [x, y], [ctx.out(op)])


def _onnx_einsum(ctx, op):
    if ctx.opset < 12:
        raise ctx.block_op_error(op, "einsum needs opset_version >= 12")
    ctx.node("Einsum", ctx.ins(op, "operands"), [ctx.out(op)], equation=op.attrs["equation"])


lowerings({"matmul": _onnx_matmul, "einsum": _onnx_einsum})


__all__ = public_api(globals())
