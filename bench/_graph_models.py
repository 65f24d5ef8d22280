"""Models and training-step pieces shared by the bench_graph*.py scripts (run
as scripts, so this directory is on sys.path): the nn.Graph training step,
the LeNet-style CNN, a seeded (model, SGD, batch) setup and the synchronised
eager step the graph is compared with."""
import monoflow as flow
from monoflow import nn


class TrainGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def lenet():
    """conv 1->6 5x5, pool, conv 6->16 5x5, pool, 120, 84, 10 on 28x28 inputs
    (bench_training.py's model)."""
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def setup(make, x_shape, batch, momentum=0.9):
    """(model, SGD optimizer, random inputs, labels in [0, 10)), seeded."""
    flow.manual_seed(0)
    model = make()
    opt = flow.optim.SGD(model.parameters(), lr=0.01, momentum=momentum)
    return model, opt, flow.randn(batch, *x_shape), flow.randint(0, 10, (batch,))


def eager_step(model, opt, x, y):
    """One eager training step (forward, cross-entropy, backward, SGD step,
    zero_grad), synchronised, as a function of no arguments."""
    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        flow.synchronize()
    return step
