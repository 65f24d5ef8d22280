"""monoflow.nn.utils: gradient clipping, parameter/vector conversion, packed
sequences (rnn), pruning (prune), weight and spectral normalisation, and
BatchNorm folding (fusion), functional_call (stateless), parametrize and
parametrizations (weight_norm/spectral_norm as parametrizations)."""
from monoflow.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                                         clip_grads_with_norm_, get_total_norm)
from monoflow.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from monoflow.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                                      fuse_linear_bn_weights)
from monoflow.nn.utils.init import skip_init  # noqa: F401
from monoflow.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from monoflow.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from monoflow.nn.utils import fusion, prune, rnn, stateless  # noqa: F401,E402
from monoflow.nn.utils import parametrize, parametrizations  # noqa: F401,E402
from monoflow.nn.utils import parameters_grouping  # noqa: F401,E402  (OneFlow's ContiguousParamsGroup)
