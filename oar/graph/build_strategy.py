"""`BuildStrategy`: switches that choose the program passes applied to a Program before it runs (Paddle 2.x
`paddle.static.BuildStrategy` names). `oar.jit.to_static(..., build_strategy=bs)` applies them to converted
programs; `oar.passes.passes_for_build_strategy(bs, training)` says which passes a strategy selects.

Switches that matter to oar (the rest are accepted for compatibility and change nothing on one CPU device):
    fuse_elewise_add_act_ops: elementwise add + activation -> one `fused_elemwise_add_act` op (train and eval).
    fuse_bn_act_ops / fuse_bn_add_act_ops: conv + batch_norm folding (eval programs only: it changes gradients).
    fuse_all_optimizer_ops: per-parameter optimizer updates -> one multi-tensor update (training programs).
    enable_inplace / memory_optimize / enable_addto: buffer reuse, done by the executor already.
    build_cse_pass, constant_folding, enable_dce: the generic clean-up passes.

Example:
    >>> bs = oar.static.BuildStrategy()
    >>> bs.fuse_elewise_add_act_ops = True
    >>> net = oar.jit.to_static(oar.nn.Linear(3, 2), build_strategy=bs)
    >>> net(oar.ones([4, 3])).shape
    [4, 2]
"""
import enum


class _ReduceStrategy(enum.IntEnum):
    AllReduce = 0
    Reduce = 1
    _NoReduce = 2


class _GradientScaleStrategy(enum.IntEnum):
    CoeffNumDevice = 0
    One = 1
    Customized = 2


_DEFAULTS = {
    # fusion / optimization switches (Paddle names and defaults)
    "fuse_elewise_add_act_ops": False,
    "fuse_bn_act_ops": False,
    "fuse_bn_add_act_ops": True,
    "fuse_relu_depthwise_conv": False,
    "fuse_broadcast_ops": False,
    "fuse_all_optimizer_ops": False,
    "fuse_all_reduce_ops": False,
    "fuse_gemm_epilogue": False,
    "fuse_adamw": False,
    "fuse_dot_product_attention": False,
    "fuse_resunit": False,
    "fused_attention": False,
    "fused_feedforward": False,
    "enable_auto_fusion": False,
    "enable_addto": False,
    "enable_inplace": False,
    "memory_optimize": None,
    "build_cinn_pass": False,
    "build_cse_pass": False,
    "sequential_run": False,
    # execution / distribution settings (accepted; one CPU device has nothing to distribute)
    "reduce_strategy": _ReduceStrategy.AllReduce,
    "gradient_scale_strategy": _GradientScaleStrategy.CoeffNumDevice,
    "debug_graphviz_path": "",
    "enable_sequential_execution": False,
    "enable_backward_optimizer_op_deps": True,
    "remove_unnecessary_lock": True,
    "cache_runtime_context": False,
    "fix_op_run_order": False,
    "allow_cuda_graph_capture": False,
    "sync_batch_norm": False,
    "num_trainers": 1,
    "trainer_id": 0,
    "trainers_endpoints": [],
    "nccl_comm_num": 1,
    "bkcl_comm_num": 1,
    "use_hierarchical_allreduce": False,
    "hierarchical_allreduce_inter_nranks": 0,
    "mkldnn_enabled_op_types": set(),
    "async_mode": False,
    "is_distribution": False,
    "enable_parallel_graph": False,
    "use_bkcl_hierarchical_allreduce": False,
    "hierarchical_allreduce_exter_nranks": 0,
    # oar's own clean-up switches
    "constant_folding": True,
    "enable_dce": True,
}


class BuildStrategy:
    """Graph-optimization switches (Paddle 2.x `BuildStrategy` attributes); unknown names raise AttributeError.

    Example:
        >>> bs = oar.static.BuildStrategy()
        >>> bs.enable_addto = True
        >>> bs.fuse_elewise_add_act_ops = True
    """

    ReduceStrategy = _ReduceStrategy
    GradientScaleStrategy = _GradientScaleStrategy

    def __init__(self):
        d = object.__getattribute__(self, "__dict__")
        for k, v in _DEFAULTS.items():
            d[k] = type(v)(v) if isinstance(v, (list, set)) else v

    def __setattr__(self, name, value):
        if name not in _DEFAULTS:
            raise AttributeError(f"BuildStrategy has no attribute {name!r}; known attributes: "
                                 f"{', '.join(sorted(_DEFAULTS))}")
        object.__setattr__(self, name, value)

    def __getattr__(self, name):  # only reached for names not set in __init__
        raise AttributeError(f"BuildStrategy has no attribute {name!r}")

    def __repr__(self):
        on = [k for k, v in self.__dict__.items() if v is not _DEFAULTS[k] and v != _DEFAULTS[k]]
        return f"BuildStrategy({', '.join(f'{k}={self.__dict__[k]!r}' for k in on)})"

    def _key(self):
        """A hashable summary of the switches that select passes (cache key part)."""
        return tuple(sorted((k, v) for k, v in self.__dict__.items() if isinstance(v, (bool, type(None)))))
