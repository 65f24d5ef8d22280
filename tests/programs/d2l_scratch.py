"""Source: d2l.ai (d2l-ai/d2l-en, PyTorch edition). Its chapters in small ("Dive into Deep Learning", PyTorch edition), written from scratch the way
the book does: linear regression (synthetic_data, a shuffled data_iter, normal/zeros parameters, a
hand-written sgd under no_grad), softmax regression (hand-written softmax and cross-entropy through
y_hat[range(n), y], accuracy by type(y.dtype) == y), an MLP with nn.Parameter(randn * 0.01),
batch normalization from scratch (torch.is_grad_enabled, moving statistics, a BatchNorm module),
LeNet with Sigmoid/AvgPool2d and LazyLinear, an RNN from scratch (one_hot of X.T, tanh, grad_clipping
by the global norm), and masked softmax / additive attention (sequence_mask through arange[None, :] <
valid_len[:, None], X[~mask] = value, repeat_interleave).

run(torch, init=None) -> dict(losses={stage: [...]}, init=...)."""
import math
import random

import numpy as np

from . import same_start


def _param(torch, start, key, make):
    if key in start:
        return torch.tensor(start[key], requires_grad=True)
    p = make()
    start[key] = p.detach().numpy().copy()
    return p


def linreg(torch, start, losses):
    def synthetic_data(w, b, num_examples):
        X = torch.normal(0, 1, (num_examples, len(w)))
        y = torch.matmul(X, w) + b
        y += torch.normal(0, 0.01, y.shape)
        return X, y.reshape((-1, 1))

    true_w = torch.tensor([2, -3.4])
    true_b = 4.2
    if "lin_X" not in start:
        X, y = synthetic_data(true_w, true_b, 200)
        start["lin_X"], start["lin_y"] = X.numpy(), y.numpy()
    features, labels = torch.from_numpy(start["lin_X"]), torch.from_numpy(start["lin_y"])

    def data_iter(batch_size, features, labels):
        num_examples = len(features)
        indices = list(range(num_examples))
        random.Random(0).shuffle(indices)
        for i in range(0, num_examples, batch_size):
            batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
            yield features[batch_indices], labels[batch_indices]

    w = _param(torch, start, "lin_w", lambda: torch.normal(0, 0.01, size=(2, 1), requires_grad=True))
    b = torch.zeros(1, requires_grad=True)

    def linreg(X, w, b):
        return torch.matmul(X, w) + b

    def squared_loss(y_hat, y):
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2

    def sgd(params, lr, batch_size):
        with torch.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    lr, num_epochs, batch_size = 0.03, 3, 10
    for epoch in range(num_epochs):
        for X, y in data_iter(batch_size, features, labels):
            l = squared_loss(linreg(X, w, b), y)
            l.sum().backward()
            sgd([w, b], lr, batch_size)
        with torch.no_grad():
            train_l = squared_loss(linreg(features, w, b), labels)
            losses["linreg"].append(float(train_l.mean()))
    losses["linreg_err"] = [float(x) for x in (true_w - w.detach().reshape(true_w.shape)).abs()] + [abs(true_b - b.item())]


def softmax_regression(torch, start, losses, X, y):
    num_inputs, num_outputs = 64, 10
    W = _param(torch, start, "smx_W", lambda: torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True))
    b = torch.zeros(num_outputs, requires_grad=True)

    def softmax(X):
        X_exp = torch.exp(X)
        partition = X_exp.sum(1, keepdim=True)
        return X_exp / partition

    def net(X):
        return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)

    def cross_entropy(y_hat, y):
        return - torch.log(y_hat[range(len(y_hat)), y])

    def accuracy(y_hat, y):
        if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
            y_hat = y_hat.argmax(axis=1)
        cmp = y_hat.type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    class Accumulator:
        def __init__(self, n):
            self.data = [0.0] * n

        def add(self, *args):
            self.data = [a + float(b) for a, b in zip(self.data, args)]

        def __getitem__(self, idx):
            return self.data[idx]

    updater = torch.optim.SGD([W, b], lr=0.1)
    for epoch in range(3):
        metric = Accumulator(3)
        for i in range(0, len(X), 32):
            Xb, yb = X[i:i + 32], y[i:i + 32]
            y_hat = net(Xb)
            l = cross_entropy(y_hat, yb)
            updater.zero_grad()
            l.mean().backward()
            updater.step()
            metric.add(float(l.sum()), accuracy(y_hat, yb), yb.numel())
        losses["softmax"].append(metric[0] / metric[2])
        losses["softmax_acc"].append(metric[1] / metric[2])


def mlp_scratch(torch, start, losses, X, y):
    nn = torch.nn
    num_inputs, num_outputs, num_hiddens = 64, 10, 32
    W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens) * 0.01)
    b1 = nn.Parameter(torch.zeros(num_hiddens))
    W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs) * 0.01)
    b2 = nn.Parameter(torch.zeros(num_outputs))
    params = [W1, b1, W2, b2]
    if "mlp" in start:
        with torch.no_grad():
            for p, v in zip(params, start["mlp"]):
                p.copy_(torch.from_numpy(v))
    else:
        start["mlp"] = [p.detach().numpy().copy() for p in params]

    def relu(X):
        a = torch.zeros_like(X)
        return torch.max(X, a)

    def net(X):
        X = X.reshape((-1, num_inputs))
        H = relu(X @ W1 + b1)
        return (H @ W2 + b2)

    loss = nn.CrossEntropyLoss(reduction='none')
    trainer = torch.optim.SGD(params, lr=0.5)
    for epoch in range(4):
        for i in range(0, len(X), 32):
            l = loss(net(X[i:i + 32]), y[i:i + 32])
            trainer.zero_grad()
            l.mean().backward()
            trainer.step()
        with torch.no_grad():
            losses["mlp"].append(loss(net(X), y).mean().item())


def batch_norm_lenet(torch, start, losses, X, y):
    nn = torch.nn

    def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
        if not torch.is_grad_enabled():
            X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
        else:
            assert len(X.shape) in (2, 4)
            if len(X.shape) == 2:
                mean = X.mean(dim=0)
                var = ((X - mean) ** 2).mean(dim=0)
            else:
                mean = X.mean(dim=(0, 2, 3), keepdim=True)
                var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
            X_hat = (X - mean) / torch.sqrt(var + eps)
            moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
            moving_var = (1.0 - momentum) * moving_var + momentum * var
        Y = gamma * X_hat + beta
        return Y, moving_mean.data, moving_var.data

    class BatchNorm(nn.Module):
        def __init__(self, num_features, num_dims):
            super().__init__()
            if num_dims == 2:
                shape = (1, num_features)
            else:
                shape = (1, num_features, 1, 1)
            self.gamma = nn.Parameter(torch.ones(shape))
            self.beta = nn.Parameter(torch.zeros(shape))
            self.moving_mean = torch.zeros(shape)
            self.moving_var = torch.ones(shape)

        def forward(self, X):
            if self.moving_mean.device != X.device:
                self.moving_mean = self.moving_mean.to(X.device)
                self.moving_var = self.moving_var.to(X.device)
            Y, self.moving_mean, self.moving_var = batch_norm(
                X, self.gamma, self.beta, self.moving_mean,
                self.moving_var, eps=1e-5, momentum=0.1)
            return Y

    net = nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), BatchNorm(6, num_dims=4), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=3), BatchNorm(16, num_dims=4), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.LazyLinear(32), nn.BatchNorm1d(32), nn.Sigmoid(),
        nn.Linear(32, 10))
    imgs = X.reshape(-1, 1, 8, 8)
    with torch.no_grad():  # materialize the lazy layer, as d2l's init does with a dummy batch (the
        net(imgs[:2])      # moving statistics, plain attributes, are not in the state dict shared below)

    def init_cnn(module):
        if type(module) == nn.Linear or type(module) == nn.Conv2d:
            nn.init.xavier_uniform_(module.weight)

    net.apply(init_cnn)
    same_start(torch, start, "lenet", net)
    opt = torch.optim.SGD(net.parameters(), lr=0.9)
    loss = nn.CrossEntropyLoss()
    for epoch in range(3):
        net.train()
        for i in range(0, len(imgs), 32):
            l = loss(net(imgs[i:i + 32]), y[i:i + 32])
            opt.zero_grad()
            l.backward()
            opt.step()
            losses["lenet"].append(l.item())
    net.eval()
    with torch.no_grad():
        losses["lenet_eval"].append(loss(net(imgs), y).item())
    losses["bn_gamma"] = net[1].gamma.reshape((-1,)).tolist()


def rnn_scratch(torch, start, losses):
    F = torch.nn.functional
    text = "the time machine by h g wells " * 8
    vocab = sorted(set(text))
    idx = {c: i for i, c in enumerate(vocab)}
    corpus = [idx[c] for c in text]
    V, num_hiddens, num_steps, batch_size = len(vocab), 32, 8, 4

    def get_params(vocab_size, num_hiddens):
        num_inputs = num_outputs = vocab_size

        def normal(shape):
            return torch.randn(size=shape) * 0.01
        W_xh = normal((num_inputs, num_hiddens))
        W_hh = normal((num_hiddens, num_hiddens))
        b_h = torch.zeros(num_hiddens)
        W_hq = normal((num_hiddens, num_outputs))
        b_q = torch.zeros(num_outputs)
        params = [W_xh, W_hh, b_h, W_hq, b_q]
        for param in params:
            param.requires_grad_(True)
        return params

    params = get_params(V, num_hiddens)
    if "rnn" in start:
        params = [torch.tensor(v, requires_grad=True) for v in start["rnn"]]
    else:
        start["rnn"] = [p.detach().numpy().copy() for p in params]

    def init_rnn_state(batch_size, num_hiddens):
        return (torch.zeros((batch_size, num_hiddens)), )

    def rnn(inputs, state, params):
        W_xh, W_hh, b_h, W_hq, b_q = params
        H, = state
        outputs = []
        for X in inputs:
            H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
            Y = torch.mm(H, W_hq) + b_q
            outputs.append(Y)
        return torch.cat(outputs, dim=0), (H,)

    def forward(X, state):
        X = F.one_hot(X.T, V).type(torch.float32)
        return rnn(X, state, params)

    def grad_clipping(params, theta):
        norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
        if norm > theta:
            for param in params:
                param.grad[:] *= theta / norm

    def sgd(params, lr, batch_size):
        with torch.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    loss = torch.nn.CrossEntropyLoss()
    n = (len(corpus) - 1) // (batch_size * num_steps) * batch_size * num_steps
    Xs = torch.tensor(corpus[:n]).reshape(batch_size, -1)
    Ys = torch.tensor(corpus[1:n + 1]).reshape(batch_size, -1)
    for epoch in range(6):
        state = None
        total, count = 0.0, 0
        for i in range(0, Xs.shape[1], num_steps):
            X, Y = Xs[:, i:i + num_steps], Ys[:, i:i + num_steps]
            if state is None:
                state = init_rnn_state(X.shape[0], num_hiddens)
            else:
                for s in state:
                    s.detach_()
            y = Y.T.reshape(-1)
            y_hat, state = forward(X, state)
            l = loss(y_hat, y.long()).mean()
            for p in params:
                if p.grad is not None:
                    p.grad.zero_()
            l.backward()
            grad_clipping(params, 1)
            sgd(params, 1, batch_size=1)
            total += l.item() * y.numel()
            count += y.numel()
        losses["rnn_ppl"].append(math.exp(total / count))

    def predict(prefix, num_preds):
        state = init_rnn_state(batch_size=1, num_hiddens=num_hiddens)
        outputs = [idx[prefix[0]]]
        get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))  # noqa: E731
        for y in prefix[1:]:
            _, state = forward(get_input(), state)
            outputs.append(idx[y])
        for _ in range(num_preds):
            y, state = forward(get_input(), state)
            outputs.append(int(y.argmax(dim=1).reshape(1)))
        return ''.join([vocab[i] for i in outputs])

    losses["predict"] = predict("time ", 10)


def attention(torch, start, losses):
    nn = torch.nn

    def sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
        X[~mask] = value
        return X

    def masked_softmax(X, valid_lens):
        if valid_lens is None:
            return nn.functional.softmax(X, dim=-1)
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)

    class AdditiveAttention(nn.Module):
        def __init__(self, num_hiddens, dropout, **kwargs):
            super().__init__(**kwargs)
            self.W_k = nn.LazyLinear(num_hiddens, bias=False)
            self.W_q = nn.LazyLinear(num_hiddens, bias=False)
            self.w_v = nn.LazyLinear(1, bias=False)
            self.dropout = nn.Dropout(dropout)

        def forward(self, queries, keys, values, valid_lens):
            queries, keys = self.W_q(queries), self.W_k(keys)
            features = queries.unsqueeze(2) + keys.unsqueeze(1)
            features = torch.tanh(features)
            scores = self.w_v(features).squeeze(-1)
            self.attention_weights = masked_softmax(scores, valid_lens)
            return torch.bmm(self.dropout(self.attention_weights), values)

    class DotProductAttention(nn.Module):
        def __init__(self, dropout):
            super().__init__()
            self.dropout = nn.Dropout(dropout)

        def forward(self, queries, keys, values, valid_lens=None):
            d = queries.shape[-1]
            scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
            self.attention_weights = masked_softmax(scores, valid_lens)
            return torch.bmm(self.dropout(self.attention_weights), values)

    rng = np.random.default_rng(3)
    queries = torch.from_numpy(rng.standard_normal((2, 1, 20)).astype(np.float32))
    keys = torch.from_numpy(rng.standard_normal((2, 10, 2)).astype(np.float32))
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    valid_lens = torch.tensor([2, 6])
    att = AdditiveAttention(num_hiddens=8, dropout=0.1)
    att.eval()
    att(queries, keys, values, valid_lens)
    same_start(torch, start, "additive", att)
    target = torch.from_numpy(rng.standard_normal((2, 1, 4)).astype(np.float32))
    opt = torch.optim.Adam(att.parameters(), lr=0.05)
    for _ in range(10):
        out = att(queries, keys, values, valid_lens)
        l = ((out - target) ** 2).mean()
        opt.zero_grad()
        l.backward()
        opt.step()
        losses["additive"].append(l.item())
    losses["masked"] = masked_softmax(torch.from_numpy(rng.random((2, 2, 4)).astype(np.float32)),
                                      torch.tensor([[1, 3], [2, 4]])).reshape(-1).tolist()
    dot = DotProductAttention(dropout=0.5)
    dot.eval()
    losses["dot"] = dot(torch.from_numpy(rng.standard_normal((2, 1, 2)).astype(np.float32)), keys, values,
                        valid_lens).reshape(-1).tolist()


def run(torch, init=None, seed=0):
    torch.manual_seed(seed)
    start = {} if init is None else init
    from collections import defaultdict
    losses = defaultdict(list)
    rng = np.random.default_rng(seed)
    protos = rng.standard_normal((10, 64)).astype(np.float32)
    yy = rng.integers(0, 10, 256)
    X = torch.from_numpy(protos[yy] + 0.8 * rng.standard_normal((256, 64)).astype(np.float32))
    y = torch.from_numpy(yy)
    linreg(torch, start, losses)
    softmax_regression(torch, start, losses, X, y)
    mlp_scratch(torch, start, losses, X, y)
    batch_norm_lenet(torch, start, losses, X, y)
    rnn_scratch(torch, start, losses)
    attention(torch, start, losses)
    return dict(losses=dict(losses), init=start)
