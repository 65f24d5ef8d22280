"""A HuggingFace-free BERT-style masked language model: token + position + segment embeddings,
LayerNorm/Dropout, nn.TransformerEncoder with src_key_padding_mask (batch_first, gelu, norm_first
False), an MLM head tied to the word embeddings (weight sharing), the 80/10/10 masking through
torch.full/bernoulli/where with a Generator, CrossEntropyLoss(ignore_index=-100), AdamW with
no weight decay on biases/LayerNorm by name, get_linear_schedule_with_warmup-style LambdaLR,
gradient clipping, and masked-token accuracy."""
import math

import numpy as np

PAD, CLS, SEP, MASK = 0, 1, 2, 3
VOCAB = 24


def make_batch(rng, n=16, max_len=12):
    ids = np.full((n, max_len), PAD, dtype=np.int64)
    seg = np.zeros((n, max_len), dtype=np.int64)
    for i in range(n):
        a = int(rng.integers(2, 5))
        start = int(rng.integers(4, VOCAB - 6))
        first = [start + k for k in range(a)]  # counting runs: predictable from context
        second = [start + a + k for k in range(int(rng.integers(1, 4)))]
        toks = [CLS] + first + [SEP] + second + [SEP]
        ids[i, :len(toks)] = toks
        seg[i, len(first) + 2:len(toks)] = 1
    return ids, seg


def build(torch, hidden=32, heads=4, layers=2, max_len=12, dropout=0.0):
    nn = torch.nn

    class BertEmbeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(VOCAB, hidden, padding_idx=PAD)
            self.position_embeddings = nn.Embedding(max_len, hidden)
            self.token_type_embeddings = nn.Embedding(2, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("position_ids", torch.arange(max_len).expand((1, -1)), persistent=False)

        def forward(self, input_ids, token_type_ids):
            seq_length = input_ids.size(1)
            position_ids = self.position_ids[:, :seq_length]
            emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
            emb = emb + self.position_embeddings(position_ids)
            return self.dropout(self.LayerNorm(emb))

    class BertForMaskedLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = BertEmbeddings()
            layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout, activation="gelu",
                                               batch_first=True, layer_norm_eps=1e-12)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.transform = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden, eps=1e-12))
            self.decoder = nn.Linear(hidden, VOCAB, bias=False)
            self.bias = nn.Parameter(torch.zeros(VOCAB))
            self.decoder.weight = self.embeddings.word_embeddings.weight  # tied
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                module.weight.data.normal_(mean=0.0, std=0.02)
                if module.bias is not None:
                    module.bias.data.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.data.normal_(mean=0.0, std=0.02)
                if module.padding_idx is not None:
                    module.weight.data[module.padding_idx].zero_()
            elif isinstance(module, nn.LayerNorm):
                module.bias.data.zero_()
                module.weight.data.fill_(1.0)

        def forward(self, input_ids, token_type_ids, attention_mask, labels=None):
            h = self.embeddings(input_ids, token_type_ids)
            h = self.encoder(h, src_key_padding_mask=attention_mask == 0)
            logits = self.decoder(self.transform(h)) + self.bias
            loss = None
            if labels is not None:
                loss = nn.CrossEntropyLoss()(logits.view(-1, VOCAB), labels.view(-1))
            return loss, logits

    return BertForMaskedLM()


def mask_tokens(torch, inputs, generator, mlm_probability=0.15):
    labels = inputs.clone()
    probability_matrix = torch.full(labels.shape, mlm_probability)
    special_tokens_mask = (inputs == PAD) | (inputs == CLS) | (inputs == SEP)
    probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
    masked_indices = torch.bernoulli(probability_matrix, generator=generator).bool()
    labels[~masked_indices] = -100
    indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8), generator=generator).bool() & masked_indices
    inputs = inputs.clone()
    inputs[indices_replaced] = MASK
    indices_random = (torch.bernoulli(torch.full(labels.shape, 0.5), generator=generator).bool()
                      & masked_indices & ~indices_replaced)
    random_words = torch.randint(VOCAB, labels.shape, dtype=torch.long, generator=generator)
    inputs[indices_random] = random_words[indices_random]
    return inputs, labels


def run(torch, init=None, seed=0, steps=12, dropout=0.0, fixed_masks=True):
    torch.manual_seed(seed)
    model = build(torch, dropout=dropout)
    start = {} if init is None else init
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    tied = model.decoder.weight is model.embeddings.word_embeddings.weight
    no_decay = ["bias", "LayerNorm.weight", "norm1.weight", "norm2.weight"]
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=3e-3, eps=1e-6)
    warmup, total = 3, steps

    def lr_lambda(current_step):
        if current_step < warmup:
            return float(current_step) / float(max(1, warmup))
        return max(0.0, float(total - current_step) / float(max(1, total - warmup)))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, -1)
    rng = np.random.default_rng(seed + 7)
    gen = torch.Generator().manual_seed(seed)
    losses, accs = [], []
    for step in range(steps):
        ids, seg = make_batch(rng)
        input_ids = torch.from_numpy(ids)
        if fixed_masks:  # the masks drawn by numpy, so both frameworks see the same batch
            mrng = np.random.default_rng(1000 + step)
            special = (ids == PAD) | (ids == CLS) | (ids == SEP)
            m = (mrng.random(ids.shape) < 0.3) & ~special
            labels = np.where(m, ids, -100)
            inp = np.where(m, MASK, ids)
            input_ids, labels = torch.from_numpy(inp), torch.from_numpy(labels)
        else:
            input_ids, labels = mask_tokens(torch, input_ids, gen)
        attention_mask = (torch.from_numpy(ids) != PAD).long()
        model.train()
        loss, logits = model(input_ids, torch.from_numpy(seg), attention_mask, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        losses.append(loss.item())
        with torch.no_grad():
            sel = labels != -100
            accs.append((logits.argmax(-1)[sel] == labels[sel]).float().mean().item())
    n_params = sum(p.numel() for p in model.parameters())
    return dict(init=start, losses=losses, accs=accs, tied=tied, n_params=n_params,
                lr=scheduler.get_last_lr(), ppl=math.exp(losses[-1]))
