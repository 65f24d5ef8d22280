"""The "Language Modeling with nn.Transformer" tutorial in small: an
Embedding * sqrt(d_model) + sinusoidal PositionalEncoding (a registered
buffer filled through pe[:, 0, 0::2] = sin(...)), TransformerEncoder of
TransformerEncoderLayer (sequence-first) under
nn.Transformer.generate_square_subsequent_mask, batchify/get_batch over a
made-up corpus, SGD + StepLR + clip_grad_norm_, evaluation under no_grad,
the best state_dict saved with torch.save and loaded back.

run(torch, init=None, dropout=0.2) -> dict(losses, val, best, init)."""
import math
import os
import tempfile


def run(torch, init=None, seed=0, dropout=0.2, epochs=2, emsize=32, nhead=2, d_hid=32, nlayers=2):
    nn = torch.nn
    Tensor = torch.Tensor

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=500):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x: Tensor) -> Tensor:
            return self.dropout(x + self.pe[:x.size(0)])

    class TransformerModel(nn.Module):
        def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.5):
            super().__init__()
            self.model_type = "Transformer"
            self.pos_encoder = PositionalEncoding(d_model, dropout)
            encoder_layers = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
            self.transformer_encoder = nn.TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
            self.embedding = nn.Embedding(ntoken, d_model)
            self.d_model = d_model
            self.linear = nn.Linear(d_model, ntoken)
            self.init_weights()

        def init_weights(self):
            initrange = 0.1
            self.embedding.weight.data.uniform_(-initrange, initrange)
            self.linear.bias.data.zero_()
            self.linear.weight.data.uniform_(-initrange, initrange)

        def forward(self, src, src_mask=None):
            src = self.pos_encoder(self.embedding(src) * math.sqrt(self.d_model))
            if src_mask is None:
                src_mask = nn.Transformer.generate_square_subsequent_mask(len(src)).to(src.device)
            return self.linear(self.transformer_encoder(src, src_mask))

    words = ("the cat sat on the mat and the dog ate the bone while a bird sang on the tree " * 30).split()
    vocab = {w: i for i, w in enumerate(sorted(set(words)))}
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def data_process(ws):
        return torch.tensor([vocab[w] for w in ws], dtype=torch.long)

    def batchify(data, bsz):
        seq_len = data.size(0) // bsz
        return data[:seq_len * bsz].view(bsz, seq_len).t().contiguous().to(device)

    train_data = batchify(data_process(words[:400]), 5)
    val_data = batchify(data_process(words[400:]), 4)
    bptt = 10

    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i)
        return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)

    torch.manual_seed(seed)
    ntokens = len(vocab)
    model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, dropout).to(device)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
    losses, vals = [], []

    def evaluate(model, eval_data):
        model.eval()
        total_loss = 0.
        with torch.no_grad():
            for i in range(0, eval_data.size(0) - 1, bptt):
                data, targets = get_batch(eval_data, i)
                output = model(data)
                total_loss += data.size(0) * criterion(output.view(-1, ntokens), targets).item()
        return total_loss / (len(eval_data) - 1)

    best_val_loss = float("inf")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "best_model_params.pt")
        for epoch in range(1, epochs + 1):
            model.train()
            for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
                data, targets = get_batch(train_data, i)
                output = model(data)
                loss = criterion(output.view(-1, ntokens), targets)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                optimizer.step()
                losses.append(loss.item())
                assert scheduler.get_last_lr()[0] == 5.0 * 0.95 ** (epoch - 1)
            val_loss = evaluate(model, val_data)
            vals.append(val_loss)
            if val_loss < best_val_loss:
                best_val_loss = val_loss
                torch.save(model.state_dict(), path)
            scheduler.step()
        model.load_state_dict(torch.load(path))
    return {"losses": losses, "val": vals, "best": evaluate(model, val_data), "init": start}
