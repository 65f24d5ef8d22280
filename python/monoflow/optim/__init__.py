"""monoflow.optim: optimizers and learning-rate schedulers (torch.optim's API)."""
from monoflow.optim import lr_scheduler
from monoflow.optim.adadelta import Adadelta
from monoflow.optim.adafactor import Adafactor
from monoflow.optim.adagrad import Adagrad
from monoflow.optim.adam import Adam, AdamW
from monoflow.optim.adamax import Adamax
from monoflow.optim.lamb import LAMB
from monoflow.optim.asgd import ASGD
from monoflow.optim.lbfgs import LBFGS
from monoflow.optim.muon import Muon
from monoflow.optim.nadam import NAdam
from monoflow.optim.optimizer import Optimizer
from monoflow.optim.radam import RAdam
from monoflow.optim.rmsprop import RMSprop
from monoflow.optim.rprop import Rprop
from monoflow.optim.sgd import SGD
from monoflow.optim.sparse_adam import SparseAdam
from monoflow.optim import swa_utils  # noqa: E402

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LAMB", "LBFGS", "Muon", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
