"""Special functions and the remaining elementwise math of Paddle's top level: gamma-family functions, modified
Bessel functions, inverse hyperbolics, logit, lerp, heaviside, gcd/lcm, frexp/ldexp, ...

Kernels use `scipy.special` when it is installed (the optional `oar-dl[special]` extra) and NumPy series otherwise;
only i1, i0e and i1e need SciPy. Gradient rules are written with other ops."""
import math as _math

from ..core import dtype as D
from .common import binary, infer_broadcast, infer_same, operand, public_api
from .complex import imag
from .math import (abs, cast, copysign, exp, isinf, log1p, maximum, ones_like, sign, sin, tanh, trunc, unbroadcast,
                   where, zeros_like)
from ..kernels.special import (acosh as _acosh, asinh as _asinh, atanh as _atanh, bessel as _bessel,
                               digamma as _digamma, erfinv as _erfinv, frexp as _frexp, gcd as _gcd,
                               hypot as _hypot,
                               heaviside as _heaviside, i0 as _i0, lcm as _lcm, lgamma as _lgamma, logit as _logit,
                               nextafter as _nextafter, polygamma as _polygamma)
from .onnx_rules import same as onnx_same, scalar
from .registry import apply, defop

_NO_ONNX = "no ONNX operator (special function)"  # the onnx_reason of this family's ops


def _float_input(x):
    """Paddle computes these functions in the default float dtype when given integers."""
    x = operand(x)
    return cast(x, D.default_float()) if x.dtype.kind not in "fc" else x


def _unary(name, impl, grad, example, infer=infer_same, **fields):
    """Defines an elementwise op and its public function; `example` is (input list, printed output)."""
    op = defop(name, impl, infer=infer, grad=grad, **fields)

    def fn(x, name=None):
        return apply(op, (_float_input(x),))
    fn.__name__ = name
    fn.__doc__ = (f"Elementwise {name}.\n\n    Example:\n        >>> [round(v, 4) for v in oar.{name}("
                  f"oar.to_tensor({example[0]})).numpy().tolist()]\n        {example[1]}\n    ")
    return op, fn


# ---- the gamma family ------------------------------------------------------------------------------------------

LGAMMA, lgamma = _unary("lgamma", _lgamma, lambda g, out, x: g * digamma(x),
                        ("[0.5, 3.0]", "[0.5724, 0.6931]"), onnx_reason=_NO_ONNX)
DIGAMMA, digamma = _unary("digamma", _digamma, lambda g, out, x: g * polygamma(x, 1), ("[1.0, 2.0]",
                                                                                      "[-0.5772, 0.4228]"),
                          onnx_reason=_NO_ONNX)
POLYGAMMA = defop("polygamma", _polygamma, grad=lambda g, out, x, n: g * polygamma(x, n + 1), infer=infer_same,
                  onnx_reason=_NO_ONNX)


def polygamma(x, n, name=None):
    """The n-th derivative of the digamma function, elementwise (n = 0 is digamma).

    Example:
        >>> [round(v, 4) for v in oar.polygamma(oar.to_tensor([1.0, 2.0]), 1).numpy().tolist()]
        [1.6449, 0.6449]
    """
    if int(n) < 0:
        raise ValueError(f"polygamma: order n must be a non-negative integer, got {n}")
    return apply(POLYGAMMA, (_float_input(x),), {"n": int(n)})


def gammaln(x, name=None):
    """Alias of `lgamma` (Paddle's `paddle.gammaln`).

    Example:
        >>> round(oar.gammaln(oar.to_tensor(4.0)).item(), 4)
        1.7918
    """
    return lgamma(x)


ERFINV, erfinv = _unary("erfinv", _erfinv,
                        lambda g, out, x: g * (_math.sqrt(_math.pi) / 2) * exp(out * out),
                        ("[0.0, 0.5]", "[0.0, 0.4769]"), onnx_reason=_NO_ONNX)

# ---- modified Bessel functions of the first kind -----------------------------------------------------------------


def _i1_grad(g, out, x):
    # d/dx I1 = I0 - I1/x, which tends to 1/2 at 0
    safe = where(x == 0, x + 1, x)
    return g * where(x == 0, zeros_like(x) + 0.5, i0(x) - out / safe)


def _i1e_grad(g, out, x):
    safe = where(x == 0, x + 1, x)
    return g * where(x == 0, zeros_like(x) + 0.5, i0e(x) - out * (sign(x) + 1 / safe))


I0, i0 = _unary("i0", _i0, lambda g, out, x: g * i1(x),
                ("[0.0, 1.0]", "[1.0, 1.2661]"), onnx_reason=_NO_ONNX)
I0E, i0e = _unary("i0e", _bessel("i0e"), lambda g, out, x: g * (i1e(x) - sign(x) * out),
                  ("[0.0, 1.0]", "[1.0, 0.4658]"), onnx_reason=_NO_ONNX)
I1, i1 = _unary("i1", _bessel("i1"), _i1_grad, ("[0.0, 1.0]", "[0.0, 0.5652]"),
                onnx_reason=_NO_ONNX)
I1E, i1e = _unary("i1e", _bessel("i1e"), _i1e_grad, ("[0.0, 1.0]", "[0.0, 0.2079]"),
                  onnx_reason=_NO_ONNX)

# ---- inverse hyperbolic functions ----------------------------------------------------------------------------------

ASINH, asinh = _unary("asinh", _asinh, lambda g, out, x: g / (x * x + 1) ** 0.5,
                      ("[0.0, 1.0]", "[0.0, 0.8814]"), onnx=onnx_same("Asinh"))
ACOSH, acosh = _unary("acosh", _acosh, lambda g, out, x: g / (x * x - 1) ** 0.5,
                      ("[1.0, 2.0]", "[0.0, 1.317]"), onnx=onnx_same("Acosh"))
ATANH, atanh = _unary("atanh", _atanh, lambda g, out, x: g / (1 - x * x), ("[0.0, 0.5]", "[0.0, 0.5493]"),
                      onnx=onnx_same("Atanh"))


# ---- composed elementwise functions ------------------------------------------------------------------------------

def _logit_grad(g, out, x, eps):
    inside = (x >= eps) & (x <= 1 - eps) if eps is not None else (x >= 0) & (x <= 1)
    return where(inside, g / (x * (1 - x)), zeros_like(g))


def _onnx_logit(ctx, op):
    x, eps = ctx.inp(op, "x"), op.attrs["eps"]
    if eps is not None:
        x = ctx.node("Clip", [x, scalar(ctx, op, eps), scalar(ctx, op, 1 - eps)])
    ctx.node("Log", [ctx.node("Div", [x, ctx.node("Sub", [scalar(ctx, op, 1), x])])], [ctx.out(op)])


LOGIT = defop("logit", _logit, grad=_logit_grad, infer=infer_same, onnx=_onnx_logit)


def logit(x, eps=None, name=None):
    """``log(x / (1 - x))``, with `x` first clipped to ``[eps, 1 - eps]`` when `eps` is given.

    Example:
        >>> [round(v, 4) for v in oar.logit(oar.to_tensor([0.5, 0.9])).numpy().tolist()]
        [0.0, 2.1972]
    """
    return apply(LOGIT, (_float_input(x),), {"eps": None if eps is None else float(eps)})


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """Scaled tanh: ``scale_b * tanh(scale_a * x)``.

    Example:
        >>> [round(v, 4) for v in oar.stanh(oar.to_tensor([0.0, 1.0])).numpy().tolist()]
        [0.0, 1.0038]
    """
    return tanh(_float_input(x) * scale_a) * scale_b


def frac(x, name=None):
    """The fractional part ``x - trunc(x)``.

    Example:
        >>> oar.frac(oar.to_tensor([1.5, -2.25])).numpy().tolist()
        [0.5, -0.25]
    """
    return x - trunc(x)


def rad2deg(x, name=None):
    """Radians to degrees (integers give the default float dtype).

    Example:
        >>> oar.rad2deg(oar.to_tensor([3.141592653589793])).numpy().round(3).tolist()
        [180.0]
    """
    return _float_input(x) * (180.0 / _math.pi)


def deg2rad(x, name=None):
    """Degrees to radians (integers give the default float dtype).

    Example:
        >>> [round(v, 4) for v in oar.deg2rad(oar.to_tensor([180])).numpy().tolist()]
        [3.1416]
    """
    return _float_input(x) * (_math.pi / 180.0)


def sgn(x, name=None):
    """The sign of real numbers; ``x / |x|`` (0 at 0) for complex numbers.

    Example:
        >>> oar.sgn(oar.to_tensor([-2.0, 0.0, 3.0])).numpy().tolist()
        [-1.0, 0.0, 1.0]
    """
    if x.dtype.kind != "c":
        return sign(x)
    from .complex import _sgn_complex
    return _sgn_complex(x)


def lerp(x, y, weight, name=None):
    """Linear interpolation ``x + weight * (y - x)``; `weight` is a number or a tensor.

    Example:
        >>> oar.lerp(oar.to_tensor([0.0, 10.0]), oar.to_tensor([10.0, 20.0]), 0.5).numpy().tolist()
        [5.0, 15.0]
    """
    return x + operand(weight, x) * (y - x)


def logaddexp(x, y, name=None):
    """``log(exp(x) + exp(y))`` computed without overflow.

    Example:
        >>> x = oar.to_tensor([0.0, 1000.0], 'float64')
        >>> [round(v, 4) for v in oar.logaddexp(x, x).numpy().tolist()]
        [0.6931, 1000.6931]
    """
    x, y = _float_input(x), _float_input(y)
    return maximum(x, y) + log1p(exp(-abs(x - y)))


def _heaviside_grad(g, out, x, y):
    return None, (None if y.stop_gradient else unbroadcast(where(x == 0, g, zeros_like(g)), y))


def _onnx_heaviside(ctx, op):
    x, zero = ctx.inp(op, "x"), scalar(ctx, op, 0)
    step = ctx.node("Where", [ctx.node("Greater", [x, zero]), scalar(ctx, op, 1), ctx.inp(op, "y")])
    ctx.node("Where", [ctx.node("Less", [x, zero]), zero, step], [ctx.out(op)])


HEAVISIDE = defop("elementwise_heaviside", _heaviside, inputs=("x", "y"), nondiff=(0,),
                  infer=infer_broadcast, grad=_heaviside_grad, onnx=_onnx_heaviside)


def heaviside(x, y, name=None):
    """The Heaviside step: 0 where x < 0, `y` where x == 0, 1 where x > 0.

    Example:
        >>> oar.heaviside(oar.to_tensor([-1.0, 0.0, 2.0]), oar.to_tensor(0.5)).numpy().tolist()
        [0.0, 0.5, 1.0]
    """
    return binary(HEAVISIDE, x, y)


NEXTAFTER = defop("nextafter", _nextafter, inputs=("x", "y"),
                  infer=infer_broadcast, differentiable=False, onnx_reason=_NO_ONNX)


def nextafter(x, y, name=None):
    """The next floating-point value after `x` towards `y`.

    Example:
        >>> oar.nextafter(oar.to_tensor([1.0], 'float64'), oar.to_tensor([2.0], 'float64')).numpy().tolist()
        [1.0000000000000002]
    """
    return binary(NEXTAFTER, x, y)


def ldexp(x, y, name=None):
    """``x * 2 ** y`` (integer `x` gives the default float dtype).

    Example:
        >>> oar.ldexp(oar.to_tensor([1.0, 3.0]), oar.to_tensor([2, 1])).numpy().tolist()
        [4.0, 6.0]
    """
    x = _float_input(x)
    return x * (2.0 ** cast(operand(y, x), x.dtype))


# d/dx sqrt(x^2 + y^2) = x / out: NaN at x = y = 0, as Paddle's (it is not differentiable there)
HYPOT = defop("hypot", _hypot, inputs=("x", "y"), infer=infer_broadcast,
              grad=lambda g, out, x, y: (unbroadcast(g * x / out, x), unbroadcast(g * y / out, y)),
              onnx_reason="not lowered yet (the sum of squares would overflow where hypot does not)")


def hypot(x, y, name=None):
    """Elementwise ``sqrt(x ** 2 + y ** 2)`` with broadcasting, without overflow in the squares (Paddle 3.3.1 squares
    first: inf for float32 inputs above ~1.8e19); integer inputs give the default float dtype.

    Example:
        >>> oar.hypot(oar.to_tensor([3.0, 5.0]), oar.to_tensor([4.0, 12.0])).numpy().tolist()
        [5.0, 13.0]
    """
    x, y = operand(x), operand(y)
    if "b" in (x.dtype.kind, y.dtype.kind):
        raise TypeError("hypot: x and y must be numbers, got a bool tensor")
    return binary(HYPOT, _float_input(x), _float_input(y))


def _real_number_input(x, what):
    x = operand(x)
    if x.dtype.kind not in "iuf":
        raise TypeError(f"{what}: x must be an integer or floating tensor, got {x.dtype.name}")
    return x


def isneginf(x, name=None):
    """Elementwise: whether `x` is -inf (never for integers).

    Example:
        >>> oar.isneginf(oar.to_tensor([-float('inf'), float('inf'), float('nan'), 1.0])).numpy().tolist()
        [True, False, False, False]
    """
    x = _real_number_input(x, "isneginf")
    return isinf(x) & (x < 0)


def isposinf(x, name=None):
    """Elementwise: whether `x` is +inf (never for integers).

    Example:
        >>> oar.isposinf(oar.to_tensor([-float('inf'), float('inf'), float('nan'), 1.0])).numpy().tolist()
        [False, True, False, False]
    """
    x = _real_number_input(x, "isposinf")
    return isinf(x) & (x > 0)


def isreal(x, name=None):
    """Elementwise: whether `x` has no imaginary part (always True for a real or bool dtype, NaN included).

    Example:
        >>> oar.isreal(oar.to_tensor([1 + 0j, 1 + 1j])).numpy().tolist()
        [True, False]
    """
    x = operand(x)
    return imag(x) == 0 if x.dtype.kind == "c" else ones_like(x, D.bool_)


def signbit(x, name=None):
    """Elementwise: whether the sign bit of `x` is set (True for -0.0 and a NaN with the sign bit).

    Example:
        >>> oar.signbit(oar.to_tensor([-0.0, 0.0, -2.0, 3.0])).numpy().tolist()
        [True, False, True, False]
    """
    x = _real_number_input(x, "signbit")
    if x.dtype.kind == "f":
        return copysign(ones_like(x), x) < 0
    return x < 0


def sinc(x, name=None):
    """Elementwise normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (its gradient there is 0); integer inputs give the
    default float dtype (Paddle 3.3.1 refuses them).

    Example:
        >>> [round(v, 4) for v in oar.sinc(oar.to_tensor([0.0, 0.5, -1.5])).numpy().tolist()]
        [1.0, 0.6366, -0.2122]
    """
    x = _float_input(_real_number_input(x, "sinc"))
    zero = x == 0
    safe = where(zero, ones_like(x), x) * _math.pi  # keeps 0/0 out of the gradient at 0
    return where(zero, ones_like(x), sin(safe) / safe)


FREXP = defop("frexp", _frexp, outputs=("mantissa", "exponent"),
              infer=lambda m: [m[0], m[0]], differentiable=False, onnx_reason=_NO_ONNX)


def frexp(x, name=None):
    """Splits `x` into mantissa in ``[0.5, 1)`` and exponent with ``x = mantissa * 2 ** exponent``.

    Example:
        >>> m, e = oar.frexp(oar.to_tensor([8.0, 0.75]))
        >>> m.numpy().tolist(), e.numpy().tolist()
        ([0.5, 0.75], [4.0, 0.0])
    """
    return apply(FREXP, (_float_input(x),))


GCD = defop("gcd", _gcd, inputs=("x", "y"), infer=infer_broadcast,
            differentiable=False, onnx_reason=_NO_ONNX)
LCM = defop("lcm", _lcm, inputs=("x", "y"), infer=infer_broadcast,
            differentiable=False, onnx_reason=_NO_ONNX)


def gcd(x, y, name=None):
    """Elementwise greatest common divisor of integer tensors.

    Example:
        >>> oar.gcd(oar.to_tensor([12, 20]), oar.to_tensor([8, 15])).numpy().tolist()
        [4, 5]
    """
    return binary(GCD, x, y)


def lcm(x, y, name=None):
    """Elementwise least common multiple of integer tensors.

    Example:
        >>> oar.lcm(oar.to_tensor([4, 6]), oar.to_tensor([6, 4])).numpy().tolist()
        [12, 12]
    """
    return binary(LCM, x, y)


__all__ = public_api(globals())
