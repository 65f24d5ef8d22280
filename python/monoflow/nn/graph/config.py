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

    zero = None  # ZeRO settings (zero.ZeroSettings) once enable_zero was called

    def enable_zero(self, mode=True, *, stage=1, shard_min_size=1024, shard_restore_level=1):
        """ZeRO stage 1 (OneFlow's graph.config.enable_zero): the optimizer
        state of each data-parallel parameter (broadcast SBP on a placement of
        N ranks, dim 0 of at least N rows, at least `shard_min_size` elements
        per shard) is split S(0) across the ranks, each rank updates its rows
        of the parameter and an all-gather puts the parameter back together
        (Note [ZeRO stage 1 in a graph] in zero.py). Stages 2 and 3 are
        refused (OneFlow's default is 2: pass stage=1). `shard_restore_level`
        1 or 2: the parameter is gathered whole after every update. Part of
        the plan cache key; mode=False turns it off."""
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

    def __repr__(self):
        return (f"GraphConfig(slots={self.slots}, threads={self.threads}, passes={self.passes!r}, "
                f"gradient_accumulation_steps={self.gradient_accumulation_steps}" +
                (f", zero={self.zero!r}" if self.zero is not None else "") +
                (f", amp={self.amp!r}" if self.amp is not None else "") + ")")
