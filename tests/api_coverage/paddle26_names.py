"""Public names of Paddle 2.6 that oar's coverage report checks (facts taken from Paddle 2.6's `paddle.__all__`,
`paddle.tensor.tensor_method_func`, `paddle.distribution.__all__` and `paddle.vision.ops.__all__`, and the `__all__`
of paddle.linalg, fft, signal, sparse, sparse.nn and sparse.nn.functional; the lists are
written out here by hand so the report needs no Paddle installed).

`OWNED_ELSEWHERE` names belong to modules another part of issue 14 builds (`paddle.linalg`): the report counts them
apart. `EXCLUDED` are names that cannot mean anything on a CPU-only framework, each with its reason."""

PADDLE = """
iinfo finfo dtype uint8 int8 int16 int32 int64 float16 float32 float64 bfloat16 bool complex64 complex128 addmm addmm_
allclose isclose t add subtract diag diagflat isnan scatter_nd_add unstack get_default_dtype save multinomial
get_cuda_rng_state get_rng_state rank empty_like eye cumsum cumsum_ cummax cummin cumprod cumprod_ logaddexp
logcumsumexp logit logit_ LazyGuard sign is_empty equal equal_ equal_all is_tensor is_complex is_integer cross where
where_ log1p cos cos_ tan tan_ mean mode mv in_dynamic_mode min amin any slice normal logsumexp full unsqueeze
unsqueeze_ argmax Model summary flops sort searchsorted bucketize split vsplit logical_and logical_and_ full_like
less_than less_than_ kron clip Tensor crop ParamAttr stanh randint randint_like assign gather scale zeros rsqrt
squeeze squeeze_ to_tensor gather_nd isinf uniform floor_divide floor_divide_ remainder remainder_ floor_mod
floor_mod_ roll batch max amax logical_or logical_or_ bitwise_and bitwise_and_ bitwise_or bitwise_or_ bitwise_xor
bitwise_xor_ bitwise_not bitwise_not_ mm flip rot90 bincount histogram multiplex CUDAPlace empty shape real imag
is_floating_point complex reciprocal rand less_equal less_equal_ triu triu_ sin sin_ dist cdist unbind meshgrid arange
load numel median nanmedian quantile nanquantile no_grad enable_grad set_grad_enabled is_grad_enabled mod mod_ abs
abs_ tril tril_ pow pow_ zeros_like maximum topk index_select CPUPlace matmul seed acos acos_ logical_xor exp expm1
expm1_ bernoulli poisson sinh sinh_ round DataParallel argmin prod broadcast_shape conj neg neg_ lgamma lgamma_ lerp
erfinv inner outer square square_ divide divide_ ceil atan atan_ atan2 rad2deg deg2rad gcd gcd_ lcm lcm_ expand
broadcast_to ones_like index_sample cast cast_ grad all ones not_equal sum nansum nanmean count_nonzero tile
greater_equal greater_equal_ isfinite create_parameter dot increment erf erf_ bmm chunk tolist tensordot greater_than
greater_than_ shard_index argsort tanh tanh_ transpose randn strided_slice unique unique_consecutive
set_cuda_rng_state set_rng_state set_printoptions std flatten asin multiply multiply_ disable_static masked_select var
trace enable_static scatter_nd set_default_dtype disable_signal_handler expand_as stack sqrt randperm linspace logspace
reshape reshape_ reverse nonzero CUDAPinnedPlace logical_not logical_not_ add_n minimum scatter scatter_ floor cosh
log log_ log2 log2_ log10 log10_ concat check_shape trunc trunc_ frac frac_ digamma digamma_ standard_normal diagonal
broadcast_tensors einsum set_flags get_flags asinh acosh atanh as_complex as_real diff angle fmax fmin moveaxis
repeat_interleave clone kthvalue renorm renorm_ take_along_axis put_along_axis nan_to_num nan_to_num_ heaviside
tril_indices index_add index_add_ index_put index_put_ sgn triu_indices take frexp ldexp ldexp_ trapezoid
cumulative_trapezoid polar vander unflatten as_strided view view_as unfold nextafter i0 i0_ i0e i1 i1e polygamma
polygamma_
""".split()

TENSOR_METHODS = """
create_parameter create_tensor matmul dot cov corrcoef norm cond transpose cauchy_ geometric_ lstsq dist t t_ cross
cholesky bmm histogram bincount mv matrix_power qr pca_lowrank eigvals eigvalsh abs acos all any asin atan ceil ceil_
cos cosh cumsum cumsum_ cummax cummin cumprod cumprod_ logcumsumexp logit logit_ exp exp_ expm1 floor floor_ increment
logaddexp log log_ log2 log2_ log10 log10_ logsumexp multiplex pow pow_ prod reciprocal reciprocal_ round round_ rsqrt
rsqrt_ scale scale_ sign sin sinh sqrt sqrt_ square stanh sum nan_to_num nan_to_num_ nansum nanmean count_nonzero tanh
tanh_ add_n max amax maximum min amin minimum fmax fmin mm inner outer divide divide_ floor_divide floor_divide_
remainder remainder_ mod mod_ floor_mod floor_mod_ multiply multiply_ add add_ subtract subtract_ inverse log1p log1p_
erf addmm addmm_ clip clip_ trace kron kthvalue isfinite isinf isnan broadcast_shape conj neg neg_ lgamma lgamma_ equal
equal_ equal_all greater_equal greater_equal_ greater_than greater_than_ is_empty less_equal less_equal_ less_than
less_than_ logical_and logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ not_equal
not_equal_ allclose isclose is_tensor cast cast_ concat expand broadcast_to expand_as flatten flatten_ gather gather_nd
reshape reshape_ reverse scatter scatter_ scatter_nd_add scatter_nd shard_index slice split vsplit chunk tensordot
squeeze squeeze_ stack strided_slice transpose_ tan_ unique unique_consecutive unsqueeze unsqueeze_ unstack flip rot90
unbind roll tile argmax argmin argsort masked_select topk where where_ index_select nonzero sort index_sample mean std
var numel median nanmedian quantile nanquantile is_complex is_integer rank shape real imag is_floating_point digamma
digamma_ diagonal trunc trunc_ frac frac_ bitwise_and bitwise_and_ bitwise_or bitwise_or_ bitwise_xor bitwise_xor_
bitwise_not bitwise_not_ broadcast_tensors eig uniform_ multi_dot solve cholesky_solve triangular_solve asinh atanh
acosh lu lu_unpack cdist as_complex as_real rad2deg deg2rad gcd gcd_ lcm lcm_ diff mode lerp lerp_ erfinv erfinv_
angle moveaxis repeat_interleave take_along_axis put_along_axis put_along_axis_ exponential_ heaviside index_add
index_add_ index_put index_put_ take bucketize sgn frexp ldexp ldexp_ trapezoid cumulative_trapezoid polar sigmoid
sigmoid_ vander nextafter unflatten as_strided view view_as unfold i0 i0_ i0e i1 i1e polygamma polygamma_ normal_
cpu cuda to contiguous is_contiguous retain_grads element_size strides data numpy item tolist backward clear_grad
clear_gradient detach grad stop_gradient place dtype ndim size register_hook set_value value
""".split()

DISTRIBUTION = """
Distribution ExponentialFamily Normal Uniform Bernoulli Binomial Categorical Beta Dirichlet Multinomial Exponential
Gamma Laplace LogNormal Gumbel Geometric Cauchy Poisson StudentT Independent TransformedDistribution kl_divergence
register_kl Transform AbsTransform AffineTransform ChainTransform ExpTransform IndependentTransform PowerTransform
ReshapeTransform SigmoidTransform SoftmaxTransform StackTransform StickBreakingTransform TanhTransform
""".split()

VISION_OPS = """
yolo_loss yolo_box prior_box box_coder deform_conv2d DeformConv2D distribute_fpn_proposals generate_proposals
read_file decode_jpeg roi_pool RoIPool psroi_pool PSRoIPool roi_align RoIAlign nms matrix_nms
""".split()

# paddle.linalg.__all__ as Paddle lists it today (a superset of 2.6's: vector_norm, matrix_norm, matrix_exp,
# svd_lowrank and ormqr came later), paddle.fft / paddle.signal / paddle.sparse (+ nn, nn.functional) __all__
LINALG = """
cholesky norm matrix_norm vector_norm cond cov corrcoef inv eig eigvals multi_dot matrix_rank svd qr
householder_product pca_lowrank svd_lowrank lu lu_unpack matrix_exp matrix_power det slogdet eigh eigvalsh pinv solve
cholesky_solve triangular_solve lstsq fp8_fp8_fp8_dual_gemm_fused ormqr
""".split()
FFT = """
fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 hfft2 ihfft2 fftn ifftn rfftn irfftn hfftn ihfftn fftfreq
rfftfreq fftshift ifftshift
""".split()
SIGNAL = "stft istft".split()
SPARSE = """
sparse_coo_tensor sparse_csr_tensor sin tan asin atan sinh tanh asinh atanh sqrt square log1p abs pow cast neg deg2rad
rad2deg expm1 mv matmul masked_matmul addmm add subtract transpose multiply divide coalesce is_same_shape reshape isnan
""".split()
SPARSE_NN = "ReLU ReLU6 LeakyReLU Softmax BatchNorm SyncBatchNorm Conv2D Conv3D SubmConv3D MaxPool3D".split()
SPARSE_NN_FUNCTIONAL = "conv2d conv3d subm_conv3d max_pool3d relu relu6 leaky_relu softmax attention".split()

NAMESPACES = {"paddle": ("oar", PADDLE), "paddle.Tensor": ("oar.Tensor", TENSOR_METHODS),
              "paddle.distribution": ("oar.distribution", DISTRIBUTION),
              "paddle.vision.ops": ("oar.vision.ops", VISION_OPS),
              "paddle.linalg": ("oar.linalg", LINALG), "paddle.fft": ("oar.fft", FFT),
              "paddle.signal": ("oar.signal", SIGNAL), "paddle.sparse": ("oar.sparse", SPARSE),
              "paddle.sparse.nn": ("oar.sparse.nn", SPARSE_NN),
              "paddle.sparse.nn.functional": ("oar.sparse.nn.functional", SPARSE_NN_FUNCTIONAL)}

# paddle.linalg's own names that paddle and paddle.Tensor also export: built with paddle.linalg (issue 14's other part)
OWNED_ELSEWHERE = set("""
cross cholesky eigvalsh cov corrcoef cond lstsq matrix_power qr pca_lowrank eigvals eig multi_dot solve
cholesky_solve triangular_solve lu lu_unpack
""".split())

EXCLUDED = {
    "fp8_fp8_fp8_dual_gemm_fused": "GPU-only fused FP8 GEMM kernel (linalg)",
    "CUDAPinnedPlace": "CUDA-only memory: oar runs on a CPU",
    "DataParallel": "multi-process data parallelism lives in oar.distributed",
    "check_shape": "internal helper of paddle.tensor.random, documented as not public",
    "create_tensor": "fluid-era static helper (paddle.static.create_global_var replaces it)",
    "create_parameter": "Paddle lists it among Tensor methods, but it creates a new parameter: oar.create_parameter",
    "cuda": "CUDA-only: oar runs on a CPU (Tensor.cuda raises, saying so)",
    "CUDAPlace": "CUDA-only: oar runs on a CPU (CUDAPlace raises, saying so)",
}

# Exclusions of the generated namespace lists (paddle_names.json), per namespace: name -> reason (the names Paddle 3
# removed are excluded by report.py from the JSON). "GPU-only in Paddle" was checked by calling the name on
# paddlepaddle 3.3.1's CPU build (it raises there).
_GPU_ONLY = "GPU-only in Paddle (its CPU build raises): no CPU semantics to follow"
_PIR_RAISES = "Paddle 3.3.1's default (PIR) static mode raises on it"
_LOD = _PIR_RAISES + " ('sequence layer is not supported in pir mode'): it needs LoD tensors, deprecated since 3.0"
_PS = "parameter-server training only (fleet's C++ data feed / sparse-table entry configs): oar has no parameter server"
_GLOO = ("a Gloo context met through Paddle's HTTP rendezvous server: oar's CPU collectives run on MPI "
         "(init_parallel_env, barrier)")
EXCLUDED_3 = {
    "paddle.static": {"IpuCompiledProgram": "Graphcore IPU only", "IpuStrategy": "Graphcore IPU only",
                      "ipu_shard_guard": "Graphcore IPU only", "set_ipu_shard": "Graphcore IPU only",
                      "cuda_places": "CUDA-only: oar runs on a CPU", "xpu_places": "Kunlun XPU only"},
    "paddle.device": {"Event": "CUDA/custom-device streams: oar runs on a CPU", "Stream": "CUDA/custom-device "
                      "streams: oar runs on a CPU", "current_stream": "CUDA/custom-device streams: oar runs on a CPU",
                      "set_stream": "CUDA/custom-device streams: oar runs on a CPU",
                      "stream_guard": "CUDA/custom-device streams: oar runs on a CPU",
                      "IPUPlace": "Graphcore IPU only", "XPUPlace": "Kunlun XPU only"},
    "paddle.inference": {"XpuConfig": "Kunlun XPU only", "get_trt_compile_version": "TensorRT (NVIDIA GPUs) only",
                         "get_trt_runtime_version": "TensorRT (NVIDIA GPUs) only",
                         "_get_phi_kernel_name": "private helper of Paddle's C++ kernel registry",
                         "convert_to_mixed_precision": "GPU/XPU only: Paddle 3.3.1 refuses backend CPU "
                                                       "('mixed_precision currently ... not support CPU')"},
    "paddle.static.nn": {**{n: _LOD for n in ("sequence_conv", "sequence_expand", "sequence_first_step",
                                              "sequence_last_step", "sequence_pool", "sequence_softmax")},
                         "nce": _PIR_RAISES + " (its NCE sampler is a legacy-IR op)",
                         "sparse_embedding": "parameter-server only (a distributed sparse table): Paddle 3.3.1's "
                                             "static mode raises on it outside fleet's PS mode"},
    "paddle.distributed": {**{n: _PS for n in ("InMemoryDataset", "QueueDataset", "CountFilterEntry",
                                               "ProbabilityEntry", "ShowClickEntry")},
                           **{n: _GLOO for n in ("gloo_init_parallel_env", "gloo_barrier", "gloo_release")}},
    "paddle.nn.functional": {"margin_cross_entropy": _GPU_ONLY, "sparse_attention": _GPU_ONLY},
    "paddle.incubate": {"softmax_mask_fuse_upper_triangle": _GPU_ONLY,
                        "graph_khop_sampler": "Paddle 3.3.1's CPU build aborts on its own docstring example "
                                              "(malloc(): invalid size): no CPU result to follow"},
    "paddle.incubate.nn": {"FusedFeedForward": _GPU_ONLY, "FusedMultiHeadAttention": _GPU_ONLY,
                           "FusedBiasDropoutResidualLayerNorm": _GPU_ONLY, "FusedTransformerEncoderLayer": _GPU_ONLY,
                           "FusedMultiTransformer": _GPU_ONLY},
}
