"""GraphConfig: per-graph settings (OneFlow's graph.config)."""

__all__ = ["GraphConfig"]


class GraphConfig:
    """Settings of one nn.Graph: the actor runtime's slots and threads, the
    plan passes compiling runs ("default", or None / () for none; read when a
    plan is compiled, so set it before the first call), and the number of
    micro-batches a training call accumulates gradients over."""

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

    def __repr__(self):
        return (f"GraphConfig(slots={self.slots}, threads={self.threads}, passes={self.passes!r}, "
                f"gradient_accumulation_steps={self.gradient_accumulation_steps})")
