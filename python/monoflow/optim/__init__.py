"""monoflow.optim: optimizers and learning-rate schedulers (torch.optim's API)."""
from monoflow.optim import lr_scheduler
from monoflow.optim.adagrad import Adagrad
from monoflow.optim.adam import Adam, AdamW
from monoflow.optim.optimizer import Optimizer
from monoflow.optim.rmsprop import RMSprop
from monoflow.optim.sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
