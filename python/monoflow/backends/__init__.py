"""monoflow.backends: torch.backends' switches and availability questions.

The switches are plain module attributes, settable as scripts do
(``flow.backends.cudnn.benchmark = True``); monoflow's kernels come from its
device plugins, none of which uses cuDNN, MPS, oneDNN, MKL or NNPACK, so those report
unavailable. ``cuda.is_built()`` and ``mps.is_available()`` ask the device
registry."""
from monoflow.backends import cpu, cuda, cudnn, mkl, mkldnn, mps, nnpack, openmp, opt_einsum  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "nnpack", "openmp", "opt_einsum"]
