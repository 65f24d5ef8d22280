"""monoflow.utils.vision: image transforms and the MNIST-style data sets
(OneFlow's ``oneflow.utils.vision``, which its quickstart imports; the same
classes as torchvision's for these names)."""
from monoflow.utils.vision import datasets, transforms

__all__ = ["datasets", "transforms"]
