"""monoflow.backends: torch.backends' switches and availability questions.

The switches are plain module attributes, settable as scripts do
(``flow.backends.cudnn.benchmark = True``); monoflow's kernels come from its
device plugins, none of which uses cuDNN, MPS or oneDNN, so those report
unavailable. ``cuda.is_built()`` and ``mps.is_available()`` ask the device
registry."""
from monoflow.backends import cuda, cudnn, mkldnn, mps, openmp  # noqa: F401

__all__ = ["cuda", "cudnn", "mkldnn", "mps", "openmp"]
