"""`Strategy`: Paddle's auto-parallel configuration for `to_static` (sub-configs ``sharding``, ``fused_passes``,
``gradient_merge``, ``pipeline``, ``amp``, with paddlepaddle 3.3.1's defaults). Unlike Paddle, a key it does not
know raises (Paddle drops it silently); `to_static` refuses the options oar cannot honour."""
import copy

_DEFAULTS = {
    "sharding": {"enable": False, "stage": 1, "degree": 8, "enable_overlap": False, "param_comm_stream_num": 1,
                 "grad_comm_stream_num": 1, "param_bucket_size_numel": 1, "grad_bucket_size_numel": 1,
                 "enable_hierarchical_comm": False, "partition_algor": "greedy_even", "enable_tuning": False,
                 "tuning_range": [], "release_gradients": False, "comm_buffer_size_MB": 256,
                 "enable_tensor_fusion": False, "save_unbalanced_param": True},
    "fused_passes": {"enable": False, "gemm_epilogue": False, "dropout_add": False},
    "gradient_merge": {"enable": False, "k_steps": 1, "avg": True},
    "pipeline": {"enable": False, "schedule_mode": "1F1B", "pp_degree": 1, "vpp_degree": 1, "vpp_seg_method": "",
                 "micro_batch_size": 1, "accumulate_steps": 1, "generation_batch_size": 1,
                 "enable_send_recv_overlap": False, "job_schedule_profiler_start": -1,
                 "job_schedule_profiler_stop": -1, "program_runtimes": [61, 72, 71, 34, 3],
                 "memory_limit_times": -1, "split_backward": False, "auto_parallel_sync_shared_params": False},
    "amp": {"enable": False, "dtype": "float16", "level": "o1", "init_loss_scaling": 32768.0,
            "incr_every_n_steps": 1000, "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.8,
            "use_dynamic_loss_scaling": True, "custom_white_list": [], "custom_black_list": [],
            "custom_black_varnames": [], "use_fp16_guard": False, "use_bf16_guard": False,
            "use_master_grad": False, "use_promote": True},
}


class _Config:
    """One sub-config: its fields as attributes (Paddle's defaults, overridden by the given dict)."""

    def __init__(self, category, config=None):
        object.__setattr__(self, "_category", category)
        for k, v in copy.deepcopy(_DEFAULTS[category]).items():
            object.__setattr__(self, k, v)
        for k, v in (config or {}).items():
            setattr(self, k, v)

    def __setattr__(self, key, value):
        if key not in _DEFAULTS[self._category]:
            raise AttributeError(f"Strategy.{self._category} has no option {key!r} "
                                 f"(options: {sorted(_DEFAULTS[self._category])})")
        object.__setattr__(self, key, value)

    def to_dict(self):
        return {k: getattr(self, k) for k in _DEFAULTS[self._category]}

    def __repr__(self):
        return f"{self._category}: {self.to_dict()}"


class Strategy:
    """The parallelization and optimization settings of `to_static`.

    Args:
        config: None (the defaults) or a dict of sub-config dicts, e.g. ``{"sharding": {"enable": True}}``.

    Example:
        >>> s = oar.distributed.Strategy({"gradient_merge": {"k_steps": 4}})
        >>> s.gradient_merge.k_steps, s.gradient_merge.avg, s.sharding.degree, s.pipeline.schedule_mode
        (4, True, 8, '1F1B')
    """

    def __init__(self, config=None):
        if config is not None and not isinstance(config, dict):
            raise ValueError(f"Strategy: expected a dictionary, got {config!r}")
        config = dict(config or {})
        unknown = sorted(set(config) - set(_DEFAULTS))
        if unknown:
            raise ValueError(f"Strategy: unknown config keys {unknown} (known: {sorted(_DEFAULTS)})")
        for category in _DEFAULTS:
            sub = config.get(category)
            if sub is not None and not isinstance(sub, dict):
                raise ValueError(f"Strategy: {category} must be a dict, got {sub!r}")
            object.__setattr__(self, category, _Config(category, sub))

    def __setattr__(self, key, value):
        raise AttributeError(f"Strategy: set the options of a sub-config (e.g. strategy.sharding.enable), "
                             f"not {key!r}")

    def to_dict(self):
        return {c: getattr(self, c).to_dict() for c in _DEFAULTS}

    def __repr__(self):
        return "Strategy(" + ", ".join(repr(getattr(self, c)) for c in _DEFAULTS) + ")"
