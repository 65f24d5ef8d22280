"""monoflow.distributions: parameterizable probability distributions and sampling, as torch.distributions
(Categorical for REINFORCE/actor-critic policies, Normal for VAEs and Gaussian policies, a tanh-squashed
Gaussian through TransformedDistribution, kl_divergence)."""
from monoflow.distributions import constraints, transforms  # noqa: F401
from monoflow.distributions import constraint_registry  # noqa: F401
from monoflow.distributions.constraint_registry import biject_to, transform_to
from monoflow.distributions.transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                                               CorrCholeskyTransform, CumulativeDistributionTransform,
                                               ExpTransform, IndependentTransform, LowerCholeskyTransform,
                                               PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
                                               SigmoidTransform, SoftmaxTransform, SoftplusTransform,
                                               StackTransform, StickBreakingTransform, TanhTransform, Transform,
                                               identity_transform)
from monoflow.distributions.bernoulli import Bernoulli
from monoflow.distributions.categorical import Categorical
from monoflow.distributions.dirichlet import Dirichlet
from monoflow.distributions.distribution import Distribution
from monoflow.distributions.exponential import Exponential, Laplace
from monoflow.distributions.gamma import Beta, Gamma
from monoflow.distributions.independent import Independent
from monoflow.distributions.kl import kl_divergence, register_kl
from monoflow.distributions.multivariate_normal import MultivariateNormal
from monoflow.distributions.normal import Normal
from monoflow.distributions.one_hot_categorical import OneHotCategorical
from monoflow.distributions.transformed_distribution import LogNormal, TransformedDistribution
from monoflow.distributions.uniform import Uniform
from monoflow.distributions.more import (Cauchy, Chi2, Geometric, HalfNormal, MixtureSameFamily, Poisson,  # noqa: E402
                                         StudentT)
from monoflow.distributions.binomial import Binomial, Multinomial, NegativeBinomial  # noqa: E402
from monoflow.distributions.extreme import (FisherSnedecor, Gumbel, HalfCauchy, InverseGamma,  # noqa: E402
                                            Kumaraswamy, LogisticNormal, Pareto, Weibull)
from monoflow.distributions.relaxed import (OneHotCategoricalStraightThrough, RelaxedBernoulli,  # noqa: E402
                                            RelaxedOneHotCategorical)
from monoflow.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal  # noqa: E402
from monoflow.distributions.exp_family import (ContinuousBernoulli, ExponentialFamily,  # noqa: E402
                                               GeneralizedPareto, VonMises)
from monoflow.distributions.matrix_distributions import LKJCholesky, Wishart  # noqa: E402

__all__ = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Geometric", "HalfNormal",
           "MixtureSameFamily", "Poisson", "StudentT", "Distribution", "Exponential", "Gamma", "Independent", "Laplace",
           "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical", "TransformedDistribution", "Uniform",
           "constraints", "kl_divergence", "register_kl", "transforms",
           "Binomial", "Multinomial", "NegativeBinomial", "FisherSnedecor", "Gumbel", "HalfCauchy", "InverseGamma",
           "Kumaraswamy", "LogisticNormal", "Pareto", "Weibull", "OneHotCategoricalStraightThrough",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "LowRankMultivariateNormal", "biject_to", "transform_to",
           "constraint_registry", "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform",
           "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform",
           "TanhTransform", "Transform", "identity_transform", "ContinuousBernoulli", "ExponentialFamily",
           "GeneralizedPareto", "VonMises", "LKJCholesky", "Wishart"]

from monoflow.distributions import _kl_more  # noqa: E402,F401  (registers torch's other closed-form KLs)


def _alias_modules():
    """torch.distributions' per-family module names (``from torch.distributions.beta import Beta``) for the
    families that live together in one monoflow module: each is a small module holding its classes."""
    import sys
    import types
    here = sys.modules[__name__]
    table = {"beta": ["Beta"], "binomial": ["Binomial"], "cauchy": ["Cauchy"], "chi2": ["Chi2"],
             "continuous_bernoulli": ["ContinuousBernoulli"], "fishersnedecor": ["FisherSnedecor"],
             "generalized_pareto": ["GeneralizedPareto"], "geometric": ["Geometric"], "gumbel": ["Gumbel"],
             "half_cauchy": ["HalfCauchy"], "half_normal": ["HalfNormal"], "inverse_gamma": ["InverseGamma"],
             "kumaraswamy": ["Kumaraswamy"], "laplace": ["Laplace"], "log_normal": ["LogNormal"],
             "logistic_normal": ["LogisticNormal"], "mixture_same_family": ["MixtureSameFamily"],
             "multinomial": ["Multinomial"], "negative_binomial": ["NegativeBinomial"], "pareto": ["Pareto"],
             "poisson": ["Poisson"], "relaxed_bernoulli": ["LogitRelaxedBernoulli", "RelaxedBernoulli"],
             "relaxed_categorical": ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"],
             "studentT": ["StudentT"], "von_mises": ["VonMises"], "weibull": ["Weibull"],
             "lkj_cholesky": ["LKJCholesky"], "wishart": ["Wishart"]}
    from monoflow.distributions import relaxed
    for name, classes in table.items():
        full = f"{__name__}.{name}"
        if full in sys.modules:
            continue
        mod = types.ModuleType(full, f"torch.distributions.{name}'s names: {', '.join(classes)}.")
        for c in classes:
            setattr(mod, c, getattr(here, c, None) or getattr(relaxed, c))
        mod.__all__ = list(classes)
        sys.modules[full] = mod
        setattr(here, name, mod)
    from monoflow.distributions import one_hot_categorical
    one_hot_categorical.OneHotCategoricalStraightThrough = OneHotCategoricalStraightThrough


_alias_modules()
