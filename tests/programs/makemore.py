"""karpathy/makemore in small: CharDataset, InfiniteDataLoader, Bigram/MLP/RNN(GRU cell)/BoW/Transformer,
SummaryWriter guarded, torch.inference_mode, generate with multinomial, evaluate with DataLoader."""
import math
import os
import tempfile

import numpy as np


def create_words(seed=0, n=120):
    rng = np.random.default_rng(seed)
    syll = ["ka", "ri", "mo", "an", "el", "ia", "to", "su", "ne", "lo"]
    return ["".join(rng.choice(syll, int(rng.integers(1, 4)))) for _ in range(n)]


def build(torch):
    nn = torch.nn
    F = nn.functional
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

    class ModelConfig:
        def __init__(self, block_size=None, vocab_size=None, n_layer=2, n_embd=16, n_embd2=16, n_head=2):
            self.block_size, self.vocab_size = block_size, vocab_size
            self.n_layer, self.n_embd, self.n_embd2, self.n_head = n_layer, n_embd, n_embd2, n_head

    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd)
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, 1, config.block_size, config.block_size))
            self.n_head = config.n_head
            self.n_embd = config.n_embd

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(config.n_embd, 4 * config.n_embd),
                                          c_proj=nn.Linear(4 * config.n_embd, config.n_embd), act=NewGELU()))
            m = self.mlp
            self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlpf(self.ln_2(x))
            return x

    class Transformer(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.block_size = config.block_size
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd)))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            n_params = sum(p.numel() for p in self.transformer.parameters())
            self.n_params = n_params

        def get_block_size(self):
            return self.block_size

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

    class CausalBoW(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.block_size = config.block_size
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, config.block_size, config.block_size))

        def forward(self, x):
            B, T, C = x.size()
            att = torch.zeros((B, T, T), device=x.device)
            att = att.masked_fill(self.bias[:, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            return att @ x

    class BoWBlock(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.cbow = CausalBoW(config)
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(config.n_embd, config.n_embd2),
                                          c_proj=nn.Linear(config.n_embd2, config.n_embd)))
            m = self.mlp
            self.mlpf = lambda x: m.c_proj(F.tanh(m.c_fc(x)))

        def forward(self, x):
            x = x + self.cbow(x)
            x = x + self.mlpf(x)
            return x

    class BoW(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.block_size = config.block_size
            self.vocab_size = config.vocab_size
            self.wte = nn.Embedding(config.vocab_size, config.n_embd)
            self.wpe = nn.Embedding(config.block_size, config.n_embd)
            self.context_block = BoWBlock(config)
            self.lm_head = nn.Linear(config.n_embd, self.vocab_size)

        def get_block_size(self):
            return self.block_size

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0)
            x = self.wte(idx) + self.wpe(pos)
            x = self.context_block(x)
            logits = self.lm_head(x)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

    class RNNCell(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.xh_to_h = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)

        def forward(self, xt, hprev):
            xh = torch.cat([xt, hprev], dim=1)
            return F.tanh(self.xh_to_h(xh))

    class GRUCell(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.xh_to_z = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)
            self.xh_to_r = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)
            self.xh_to_hbar = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)

        def forward(self, xt, hprev):
            xh = torch.cat([xt, hprev], dim=1)
            r = F.sigmoid(self.xh_to_r(xh))
            hprev_reset = r * hprev
            xhr = torch.cat([xt, hprev_reset], dim=1)
            hbar = F.tanh(self.xh_to_hbar(xhr))
            z = F.sigmoid(self.xh_to_z(xh))
            return (1 - z) * hprev + z * hbar

    class RNN(nn.Module):
        def __init__(self, config, cell_type):
            super().__init__()
            self.block_size = config.block_size
            self.vocab_size = config.vocab_size
            self.start = nn.Parameter(torch.zeros(1, config.n_embd2))
            self.wte = nn.Embedding(config.vocab_size, config.n_embd)
            if cell_type == 'rnn':
                self.cell = RNNCell(config)
            elif cell_type == 'gru':
                self.cell = GRUCell(config)
            self.lm_head = nn.Linear(config.n_embd2, self.vocab_size)

        def get_block_size(self):
            return self.block_size

        def forward(self, idx, targets=None):
            b, t = idx.size()
            emb = self.wte(idx)
            hprev = self.start.expand((b, -1))
            hiddens = []
            for i in range(t):
                xt = emb[:, i, :]
                ht = self.cell(xt, hprev)
                hprev = ht
                hiddens.append(ht)
            hidden = torch.stack(hiddens, 1)
            logits = self.lm_head(hidden)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.block_size = config.block_size
            self.vocab_size = config.vocab_size
            self.wte = nn.Embedding(config.vocab_size + 1, config.n_embd)
            self.mlp = nn.Sequential(nn.Linear(self.block_size * config.n_embd, config.n_embd2), nn.Tanh(),
                                     nn.Linear(config.n_embd2, self.vocab_size))

        def get_block_size(self):
            return self.block_size

        def forward(self, idx, targets=None):
            embs = []
            for k in range(self.block_size):
                tok_emb = self.wte(idx)
                idx = torch.roll(idx, 1, 1)
                idx[:, 0] = self.vocab_size
                embs.append(tok_emb)
            x = torch.cat(embs, -1)
            logits = self.mlp(x)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

    class Bigram(nn.Module):
        def __init__(self, config):
            super().__init__()
            n = config.vocab_size
            self.logits = nn.Parameter(torch.zeros((n, n)))

        def get_block_size(self):
            return 1

        def forward(self, idx, targets=None):
            logits = self.logits[idx]
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

    class CharDataset(Dataset):
        def __init__(self, words, chars, max_word_length):
            self.words = words
            self.chars = chars
            self.max_word_length = max_word_length
            self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}
            self.itos = {i: s for s, i in self.stoi.items()}

        def __len__(self):
            return len(self.words)

        def contains(self, word):
            return word in self.words

        def get_vocab_size(self):
            return len(self.chars) + 1

        def get_output_length(self):
            return self.max_word_length + 1

        def encode(self, word):
            return torch.tensor([self.stoi[w] for w in word], dtype=torch.long)

        def decode(self, ix):
            return ''.join(self.itos[i] for i in ix)

        def __getitem__(self, idx):
            word = self.words[idx]
            ix = self.encode(word)
            x = torch.zeros(self.max_word_length + 1, dtype=torch.long)
            y = torch.zeros(self.max_word_length + 1, dtype=torch.long)
            x[1:1 + len(ix)] = ix
            y[:len(ix)] = ix
            y[len(ix) + 1:] = -1
            return x, y

    class InfiniteDataLoader:
        def __init__(self, dataset, **kwargs):
            train_sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
            self.train_loader = DataLoader(dataset, sampler=train_sampler, **kwargs)
            self.data_iter = iter(self.train_loader)

        def next(self):
            try:
                batch = next(self.data_iter)
            except StopIteration:
                self.data_iter = iter(self.train_loader)
                batch = next(self.data_iter)
            return batch

    return dict(ModelConfig=ModelConfig, Transformer=Transformer, BoW=BoW, RNN=RNN, MLP=MLP, Bigram=Bigram,
                CharDataset=CharDataset, InfiniteDataLoader=InfiniteDataLoader, DataLoader=DataLoader)


def run(torch, init=None, seed=3407, model_type="transformer", steps=8, batch_size=8, sequential=True, workdir=None):
    F = torch.nn.functional
    ns = build(torch)
    torch.manual_seed(seed)
    workdir = workdir or tempfile.mkdtemp()
    os.makedirs(workdir, exist_ok=True)
    try:
        SummaryWriter = __import__(torch.__name__ + ".utils.tensorboard", fromlist=["SummaryWriter"]).SummaryWriter
        writer = SummaryWriter(log_dir=workdir)
    except ImportError:
        writer = None
    words = create_words()
    chars = sorted(list(set(''.join(words))))
    max_word_length = max(len(w) for w in words)
    test_set_size = min(20, int(len(words) * 0.1))
    rp = np.random.default_rng(seed).permutation(len(words)).tolist()
    train_words = [words[i] for i in rp[:-test_set_size]]
    test_words = [words[i] for i in rp[-test_set_size:]]
    train_dataset = ns["CharDataset"](train_words, chars, max_word_length)
    test_dataset = ns["CharDataset"](test_words, chars, max_word_length)
    vocab_size = train_dataset.get_vocab_size()
    block_size = train_dataset.get_output_length()
    config = ns["ModelConfig"](vocab_size=vocab_size, block_size=block_size)
    model = {"transformer": lambda: ns["Transformer"](config), "bigram": lambda: ns["Bigram"](config),
             "mlp": lambda: ns["MLP"](config), "rnn": lambda: ns["RNN"](config, cell_type='rnn'),
             "gru": lambda: ns["RNN"](config, cell_type='gru'), "bow": lambda: ns["BoW"](config)}[model_type]()
    start = {} if init is None else init
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
    if sequential:
        loader = ns["DataLoader"](train_dataset, batch_size=batch_size, shuffle=False)
        it = iter(loader)
        next_batch = lambda: next(it)  # noqa: E731
    else:
        batch_loader = ns["InfiniteDataLoader"](train_dataset, batch_size=batch_size, pin_memory=True, num_workers=0)
        next_batch = batch_loader.next
    losses = []

    @torch.inference_mode()
    def evaluate(model, dataset, batch_size=50, max_batches=None):
        model.eval()
        loader = ns["DataLoader"](dataset, shuffle=True, batch_size=batch_size, num_workers=0)
        ls = []
        for i, batch in enumerate(loader):
            batch = [t.to('cpu') for t in batch]
            X, Y = batch
            logits, loss = model(X, Y)
            ls.append(loss.item())
            if max_batches is not None and i >= max_batches:
                break
        mean_loss = torch.tensor(ls).mean().item()
        model.train()
        return mean_loss

    @torch.no_grad()
    def generate(model, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
        block_size = model.get_block_size()
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
            logits, _ = model(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            if do_sample:
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                _, idx_next = torch.topk(probs, k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx

    for step in range(steps):
        batch = next_batch()
        batch = [t.to('cpu') for t in batch]
        X, Y = batch
        logits, loss = model(X, Y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if writer is not None:
            writer.add_scalar("Loss/train", loss.item(), step)
            writer.flush()
    train_loss = evaluate(model, train_dataset, batch_size=100, max_batches=10)
    test_loss = evaluate(model, test_dataset, batch_size=100, max_batches=10)
    torch.save(model.state_dict(), os.path.join(workdir, "model.pt"))
    model.load_state_dict(torch.load(os.path.join(workdir, "model.pt")))
    X_init = torch.zeros(4, 1, dtype=torch.long).to('cpu')
    top_k = None
    steps_gen = train_dataset.get_output_length() - 1
    X_samp = generate(model, X_init, steps_gen, top_k=top_k, do_sample=False).to('cpu')
    samples = []
    for i in range(X_samp.size(0)):
        row = X_samp[i, 1:].tolist()
        crop_index = row.index(0) if 0 in row else len(row)
        row = row[:crop_index]
        samples.append(train_dataset.decode(row))
    X_rand = generate(model, X_init, steps_gen, top_k=3, do_sample=True)
    if writer is not None:
        writer.close()
    return dict(init=start, losses=losses, train_loss=train_loss, test_loss=test_loss, samples=samples,
                rand_shape=tuple(X_rand.shape))
