"""pytorch/examples gat in small, on a synthetic citation graph (numpy, the same
for every framework): the load_cora preprocessing (row scaling by
torch.diag(1 / sums).to_sparse() @ features with inf -> 0 through boolean
assignment, an int64 sparse_coo_tensor adjacency added to torch.eye), a
GraphAttentionLayer (xavier_normal_ on W and a, matmul over heads, .mT broadcast
add, LeakyReLU, torch.where(adj_mat > 0, e, -9e16 * ones_like(e)), softmax,
dropout, mean over heads) and the two-layer GAT with elu/log_softmax, Adam
with weight decay, NLLLoss on index masks, eval under no_grad.

run(torch, init=None, dropout=0.6) -> dict(losses, val, test, init)."""
import numpy as np


def make_graph(n=60, f=24, classes=3, seed=4):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    feats = (rng.random((n, f)) < 0.15).astype(np.int32)
    for i, c in enumerate(labels):
        feats[i, c * 6:(c + 1) * 6] |= (rng.random(6) < 0.5).astype(np.int32)
    feats[5] = 0  # a node without words: 1 / 0 = inf, set to 0
    edges = []
    for i in range(n):
        for j in rng.choice(n, 3, replace=False):
            if j != i and (labels[i] == labels[j] or rng.random() < 0.2):
                edges.append((i, j))
    return feats, np.array(edges, dtype=np.int32), labels


def run(torch, init=None, seed=13, dropout=0.6, epochs=30):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(seed)

    class GraphAttentionLayer(nn.Module):
        def __init__(self, in_features, out_features, n_heads, concat=False, dropout=0.4, leaky_relu_slope=0.2):
            super(GraphAttentionLayer, self).__init__()
            self.n_heads, self.concat, self.dropout = n_heads, concat, dropout
            if concat:
                self.out_features = out_features
                assert out_features % n_heads == 0
                self.n_hidden = out_features // n_heads
            else:
                self.n_hidden = out_features
            self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))
            self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))
            self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)
            self.softmax = nn.Softmax(dim=1)
            self.reset_parameters()

        def reset_parameters(self):
            nn.init.xavier_normal_(self.W)
            nn.init.xavier_normal_(self.a)

        def _get_attention_scores(self, h_transformed):
            source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
            target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])
            return self.leakyrelu(source_scores + target_scores.mT)

        def forward(self, h, adj_mat):
            n_nodes = h.shape[0]
            h_transformed = F.dropout(torch.mm(h, self.W), self.dropout, training=self.training)
            h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)
            e = self._get_attention_scores(h_transformed)
            connectivity_mask = -9e16 * torch.ones_like(e)
            e = torch.where(adj_mat > 0, e, connectivity_mask)
            attention = F.dropout(F.softmax(e, dim=-1), self.dropout, training=self.training)
            h_prime = torch.matmul(attention, h_transformed)
            if self.concat:
                return h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
            return h_prime.mean(dim=0)

    class GAT(nn.Module):
        def __init__(self, in_features, n_hidden, n_heads, num_classes, concat=False, dropout=0.4,
                     leaky_relu_slope=0.2):
            super(GAT, self).__init__()
            self.gat1 = GraphAttentionLayer(in_features, n_hidden, n_heads, concat, dropout, leaky_relu_slope)
            self.gat2 = GraphAttentionLayer(n_hidden, num_classes, 1, False, dropout, leaky_relu_slope)

        def forward(self, input_tensor, adj_mat):
            x = F.elu(self.gat1(input_tensor, adj_mat))
            return F.log_softmax(self.gat2(x, adj_mat), dim=1)

    feats, edges, labels_np = make_graph()
    features = torch.FloatTensor(feats)
    scale_vector = torch.sum(features, dim=1)
    scale_vector = 1 / scale_vector
    scale_vector[scale_vector == float("inf")] = 0
    scale_vector = torch.diag(scale_vector).to_sparse()
    features = scale_vector @ features
    labels = torch.LongTensor(labels_np)
    V, E = len(labels_np), edges.shape[0]
    adj_mat = torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.int64)
    adj_mat = torch.eye(V) + adj_mat
    idx = np.random.default_rng(0).permutation(V)
    idx_test, idx_val, idx_train = (torch.from_numpy(idx[:15]), torch.from_numpy(idx[15:30]),
                                    torch.from_numpy(idx[30:]))
    model = GAT(features.shape[1], 16, 4, int(labels.max().item()) + 1, concat=False, dropout=dropout)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    criterion = nn.NLLLoss()

    def test(mask):
        model.eval()
        with torch.no_grad():
            output = model(features, adj_mat)
            output, target = output[mask], labels[mask]
            loss = criterion(output, target)
            acc = (output.argmax(dim=1) == target).float().sum() / len(target)
        return loss.item(), acc.item()

    losses, vals = [], []
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        loss = criterion(model(features, adj_mat)[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        vals.append(test(idx_val))
    return {"losses": losses, "val": vals, "test": test(idx_test), "adj_dtype": str(adj_mat.dtype),
            "adj_sum": float(adj_mat.sum()), "init": start}
