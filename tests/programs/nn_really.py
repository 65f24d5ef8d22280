"""The "What is torch.nn really?" walk-through on synthetic MNIST-shaped data
(numpy, the same for every framework): a logistic regression from raw tensors
(weights.requires_grad_(), a hand-written log_softmax and nll with
input[range(n), target]), then F.cross_entropy, an nn.Module with
nn.Parameter, nn.Linear + optim.SGD, TensorDataset/DataLoader with a validation
pass, a CNN of Conv2d + F.avg_pool2d, and the nn.Sequential CNN with a Lambda
module, AdaptiveAvgPool2d and a WrappedDataLoader.

run(torch, init=None, shuffle=True) -> dict(stages={name: [losses]}, init=...)."""
import math

import numpy as np


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n)
    # class-dependent stripes plus noise, so every model can learn something
    x = rng.random((n, 28, 28), dtype=np.float32) * 0.5
    for i, c in enumerate(y):
        x[i, 2 * c:2 * c + 3, :] += 0.5
    return x.reshape(n, 784).astype(np.float32), y


def run(torch, init=None, shuffle=True, seed=0, epochs=2):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader
    torch.manual_seed(seed)
    xt, yt = make_data(384, 1)
    xv, yv = make_data(128, 2)
    x_train, y_train, x_valid, y_valid = map(torch.tensor, (xt, yt, xv, yv))
    n, c = x_train.shape
    start = {} if init is None else init
    stages = {}

    def same_start(name, model):
        if name in start:
            model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start[name].items()})
        else:
            start[name] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        return model

    # from scratch
    if "weights" not in start:
        start["weights"] = (torch.randn(784, 10) / math.sqrt(784)).numpy()
    weights = torch.tensor(start["weights"])
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()

    loss_func, bs, lr = nll, 64, 0.5
    losses = []
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            xb, yb = x_train[start_i:start_i + bs], y_train[start_i:start_i + bs]
            loss = loss_func(model(xb), yb)
            losses.append(loss.item())
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    stages["scratch"] = losses + [accuracy(model(x_valid), y_valid).item()]
    assert abs(F.cross_entropy(xb @ weights + bias, yb).item() - loss_func(model(xb), yb).item()) < 1e-4
    loss_func = F.cross_entropy

    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
            self.bias = nn.Parameter(torch.zeros(10))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    model = same_start("logistic", Mnist_Logistic())
    losses = []
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb, yb = x_train[i * bs:i * bs + bs], y_train[i * bs:i * bs + bs]
            loss = loss_func(model(xb), yb)
            losses.append(loss.item())
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()
    stages["module"] = losses

    class Mnist_Linear(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(784, 10)

        def forward(self, xb):
            return self.lin(xb)

    model = same_start("linear", Mnist_Linear())
    opt = optim.SGD(model.parameters(), lr=lr)
    train_ds, valid_ds = TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid)
    train_dl = DataLoader(train_ds, batch_size=bs, shuffle=shuffle)
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
    losses = []
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with torch.no_grad():
            valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
        losses.append(float(valid_loss / len(valid_dl)))
    stages["linear_valid"] = losses

    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
        out = []
        for epoch in range(epochs):
            model.train()
            for xb, yb in train_dl:
                out.append(loss_batch(model, loss_func, xb, yb, opt)[0])
            model.eval()
            with torch.no_grad():
                losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
            out.append(np.sum(np.multiply(losses, nums)) / np.sum(nums))
        return out

    class Mnist_CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
            self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
            self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

        def forward(self, xb):
            xb = xb.view(-1, 1, 28, 28)
            xb = F.relu(self.conv1(xb))
            xb = F.relu(self.conv2(xb))
            xb = F.relu(self.conv3(xb))
            xb = F.avg_pool2d(xb, 4)
            return xb.view(-1, xb.size(1))

    lr = 0.1
    model = same_start("cnn", Mnist_CNN())
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    stages["cnn"] = fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x, y):
        return x.view(-1, 1, 28, 28), y

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl, self.func = dl, func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield self.func(*b)

    train_dl = WrappedDataLoader(DataLoader(train_ds, batch_size=bs, shuffle=shuffle), preprocess)
    valid_dl = WrappedDataLoader(DataLoader(valid_ds, batch_size=bs * 2), preprocess)
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), Lambda(lambda x: x.view(x.size(0), -1)))
    same_start("sequential", model)
    dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    model.to(dev)
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    stages["sequential"] = fit(epochs, model, loss_func, opt, train_dl, valid_dl)
    return {"stages": stages, "init": start}
