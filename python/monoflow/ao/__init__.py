"""monoflow.ao: torch.ao's quantization stubs (see monoflow.ao.quantization)."""
from monoflow.ao import quantization  # noqa: F401
