"""GraphConfig: per-graph settings (OneFlow's graph.config)."""

from monoflow._dtypes import bfloat16, float16

__all__ = ["GraphConfig"]


class GraphConfig:
    """The settings of one :class:`~monoflow.nn.Graph` (OneFlow's ``graph.config``), read when a plan is
    compiled: set them in the graph's ``__init__`` or before its first call.

    Attributes: ``slots`` and ``threads`` of the actor runtime, ``passes`` (the plan passes compiling
    runs: ``"default"``, or ``None`` / ``()`` for none) and ``gradient_accumulation_steps``. Methods:
    :meth:`set_gradient_accumulation_steps`, :meth:`enable_amp` (mixed precision), :meth:`enable_zero`
    (ZeRO stage 1 for global data-parallel parameters) and :meth:`enable_whole_graph_sbp`.

    Example::

        >>> class G(nn.Graph):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Linear(2, 2)
        ...         self.config.set_gradient_accumulation_steps(4)
        ...     def build(self, x):
        ...         return self.fc(x)
        >>> G().config
        GraphConfig(slots=1, threads=1, passes='default', gradient_accumulation_steps=4)
    """

    def __init__(self):
        self.slots = 1
        self.threads = 1
        self.passes = "default"
        self.gradient_accumulation_steps = 1

    def set_gradient_accumulation_steps(self, steps):
        """Each call of a training graph splits its tensor arguments into
        `steps` micro-batches along dim 0, runs build on each, and makes one
        optimizer step with the mean of their gradients; tensor outputs come
        back concatenated along dim 0 (a 0-d loss: one value per micro-batch).
        Note [Gradient accumulation semantics] in accumulation.py. Part of the
        plan cache key: changing it compiles another plan. Eval graphs ignore it."""
        if isinstance(steps, bool) or not isinstance(steps, int):
            raise TypeError(f"nn.Graph: config.set_gradient_accumulation_steps expects an int, got "
                            f"{type(steps).__name__}")
        if steps < 1:
            raise ValueError(f"nn.Graph: config.set_gradient_accumulation_steps expects at least 1 step, got {steps}")
        self.gradient_accumulation_steps = steps

    _training = False  # set by Graph.add_optimizer

    @property
    def training(self):
        """Whether the graph is a training graph: True once ``add_optimizer`` was called (OneFlow's
        ``graph.config.training``, which a shared ``build`` reads to call ``backward`` only when
        training). Read-only.

        Example::

            >>> class G(nn.Graph):
            ...     def __init__(self, opt=None):
            ...         super().__init__()
            ...         self.fc = nn.Linear(2, 1)
            ...         if opt is not None:
            ...             self.add_optimizer(opt(self.fc.parameters(), lr=0.1))
            ...     def build(self, x):
            ...         y = self.fc(x).sum()
            ...         if self.config.training:
            ...             y.backward()
            ...         return y
            >>> G().config.training, G(flow.optim.SGD).config.training
            (False, True)
        """
        return self._training

    pipeline_schedule = "1F1B"  # the order of micro-batches through pipeline stages

    def set_pipeline_schedule(self, schedule="1F1B"):
        """How the micro-batches of :meth:`set_gradient_accumulation_steps`
        go through pipeline stages (``set_stage``): ``"1F1B"`` (the default)
        starts micro-batch k's backward once micro-batch k + S - 1's forward
        is done (S stages), so a stage holds the activations of at most S
        micro-batches; ``"GPipe"`` runs every forward, then every backward,
        and holds all of them. Both give the same results, bit for bit
        (Note [Pipeline schedules] in pipeline.py). Part of the plan cache key."""
        if not isinstance(schedule, str) or schedule.upper() not in ("1F1B", "GPIPE"):
            raise ValueError(f"nn.Graph: config.set_pipeline_schedule expects '1F1B' or 'GPipe', got {schedule!r}")
        self.pipeline_schedule = "1F1B" if schedule.upper() == "1F1B" else "GPipe"

    zero = None  # ZeRO settings (zero.ZeroSettings) once enable_zero was called

    def enable_zero(self, mode=True, *, stage=2, shard_min_size=1024, shard_restore_level=1):
        """ZeRO (OneFlow's graph.config.enable_zero) for data-parallel
        parameters (broadcast SBP on a placement of N ranks, dim 0 of at least
        N rows, at least `shard_min_size` elements per shard).
        ``stage=1``: the optimizer state is split S(0) across the ranks, each
        rank updates its rows of the parameter and an all-gather puts the
        parameter back together (Note [ZeRO stage 1 in a graph] in zero.py).
        ``stage=2`` (OneFlow's default) runs stage 1's plan: the same updates,
        state and memory at rest (a graph's gradients never outlive its step).
        ``stage=3``: the parameters too are split S(0), gathered by the ops
        that use them and their gradients reduce-scattered (Note [ZeRO stage 3
        in a graph]). `shard_restore_level` (0, 1 or 2): 0 leaves the sharded
        parameters split at rest in every stage (stage 3's layout, as OneFlow's
        "no restore"); 1 and 2 gather them whole after each update in stages 1
        and 2. Part of the plan cache key; mode=False turns it off."""
        from monoflow.nn.graph.zero import ZeroSettings

        settings = ZeroSettings(mode, stage, shard_min_size, shard_restore_level)
        self.zero = settings if mode else None

    amp = None  # the autocast dtype once enable_amp was called

    def enable_amp(self, mode=True, *, dtype=float16):
        """Runs build under :class:`~monoflow.autocast` (OneFlow's graph.config.enable_amp):
        matmuls, linear layers, convolutions and attention in ``dtype`` (OneFlow's default, float16, or
        bfloat16), losses in float32 (Note [Autocast policy] in monoflow/_autocast.py). Part of the
        plan cache key; mode=False turns it off."""
        if not isinstance(mode, bool):
            raise TypeError(f"nn.Graph: config.enable_amp expects a bool, got {type(mode).__name__}")
        if dtype not in (float16, bfloat16):
            raise ValueError(f"nn.Graph: config.enable_amp expects dtype float16 or bfloat16, got {dtype}")
        self.amp = dtype if mode else None

    # whole-graph SBP (Note [Whole-graph SBP deduction] in _global/whole_graph.py)
    whole_graph_sbp = True

    def enable_whole_graph_sbp(self, mode=True):
        """Global graphs: choose the ops' SBP signatures to minimise the bytes
        boxing moves over the whole step (default on). The first trace runs
        dispatch's op-by-op choice and logs it; when the whole-graph solution
        moves fewer bytes, the next call re-traces with it. Part of the plan
        cache key. Results never depend on it, only the bytes moved do."""
        if not isinstance(mode, bool):
            raise TypeError(f"nn.Graph: config.enable_whole_graph_sbp expects a bool, got {type(mode).__name__}")
        self.whole_graph_sbp = mode

    # OneFlow's performance switches: monoflow's plan passes (fusion, memory planning,
    # scheduling) decide these themselves, so a program's settings are checked, kept
    # (``config.hints``) and do not change results
    _STRAIGHTEN_MODES = ("Disable", "SpeedFirst", "MemoryFirst", "OverlapCpuGpu", "DelayShortGpu")
    _AUTO_MEMORY_MODES = ("Disable", "SlightMemoryDown", "ModerateMemoryDown", "HeavyMemoryDown",
                          "AdaptiveMemory")

    @property
    def hints(self):
        """The performance switches set through OneFlow's methods below, by name."""
        if "_hints" not in self.__dict__:
            self._hints = {}
        return self._hints

    def _hint(self, name, mode, kind=bool):
        if kind is bool and not isinstance(mode, bool):
            raise TypeError(f"nn.Graph: config.{name} expects a bool, got {type(mode).__name__}")
        self.hints[name] = mode

    def allow_fuse_model_update_ops(self, mode=True):
        """OneFlow's switch to fuse cast, scale, regularisation and the model update into one op
        (a hint: the optimizer step of a monoflow plan is already one node per parameter)."""
        self._hint("allow_fuse_model_update_ops", mode)

    def allow_fuse_add_to_output(self, mode=True):
        """OneFlow's switch to fuse an element-wise add into its producer (a hint: the
        ``fuse_epilogue`` pass does so by default)."""
        self._hint("allow_fuse_add_to_output", mode)

    def allow_fuse_cast_scale(self, mode=True):
        """OneFlow's switch to fuse a cast with a scale (a hint)."""
        self._hint("allow_fuse_cast_scale", mode)

    def enable_cudnn_conv_heuristic_search_algo(self, mode=True):
        """OneFlow's cuDNN convolution algorithm search switch (a hint)."""
        self._hint("enable_cudnn_conv_heuristic_search_algo", mode)

    def enable_compress_memory(self, mode=True):
        """OneFlow's search for the smallest memory allocation (a hint: the ``memory`` pass plans
        every plan's transient buffers)."""
        self._hint("enable_compress_memory", mode)

    def enable_choose_best_memory_allocation(self, mode=True):
        """OneFlow's choice among memory allocation algorithms (a hint)."""
        self._hint("enable_choose_best_memory_allocation", mode)

    def enable_multi_tensor_update(self, mode=True):
        """OneFlow's multi-tensor optimizer update (a hint)."""
        self._hint("enable_multi_tensor_update", mode)

    def enable_fused_model_update_cast(self, mode=True):
        """OneFlow's fused update-and-cast of half-precision model copies (a hint)."""
        self._hint("enable_fused_model_update_cast", mode)

    def enable_auto_parallel(self, mode=True):
        """OneFlow's automatic parallelism (a hint: global graphs choose their SBP signatures
        over the whole step by default, see :meth:`enable_whole_graph_sbp`)."""
        self._hint("enable_auto_parallel", mode)

    def enable_auto_parallel_ignore_user_sbp_config(self, mode=True):
        """OneFlow's auto-parallel switch to ignore the user's SBP (a hint)."""
        self._hint("enable_auto_parallel_ignore_user_sbp_config", mode)

    def enable_auto_parallel_trunk_algo(self, mode=True):
        """OneFlow's auto-parallel trunk algorithm (a hint)."""
        self._hint("enable_auto_parallel_trunk_algo", mode)

    def enable_auto_parallel_sbp_collector(self, mode=True):
        """OneFlow's auto-parallel SBP collector (a hint)."""
        self._hint("enable_auto_parallel_sbp_collector", mode)

    def set_auto_parallel_computation_cost_ratio(self, ratio):
        """OneFlow's auto-parallel weight of computation against communication (a hint)."""
        self._hint("set_auto_parallel_computation_cost_ratio", float(ratio), float)

    def set_auto_parallel_wait_time(self, cost):
        """OneFlow's auto-parallel cost of waiting for a transfer (a hint)."""
        self._hint("set_auto_parallel_wait_time", float(cost), float)

    def enable_auto_memory(self, mode="AdaptiveMemory"):
        """OneFlow's auto-parallel memory strategy: one of ``"Disable"``, ``"SlightMemoryDown"``,
        ``"ModerateMemoryDown"``, ``"HeavyMemoryDown"``, ``"AdaptiveMemory"`` (a hint)."""
        if mode not in self._AUTO_MEMORY_MODES:
            raise ValueError(f"nn.Graph: config.enable_auto_memory expects one of {self._AUTO_MEMORY_MODES}, "
                             f"got {mode!r}")
        self._hint("enable_auto_memory", mode, str)

    def enable_straighten_algorithm(self, mode="MemoryFirst"):
        """OneFlow's ordering of the task graph: one of ``"Disable"``, ``"SpeedFirst"``,
        ``"MemoryFirst"``, ``"OverlapCpuGpu"``, ``"DelayShortGpu"`` (a hint: the actor runtime
        fires nodes as their inputs arrive)."""
        if mode not in self._STRAIGHTEN_MODES:
            raise ValueError(f"nn.Graph: config.enable_straighten_algorithm expects one of "
                             f"{self._STRAIGHTEN_MODES}, got {mode!r}")
        self._hint("enable_straighten_algorithm", mode, str)

    def set_outputs_buffer_size(self, value=2):
        """OneFlow's number of output buffers that let successive calls overlap (a hint: a
        monoflow plan's outputs are fresh tensors on every call)."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"nn.Graph: config.set_outputs_buffer_size expects a positive int, got {value!r}")
        self._hint("set_outputs_buffer_size", value, int)

    def set_zero_redundancy_optimizer_mode(self, mode="distributed_split"):
        """OneFlow's former ZeRO switch: ``"distributed_split"`` is :meth:`enable_zero` (stage 1),
        ``"non_distributed"`` a hint."""
        if mode not in ("distributed_split", "non_distributed"):
            raise ValueError(f"nn.Graph: config.set_zero_redundancy_optimizer_mode expects 'distributed_split' or "
                             f"'non_distributed', got {mode!r}")
        if mode == "distributed_split":
            self.enable_zero(True, stage=1)
        else:
            self._hint("set_zero_redundancy_optimizer_mode", mode, str)

    def __repr__(self):
        return (f"GraphConfig(slots={self.slots}, threads={self.threads}, passes={self.passes!r}, "
                f"gradient_accumulation_steps={self.gradient_accumulation_steps}" +
                (f", pipeline_schedule={self.pipeline_schedule!r}" if self.pipeline_schedule != "1F1B" else "") +
                (f", zero={self.zero!r}" if self.zero is not None else "") +
                (f", amp={self.amp!r}" if self.amp is not None else "") + ")")
