"""pytorch/examples language_translation in small: Seq2SeqTransformer over nn.Transformer with
PositionalEncoding (register_buffer), TokenEmbedding * sqrt(d), generate_square_subsequent_mask,
create_mask with padding masks, CrossEntropyLoss(ignore_index=PAD), pad_sequence collate,
greedy_decode."""
import math
import numpy as np

PAD_IDX, BOS_IDX, EOS_IDX = 1, 2, 3


def make_pairs(n, vocab, seed):
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        L = int(rng.integers(3, 8))
        src = rng.integers(4, vocab, L).tolist()
        tgt = [4 + (vocab - 5 - (t - 4)) for t in reversed(src)]  # reverse + mirror
        pairs.append((src, tgt))
    return pairs


def run(torch, init=None, seed=0, epochs=3, dropout=0.0, emb=32, nhead=4, ffn=64, vocab=16, batch_first=False):
    nn = torch.nn
    from torch import Tensor  # noqa: F401 (the scripts annotate with it)
    pad_sequence = torch.nn.utils.rnn.pad_sequence
    torch.manual_seed(seed)
    DEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    class PositionalEncoding(nn.Module):
        def __init__(self, emb_size, dropout, maxlen=5000):
            super().__init__()
            den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
            pos = torch.arange(0, maxlen).reshape(maxlen, 1)
            pos_embedding = torch.zeros((maxlen, emb_size))
            pos_embedding[:, 0::2] = torch.sin(pos * den)
            pos_embedding[:, 1::2] = torch.cos(pos * den)
            pos_embedding = pos_embedding.unsqueeze(-2)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer('pos_embedding', pos_embedding)

        def forward(self, token_embedding):
            return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])

    class TokenEmbedding(nn.Module):
        def __init__(self, vocab_size, emb_size):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, emb_size)
            self.emb_size = emb_size

        def forward(self, tokens):
            return self.embedding(tokens.long()) * math.sqrt(self.emb_size)

    class Seq2SeqTransformer(nn.Module):
        def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size, tgt_vocab_size,
                     dim_feedforward=512, dropout=0.1):
            super().__init__()
            self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=num_encoder_layers,
                                              num_decoder_layers=num_decoder_layers, dim_feedforward=dim_feedforward,
                                              dropout=dropout)
            self.generator = nn.Linear(emb_size, tgt_vocab_size)
            self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
            self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
            self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

        def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
            src_emb = self.positional_encoding(self.src_tok_emb(src))
            tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
            outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                    src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
            return self.generator(outs)

        def encode(self, src, src_mask):
            return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

        def decode(self, tgt, memory, tgt_mask):
            return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)

    def generate_square_subsequent_mask(sz):
        mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
        return mask

    def create_mask(src, tgt):
        src_seq_len = src.shape[0]
        tgt_seq_len = tgt.shape[0]
        tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
        src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)
        src_padding_mask = (src == PAD_IDX).transpose(0, 1)
        tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
        return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask

    def tensor_transform(token_ids):
        return torch.cat((torch.tensor([BOS_IDX]), torch.tensor(token_ids), torch.tensor([EOS_IDX])))

    def collate_fn(batch):
        src_batch, tgt_batch = [], []
        for src_sample, tgt_sample in batch:
            src_batch.append(tensor_transform(src_sample))
            tgt_batch.append(tensor_transform(tgt_sample))
        src_batch = pad_sequence(src_batch, padding_value=PAD_IDX)
        tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX)
        return src_batch, tgt_batch

    transformer = Seq2SeqTransformer(2, 2, emb, nhead, vocab, vocab, ffn, dropout)
    for p in transformer.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    start = {} if init is None else init
    if "model" in start:
        transformer.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in transformer.state_dict().items()}
    transformer = transformer.to(DEVICE)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    optimizer = torch.optim.Adam(transformer.parameters(), lr=0.001, betas=(0.9, 0.98), eps=1e-9)
    train_iter = make_pairs(48, vocab, seed + 1)
    losses = []
    for epoch in range(1, epochs + 1):
        transformer.train()
        train_dataloader = torch.utils.data.DataLoader(train_iter, batch_size=8, collate_fn=collate_fn)
        total = 0.0
        for src, tgt in train_dataloader:
            src = src.to(DEVICE)
            tgt = tgt.to(DEVICE)
            tgt_input = tgt[:-1, :]
            src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
            logits = transformer(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                                 src_padding_mask)
            optimizer.zero_grad()
            tgt_out = tgt[1:, :]
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            loss.backward()
            optimizer.step()
            total += loss.item()
            losses.append(loss.item())

    def greedy_decode(model, src, src_mask, max_len, start_symbol):
        src = src.to(DEVICE)
        src_mask = src_mask.to(DEVICE)
        memory = model.encode(src, src_mask)
        ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
        for i in range(max_len - 1):
            memory = memory.to(DEVICE)
            tgt_mask = (generate_square_subsequent_mask(ys.size(0)).type(torch.bool)).to(DEVICE)
            out = model.decode(ys, memory, tgt_mask)
            out = out.transpose(0, 1)
            prob = model.generator(out[:, -1])
            _, next_word = torch.max(prob, dim=1)
            next_word = next_word.item()
            ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
            if next_word == EOS_IDX:
                break
        return ys

    transformer.eval()
    src = tensor_transform(train_iter[0][0]).view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    tgt_tokens = greedy_decode(transformer, src, src_mask, max_len=num_tokens + 5, start_symbol=BOS_IDX).flatten()
    return dict(init=start, losses=losses, decoded=tgt_tokens.tolist())
