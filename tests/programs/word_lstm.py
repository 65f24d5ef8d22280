"""A word-level LSTM language model in the manner of the classic PyTorch
word_language_model example: a Dictionary/Corpus, batchify into columns,
bptt slices, a 2-layer LSTM with dropout and a decoder tied to the
embedding, repackage_hidden (detach the hidden tuple between slices),
gradient clipping, a hand-written SGD step (p.data.add_(p.grad, alpha=-lr)),
the WHOLE model saved with torch.save(model, f) when validation improves and
read back with torch.load(f, weights_only=False) for the test evaluation.

run(torch, ...) -> dict(losses=[train loss per slice], val=[per epoch], test=..., init=...)."""
import math
import os
import tempfile

import numpy as np

VOCAB = ["<eos>"] + [f"w{i}" for i in range(47)]


def make_corpus_text(n_words, seed):
    """Sentences from a fixed random bigram chain (numpy RNG: the same words for every framework)."""
    rng = np.random.default_rng(seed)
    trans = rng.dirichlet(np.full(len(VOCAB), 0.15), size=len(VOCAB))
    words, w = [], 1
    for _ in range(n_words):
        w = rng.choice(len(VOCAB), p=trans[w])
        words.append(VOCAB[w])
    lines = " ".join(words).split("<eos>")
    return [ln.strip() for ln in lines if ln.strip()]


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    def __init__(self, torch, seed=7):
        self.dictionary = Dictionary()
        for w in VOCAB:
            self.dictionary.add_word(w)
        self.train = self.tokenize(torch, make_corpus_text(6000, seed))
        self.valid = self.tokenize(torch, make_corpus_text(1200, seed + 1))
        self.test = self.tokenize(torch, make_corpus_text(1200, seed + 2))

    def tokenize(self, torch, lines):
        idss = []
        for line in lines:
            words = line.split() + ["<eos>"]
            idss.append(torch.tensor([self.dictionary.add_word(w) for w in words]).type(torch.int64))
        return torch.cat(idss)


def _model_class(torch):
    """The RNNModel class for this framework, kept at module level under its
    own name: torch.save(model) pickles the class by reference, so it must be
    importable (the example has it in model.py)."""
    name = f"RNNModel_{torch.__name__}"
    if name in globals():
        return globals()[name]
    nn = torch.nn
    F = torch.nn.functional

    class RNNModel(nn.Module):
        """Container module with an encoder, a recurrent module, and a decoder."""

        def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
            super().__init__()
            self.ntoken = ntoken
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
            self.decoder = nn.Linear(nhid, ntoken)
            if tie_weights:
                if nhid != ninp:
                    raise ValueError("When using the tied flag, nhid must be equal to emsize")
                self.decoder.weight = self.encoder.weight
            self.init_weights()
            self.rnn_type = rnn_type
            self.nhid = nhid
            self.nlayers = nlayers

        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.encoder.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output)
            decoded = decoded.view(-1, self.ntoken)
            return F.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            if self.rnn_type == "LSTM":
                return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
            return weight.new_zeros(self.nlayers, bsz, self.nhid)

    RNNModel.__name__ = RNNModel.__qualname__ = name
    RNNModel.__module__ = __name__
    globals()[name] = RNNModel
    return RNNModel


def run(torch, epochs=2, seed=1111, init=None, emsize=32, nhid=32, nlayers=2, bptt=20, batch_size=10,
        dropout=0.2, lr=20.0, clip=0.25, max_batches=None):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    corpus = Corpus(torch)

    def batchify(data, bsz):
        nbatch = data.size(0) // bsz
        data = data.narrow(0, 0, nbatch * bsz)
        data = data.view(bsz, -1).t().contiguous()
        return data.to(device)

    eval_batch_size = 10
    train_data = batchify(corpus.train, batch_size)
    val_data = batchify(corpus.valid, eval_batch_size)
    test_data = batchify(corpus.test, eval_batch_size)
    ntokens = len(corpus.dictionary)
    model = _model_class(torch)("LSTM", ntokens, emsize, nhid, nlayers, dropout, tie_weights=True).to(device)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    criterion = torch.nn.NLLLoss()

    def repackage_hidden(h):
        """Wraps hidden states in new Tensors, to detach them from their history."""
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)

    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i)
        data = source[i:i + seq_len]
        target = source[i + 1:i + 1 + seq_len].view(-1)
        return data, target

    def evaluate(model, data_source):
        model.eval()
        total_loss = 0.0
        hidden = model.init_hidden(eval_batch_size)
        with torch.no_grad():
            for i in range(0, data_source.size(0) - 1, bptt):
                data, targets = get_batch(data_source, i)
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
                total_loss += len(data) * criterion(output, targets).item()
        return total_loss / (len(data_source) - 1)

    losses = []

    def train():
        model.train()
        hidden = model.init_hidden(batch_size)
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            if max_batches is not None and batch >= max_batches:
                break
            data, targets = get_batch(train_data, i)
            model.zero_grad()
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            losses.append(loss.item())

    val_losses = []
    best_val_loss = None
    with tempfile.TemporaryDirectory() as tmp:
        save = os.path.join(tmp, "model.pt")
        for epoch in range(1, epochs + 1):
            train()
            val_loss = evaluate(model, val_data)
            val_losses.append(val_loss)
            if not best_val_loss or val_loss < best_val_loss:
                with open(save, "wb") as f:
                    torch.save(model, f)
                best_val_loss = val_loss
            else:
                lr /= 4.0
        with open(save, "rb") as f:
            model = torch.load(f, weights_only=False)
            model.rnn.flatten_parameters()
        test_loss = evaluate(model, test_data)
    return {"losses": losses, "val": val_losses, "test": test_loss, "test_ppl": math.exp(test_loss),
            "best_val": best_val_loss, "init": start, "model_type": type(model).__name__}
