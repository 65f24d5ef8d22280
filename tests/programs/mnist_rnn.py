"""An MNIST-style RNN classifier in the manner of the mnist_rnn example: each
28x28 image read as 28 rows by an LSTM (batch_first), the last output through
BatchNorm1d, dropout, two Linear layers and log_softmax; Adadelta with a
StepLR schedule, nll_loss, and a test pass that sums the loss and counts
argmax hits. The "digits" are synthetic: ten fixed random prototypes plus
noise (numpy: the same data for every framework).

run(torch, ...) -> dict(losses=[per batch], test_loss=..., accuracy=..., init=...)."""
import numpy as np


def make_digits(n, seed, noise=0.3):
    rng = np.random.default_rng(1000)
    protos = rng.uniform(0, 1, (10, 28, 28))
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    x = protos[labels] + noise * rng.standard_normal((n, 28, 28))
    return x.reshape(n, 1, 28, 28).astype(np.float32), labels.astype(np.int64)


def build(torch, hidden=32, dropout=True):
    nn = torch.nn
    F = torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(input_size=28, hidden_size=hidden, batch_first=True)
            self.batchnorm = nn.BatchNorm1d(hidden)
            self.dropout1 = nn.Dropout(0.25 if dropout else 0.0)
            self.dropout2 = nn.Dropout(0.5 if dropout else 0.0)
            self.fc1 = nn.Linear(hidden, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, input):
            input = input.reshape(-1, 28, 28)  # (N, 1, 28, 28) -> (N, 28, 28)
            output, hidden = self.rnn(input)
            output = output[:, -1, :]  # the last time step
            output = self.batchnorm(output)
            output = self.dropout1(output)
            output = self.fc1(output)
            output = F.relu(output)
            output = self.dropout2(output)
            output = self.fc2(output)
            return F.log_softmax(output, dim=1)

    return Net()


def run(torch, epochs=2, seed=1, init=None, shuffle=True, n_train=384, n_test=128, batch_size=32, lr=1.0, gamma=0.7,
        dropout=True, hidden=32):
    torch.manual_seed(seed)
    F = torch.nn.functional
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    xs, ys = make_digits(n_train, 21)
    xt, yt = make_digits(n_test, 22)
    data = torch.utils.data
    train_loader = data.DataLoader(data.TensorDataset(torch.from_numpy(xs), torch.from_numpy(ys)),
                                   batch_size=batch_size, shuffle=shuffle)
    test_loader = data.DataLoader(data.TensorDataset(torch.from_numpy(xt), torch.from_numpy(yt)),
                                  batch_size=batch_size)
    model = build(torch, hidden, dropout).to(device)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    optimizer = torch.optim.Adadelta(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=gamma)
    losses = []

    def train(epoch):
        model.train()
        for batch_idx, (x, target) in enumerate(train_loader):
            x, target = x.to(device), target.to(device)
            optimizer.zero_grad()
            output = model(x)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())

    def test():
        model.eval()
        test_loss = 0
        correct = 0
        with torch.no_grad():
            for x, target in test_loader:
                x, target = x.to(device), target.to(device)
                output = model(x)
                test_loss += F.nll_loss(output, target, reduction="sum").item()
                pred = output.argmax(dim=1, keepdim=True)
                correct += pred.eq(target.view_as(pred)).sum().item()
        return test_loss / len(test_loader.dataset), correct / len(test_loader.dataset)

    for epoch in range(1, epochs + 1):
        train(epoch)
        test_loss, accuracy = test()
        scheduler.step()
    return {"losses": losses, "test_loss": test_loss, "accuracy": accuracy, "init": start}
