"""OneFlow's ``oneflow.one_embedding``: of it, monoflow has the optimizer its embedding tables are
trained with, :class:`FTRL` (also right for dense parameters). The embedding tables themselves
(``MultiTableEmbedding``, persistent stores) are not provided."""
from monoflow.optim.ftrl import FTRL

__all__ = ["FTRL"]
