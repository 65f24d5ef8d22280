"""GraphConfig: per-graph settings (OneFlow's graph.config)."""

__all__ = ["GraphConfig"]


class GraphConfig:
    """Settings of one nn.Graph: the actor runtime's slots and threads, and
    the plan passes compiling runs ("default", or None / () for none; read
    when a plan is compiled, so set it before the first call)."""

    def __init__(self):
        self.slots = 1
        self.threads = 1
        self.passes = "default"

    def set_gradient_accumulation_steps(self, steps):
        # Not built yet: refuse instead of silently running one step per call.
        if steps != 1:
            raise NotImplementedError("nn.Graph: config.set_gradient_accumulation_steps(n) with n > 1 is not "
                                      "supported yet")

    def __repr__(self):
        return f"GraphConfig(slots={self.slots}, threads={self.threads}, passes={self.passes!r})"
