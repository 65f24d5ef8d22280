"""monoflow.distributed.fsdp: torch.distributed.fsdp's names. The wrapper is a Module and lives with
DistributedDataParallel in monoflow.nn.parallel (Note [Fully sharded data parallel] there); it is loaded on
first use, so that the collective layer does not import nn when it is imported itself."""

__all__ = ["FullyShardedDataParallel", "ShardingStrategy", "ModuleWrapPolicy", "size_based_auto_wrap_policy",
           "transformer_auto_wrap_policy"]


def __getattr__(name):
    if name in __all__:
        from monoflow.nn.parallel import fully_sharded

        return getattr(fully_sharded, name)
    raise AttributeError(f"module 'monoflow.distributed.fsdp' has no attribute {name!r}")
