"""A time-series predictor in the manner of the time_sequence_prediction
example: sine waves (generated with numpy), two stacked LSTMCells and a
Linear head in double precision (.double()), trained with optim.LBFGS and a
closure, then asked to continue the waves `future` steps past the input.

run(torch, ...) -> dict(losses=[closure losses of each step], test=..., init=...)."""
import numpy as np


def make_waves(n, length, period=20, seed=2):
    rng = np.random.RandomState(seed)
    x = np.empty((n, length), np.int64)
    x[:] = np.array(range(length)) + rng.randint(-4 * period, 4 * period, n).reshape(n, 1)
    return np.sin(x / 1.0 / period).astype("float64")


def build(torch, hidden):
    nn = torch.nn

    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, hidden)
            self.lstm2 = nn.LSTMCell(hidden, hidden)
            self.linear = nn.Linear(hidden, 1)

        def forward(self, input, future=0):
            outputs = []
            h_t = torch.zeros(input.size(0), hidden, dtype=torch.double)
            c_t = torch.zeros(input.size(0), hidden, dtype=torch.double)
            h_t2 = torch.zeros(input.size(0), hidden, dtype=torch.double)
            c_t2 = torch.zeros(input.size(0), hidden, dtype=torch.double)
            for input_t in input.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            for i in range(future):  # if we should predict the future
                h_t, c_t = self.lstm1(output, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            return torch.cat(outputs, dim=1)

    return Sequence()


def run(torch, steps=3, seed=0, init=None, n=12, length=60, hidden=16, future=20, max_iter=8):
    np.random.seed(seed)
    torch.manual_seed(seed)
    data = make_waves(n, length)
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = build(torch, hidden)
    seq.double()
    if init is not None:
        seq.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().numpy().copy() for k, v in seq.state_dict().items()}
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8, max_iter=max_iter)
    losses = []
    for i in range(steps):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
    with torch.no_grad():
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        y = pred.detach().numpy()
    return {"losses": losses, "test": loss.item(), "prediction": y, "init": start}
