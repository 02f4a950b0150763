"""`paddle.tensor.math` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["abs", "abs_", "acos", "acos_", "acosh", "acosh_", "add", "add_", "add_n", "addmm", "addmm_", "all",
         "amax", "amin", "angle", "any", "asin", "asin_", "asinh", "asinh_", "atan", "atan2", "atan_", "atanh",
         "atanh_", "broadcast_shape", "cast", "cast_", "ceil", "ceil_", "clip", "clip_", "conj", "copysign", "cos",
         "cos_", "cosh", "cosh_", "count_nonzero", "cummax", "cummin", "cumprod", "cumprod_", "cumsum", "cumsum_",
         "cumulative_trapezoid", "deg2rad", "diff", "digamma", "digamma_", "divide", "divide_", "erf", "erf_",
         "erfinv", "erfinv_", "exp", "exp_", "expm1", "expm1_", "floor", "floor_", "floor_divide", "floor_divide_",
         "floor_mod", "floor_mod_", "fmax", "fmin", "frac", "frac_", "frexp", "gammaln", "gcd", "gcd_", "heaviside",
         "i0", "i0_", "i0e", "i1", "i1e", "increment", "inner", "inverse", "isfinite", "isinf", "isnan", "kron",
         "lcm", "lcm_", "ldexp", "ldexp_", "lerp", "lerp_", "lgamma", "lgamma_", "log", "log10", "log10_", "log1p",
         "log1p_", "log2", "log2_", "log_", "logaddexp", "logcumsumexp", "logit", "logit_", "logsumexp", "max",
         "maximum", "min", "minimum", "mm", "mod", "mod_", "multiplex", "multiply", "multiply_", "nan_to_num",
         "nan_to_num_", "nanmean", "nansum", "neg", "neg_", "nextafter", "outer", "polygamma", "polygamma_", "pow",
         "pow_", "prod", "rad2deg", "reciprocal", "reciprocal_", "remainder", "remainder_", "renorm", "renorm_",
         "round", "round_", "rsqrt", "rsqrt_", "scale", "scale_", "sgn", "sigmoid", "sigmoid_", "sign", "sin",
         "sin_", "sinh", "sinh_", "sqrt", "sqrt_", "square", "square_", "stanh", "subtract", "subtract_", "sum",
         "take", "tan", "tan_", "tanh", "tanh_", "trace", "trapezoid", "trunc", "trunc_", "vander"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
