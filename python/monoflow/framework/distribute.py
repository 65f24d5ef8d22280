"""``oneflow.framework.distribute``: this process's place in the job (the same
answers as ``monoflow.env``)."""
from monoflow.env import get_local_rank, get_rank, get_world_size, is_multi_client

__all__ = ["get_local_rank", "get_rank", "get_world_size", "is_multi_client"]
