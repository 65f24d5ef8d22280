"""Source: harvardnlp/annotated-transformer (The Annotated Transformer, 2022 edition), in small: the
EncoderDecoder with clones() by copy.deepcopy, LayerNorm/SublayerConnection written by hand,
attention() with masked_fill(mask == 0, -1e9), MultiHeadedAttention with view/transpose/contiguous,
PositionwiseFeedForward, Embeddings * sqrt(d_model), PositionalEncoding as a buffer, subsequent_mask
from triu(...).type(torch.uint8) == 0, Batch with its masks, LabelSmoothing (KLDivLoss(reduction='sum'),
scatter_, index_fill_ over nonzero of the padding), the rate() schedule through LambdaLR with
Adam(betas=(0.9, 0.98), eps=1e-9), xavier_uniform_ for p.dim() > 1, the synthetic copy task and
greedy_decode with fill_/type_as/cat. Dropout 0 so that two frameworks can share the weights.

run(torch, init=None) -> dict(out={...}, init=...)."""
import copy
import math
from collections import defaultdict

import numpy as np


def run(torch, init=None, seed=0, steps=12):
    nn = torch.nn
    log_softmax, pad = torch.nn.functional.log_softmax, torch.nn.functional.pad  # noqa: F841
    LambdaLR = torch.optim.lr_scheduler.LambdaLR
    torch.manual_seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)

    class EncoderDecoder(nn.Module):
        def __init__(self, encoder, decoder, src_embed, tgt_embed, generator):
            super().__init__()
            self.encoder = encoder
            self.decoder = decoder
            self.src_embed = src_embed
            self.tgt_embed = tgt_embed
            self.generator = generator

        def forward(self, src, tgt, src_mask, tgt_mask):
            return self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)

        def encode(self, src, src_mask):
            return self.encoder(self.src_embed(src), src_mask)

        def decode(self, memory, src_mask, tgt, tgt_mask):
            return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)

    class Generator(nn.Module):
        def __init__(self, d_model, vocab):
            super().__init__()
            self.proj = nn.Linear(d_model, vocab)

        def forward(self, x):
            return log_softmax(self.proj(x), dim=-1)

    def clones(module, N):
        return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])

    class LayerNorm(nn.Module):
        def __init__(self, features, eps=1e-6):
            super().__init__()
            self.a_2 = nn.Parameter(torch.ones(features))
            self.b_2 = nn.Parameter(torch.zeros(features))
            self.eps = eps

        def forward(self, x):
            mean = x.mean(-1, keepdim=True)
            std = x.std(-1, keepdim=True)
            return self.a_2 * (x - mean) / (std + self.eps) + self.b_2

    class Encoder(nn.Module):
        def __init__(self, layer, N):
            super().__init__()
            self.layers = clones(layer, N)
            self.norm = LayerNorm(layer.size)

        def forward(self, x, mask):
            for layer in self.layers:
                x = layer(x, mask)
            return self.norm(x)

    class SublayerConnection(nn.Module):
        def __init__(self, size, dropout):
            super().__init__()
            self.norm = LayerNorm(size)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x, sublayer):
            return x + self.dropout(sublayer(self.norm(x)))

    class EncoderLayer(nn.Module):
        def __init__(self, size, self_attn, feed_forward, dropout):
            super().__init__()
            self.self_attn = self_attn
            self.feed_forward = feed_forward
            self.sublayer = clones(SublayerConnection(size, dropout), 2)
            self.size = size

        def forward(self, x, mask):
            x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))
            return self.sublayer[1](x, self.feed_forward)

    class Decoder(nn.Module):
        def __init__(self, layer, N):
            super().__init__()
            self.layers = clones(layer, N)
            self.norm = LayerNorm(layer.size)

        def forward(self, x, memory, src_mask, tgt_mask):
            for layer in self.layers:
                x = layer(x, memory, src_mask, tgt_mask)
            return self.norm(x)

    class DecoderLayer(nn.Module):
        def __init__(self, size, self_attn, src_attn, feed_forward, dropout):
            super().__init__()
            self.size = size
            self.self_attn = self_attn
            self.src_attn = src_attn
            self.feed_forward = feed_forward
            self.sublayer = clones(SublayerConnection(size, dropout), 3)

        def forward(self, x, memory, src_mask, tgt_mask):
            m = memory
            x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, tgt_mask))
            x = self.sublayer[1](x, lambda x: self.src_attn(x, m, m, src_mask))
            return self.sublayer[2](x, self.feed_forward)

    def subsequent_mask(size):
        attn_shape = (1, size, size)
        subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
        return subsequent_mask == 0

    def attention(query, key, value, mask=None, dropout=None):
        d_k = query.size(-1)
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        p_attn = scores.softmax(dim=-1)
        if dropout is not None:
            p_attn = dropout(p_attn)
        return torch.matmul(p_attn, value), p_attn

    class MultiHeadedAttention(nn.Module):
        def __init__(self, h, d_model, dropout=0.1):
            super().__init__()
            assert d_model % h == 0
            self.d_k = d_model // h
            self.h = h
            self.linears = clones(nn.Linear(d_model, d_model), 4)
            self.attn = None
            self.dropout = nn.Dropout(p=dropout)

        def forward(self, query, key, value, mask=None):
            if mask is not None:
                mask = mask.unsqueeze(1)
            nbatches = query.size(0)
            query, key, value = [lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
                                 for lin, x in zip(self.linears, (query, key, value))]
            x, self.attn = attention(query, key, value, mask=mask, dropout=self.dropout)
            x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
            del query
            del key
            del value
            return self.linears[-1](x)

    class PositionwiseFeedForward(nn.Module):
        def __init__(self, d_model, d_ff, dropout=0.1):
            super().__init__()
            self.w_1 = nn.Linear(d_model, d_ff)
            self.w_2 = nn.Linear(d_ff, d_model)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            return self.w_2(self.dropout(self.w_1(x).relu()))

    class Embeddings(nn.Module):
        def __init__(self, d_model, vocab):
            super().__init__()
            self.lut = nn.Embedding(vocab, d_model)
            self.d_model = d_model

        def forward(self, x):
            return self.lut(x) * math.sqrt(self.d_model)

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout, max_len=5000):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            pe = pe.unsqueeze(0)
            self.register_buffer("pe", pe)

        def forward(self, x):
            x = x + self.pe[:, : x.size(1)].requires_grad_(False)
            return self.dropout(x)

    def make_model(src_vocab, tgt_vocab, N=6, d_model=512, d_ff=2048, h=8, dropout=0.1):
        c = copy.deepcopy
        attn = MultiHeadedAttention(h, d_model)
        ff = PositionwiseFeedForward(d_model, d_ff, dropout)
        position = PositionalEncoding(d_model, dropout, max_len=64)
        model = EncoderDecoder(
            Encoder(EncoderLayer(d_model, c(attn), c(ff), dropout), N),
            Decoder(DecoderLayer(d_model, c(attn), c(attn), c(ff), dropout), N),
            nn.Sequential(Embeddings(d_model, src_vocab), c(position)),
            nn.Sequential(Embeddings(d_model, tgt_vocab), c(position)),
            Generator(d_model, tgt_vocab))
        for p in model.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        return model

    class Batch:
        def __init__(self, src, tgt=None, pad=2):
            self.src = src
            self.src_mask = (src != pad).unsqueeze(-2)
            if tgt is not None:
                self.tgt = tgt[:, :-1]
                self.tgt_y = tgt[:, 1:]
                self.tgt_mask = self.make_std_mask(self.tgt, pad)
                self.ntokens = (self.tgt_y != pad).data.sum()

        @staticmethod
        def make_std_mask(tgt, pad):
            tgt_mask = (tgt != pad).unsqueeze(-2)
            tgt_mask = tgt_mask & subsequent_mask(tgt.size(-1)).type_as(tgt_mask.data)
            return tgt_mask

    def rate(step, model_size, factor, warmup):
        if step == 0:
            step = 1
        return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))

    class LabelSmoothing(nn.Module):
        def __init__(self, size, padding_idx, smoothing=0.0):
            super().__init__()
            self.criterion = nn.KLDivLoss(reduction="sum")
            self.padding_idx = padding_idx
            self.confidence = 1.0 - smoothing
            self.smoothing = smoothing
            self.size = size
            self.true_dist = None

        def forward(self, x, target):
            assert x.size(1) == self.size
            true_dist = x.data.clone()
            true_dist.fill_(self.smoothing / (self.size - 2))
            true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
            true_dist[:, self.padding_idx] = 0
            mask = torch.nonzero(target.data == self.padding_idx)
            if mask.dim() > 0:
                true_dist.index_fill_(0, mask.squeeze(), 0.0)
            self.true_dist = true_dist
            return self.criterion(x, true_dist.clone().detach())

    class SimpleLossCompute:
        def __init__(self, generator, criterion):
            self.generator = generator
            self.criterion = criterion

        def __call__(self, x, y, norm):
            x = self.generator(x)
            sloss = self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
            return sloss.data * norm, sloss

    V = 11
    rng = np.random.default_rng(seed)
    data_all = start.setdefault("data", rng.integers(1, V, size=(steps, 8, 10)))
    data_all[:, :, 0] = 1
    # a padded tail in the last example of each batch, so that the padding masks matter
    data_all[:, -1, -2:] = 2

    def data_gen(V, batch_size, nbatches):
        for i in range(nbatches):
            data = torch.from_numpy(data_all[i].copy())
            src = data.requires_grad_(False).clone().detach()
            tgt = data.requires_grad_(False).clone().detach()
            yield Batch(src, tgt, 0)

    criterion = LabelSmoothing(size=V, padding_idx=0, smoothing=0.1)
    model = make_model(V, V, N=2, d_model=32, d_ff=64, h=4, dropout=0.0)
    for m in model.modules():  # (make_model leaves the attention's own dropout at its 0.1 default)
        if isinstance(m, nn.Dropout):
            m.p = 0.0
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    optimizer = torch.optim.Adam(model.parameters(), lr=0.5, betas=(0.9, 0.98), eps=1e-9)
    lr_scheduler = LambdaLR(optimizer=optimizer, lr_lambda=lambda step: rate(step, model_size=32, factor=1.0,
                                                                              warmup=4))
    loss_compute = SimpleLossCompute(model.generator, criterion)
    model.train()
    for i, batch in enumerate(data_gen(V, 8, steps)):
        o = model.forward(batch.src, batch.tgt, batch.src_mask, batch.tgt_mask)
        loss, loss_node = loss_compute(o, batch.tgt_y, batch.ntokens)
        loss_node.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        lr_scheduler.step()
        out["loss"].append(float(loss / batch.ntokens))
        out["lr"].append(optimizer.param_groups[0]["lr"])
    out["ntokens"] = [int(batch.ntokens)]
    out["true_dist"] = criterion.true_dist[:3].reshape(-1).tolist()

    def greedy_decode(model, src, src_mask, max_len, start_symbol):
        memory = model.encode(src, src_mask)
        ys = torch.zeros(1, 1).fill_(start_symbol).type_as(src.data)
        for i in range(max_len - 1):
            o = model.decode(memory, src_mask, ys, subsequent_mask(ys.size(1)).type_as(src.data))
            prob = model.generator(o[:, -1])
            _, next_word = torch.max(prob, dim=1)
            next_word = next_word.data[0]
            ys = torch.cat([ys, torch.zeros(1, 1).type_as(src.data).fill_(next_word)], dim=1)
        return ys

    model.eval()
    src = torch.LongTensor([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
    max_len = src.shape[1]
    src_mask = torch.ones(1, 1, max_len)
    out["decoded"] = greedy_decode(model, src, src_mask, max_len=max_len, start_symbol=1).tolist()[0]
    out["attn_shape"] = list(model.encoder.layers[0].self_attn.attn.shape)
    return dict(out=dict(out), init=start)
