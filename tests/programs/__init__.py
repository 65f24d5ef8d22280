"""Small training programs written the way well-known public PyTorch scripts
are written (issue 13). Each takes the framework module as a parameter, so
tests/test_user_programs.py runs the same source on PyTorch and on monoflow
(`import monoflow as torch`) with the same data and seeds."""


def same_start(torch, start, name, model):
    """Every framework's `model` starts from the same weights: the first run
    records its initial state_dict in `start` under `name`, the others load it."""
    if name in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start[name].items()})
    else:
        start[name] = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    return model
