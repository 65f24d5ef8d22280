"""torch.distributed.fsdp.wrap's auto-wrap policies (Note [Fully sharded data parallel], auto_wrap_policy)."""

__all__ = ["ModuleWrapPolicy", "size_based_auto_wrap_policy", "transformer_auto_wrap_policy"]


def __getattr__(name):
    if name in __all__:
        from monoflow.nn.parallel import fully_sharded

        return getattr(fully_sharded, name)
    raise AttributeError(f"module 'monoflow.distributed.fsdp.wrap' has no attribute {name!r}")
