"""A graph convolutional network in the manner of pytorch/examples gcn: node
features and a symmetric-normalized adjacency D^-1/2 (A + I) D^-1/2 built with
sparse_coo_tensor, to_sparse and sparse @ dense products, two graph-conv layers
(mm then spmm), log_softmax + NLLLoss on a node mask, Adam with weight decay.

run(torch, ...) -> dict(losses=[train loss per epoch], test=..., acc=..., init=...)."""
import numpy as np


def make_graph(n=300, f=40, c=4, e=900, seed=0):
    rs = np.random.RandomState(seed)
    labels = rs.randint(0, c, n)
    proto = rs.rand(c, f) < 0.15
    feats = ((rs.rand(n, f) < 0.03) | (proto[labels] & (rs.rand(n, f) < 0.5))).astype(np.int32)
    by = [np.where(labels == k)[0] for k in range(c)]
    src = rs.randint(0, n, e)
    dst = np.array([rs.choice(by[labels[a]]) if rs.rand() < 0.8 else rs.randint(n) for a in src])
    return feats, labels, np.stack([src, dst]).astype(np.int32)


def build(torch, f_in, hidden, n_cls, dropout):
    nn = torch.nn
    F = torch.nn.functional

    class GraphConv(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.kernel = nn.Parameter(torch.Tensor(i, o))
            nn.init.xavier_normal_(self.kernel)
            self.bias = nn.Parameter(torch.Tensor(o))
            nn.init.zeros_(self.bias)

        def forward(self, x, adj):
            return torch.spmm(adj, torch.mm(x, self.kernel)) + self.bias

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.gc1, self.gc2 = GraphConv(f_in, hidden), GraphConv(hidden, n_cls)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x, adj):
            return F.log_softmax(self.gc2(self.dropout(F.relu(self.gc1(x, adj))), adj), dim=1)

    return GCN()


def normalized_adjacency(torch, edges, n):
    adj = torch.sparse_coo_tensor(edges, torch.ones(edges.shape[1]), (n, n), dtype=torch.int64)
    adj = torch.eye(n) + adj
    deg = torch.sqrt(1 / torch.sum(adj, dim=1))
    deg[deg == float("inf")] = 0
    deg = torch.diag(deg).to_sparse()
    return (deg @ adj @ deg).to_sparse()


def run(torch, epochs=30, seed=0, init=None, dropout=0.0, hidden=16):
    torch.manual_seed(seed)
    feats_np, labels_np, edges = make_graph()
    n = len(labels_np)
    feats = torch.FloatTensor(feats_np)
    scale = 1 / torch.sum(feats, dim=1)
    scale[scale == float("inf")] = 0
    feats = (torch.diag(scale).to_sparse() @ feats).to_sparse()
    adj = normalized_adjacency(torch, edges, n)
    labels = torch.LongTensor(labels_np)
    idx = np.random.RandomState(seed).permutation(n)
    idx_test, idx_train = torch.from_numpy(idx[:100]), torch.from_numpy(idx[100:])
    model = build(torch, feats.shape[1], hidden, int(labels.max().item()) + 1, dropout)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
    crit = torch.nn.NLLLoss()
    losses = []
    for _ in range(epochs):
        model.train()
        opt.zero_grad()
        loss = crit(model(feats, adj)[idx_train], labels[idx_train])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        out = model(feats, adj)[idx_test]
        test = crit(out, labels[idx_test]).item()
        acc = (out.argmax(dim=1) == labels[idx_test]).float().mean().item()
    return {"losses": losses, "test": test, "acc": acc, "init": start,
            "layouts": (str(feats.layout), str(adj.layout))}
