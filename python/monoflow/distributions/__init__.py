"""monoflow.distributions: parameterizable probability distributions and sampling, as torch.distributions
(Categorical for REINFORCE/actor-critic policies, Normal for VAEs and Gaussian policies, kl_divergence)."""
from monoflow.distributions import constraints  # noqa: F401
from monoflow.distributions.bernoulli import Bernoulli
from monoflow.distributions.categorical import Categorical
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.independent import Independent
from monoflow.distributions.kl import kl_divergence, register_kl
from monoflow.distributions.multivariate_normal import MultivariateNormal
from monoflow.distributions.normal import Normal
from monoflow.distributions.one_hot_categorical import OneHotCategorical
from monoflow.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "MultivariateNormal", "Normal",
           "OneHotCategorical", "Uniform", "constraints", "kl_divergence", "register_kl"]
