"""monoflow.nn.utils: gradient clipping, parameter/vector conversion, packed
sequences (rnn) and pruning (prune)."""
from monoflow.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: F401
from monoflow.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from monoflow.nn.utils import prune, rnn  # noqa: F401,E402
