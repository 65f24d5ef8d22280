"""torch.backends.cudnn: settable switches; no monoflow plugin uses cuDNN."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
