"""minGPT (karpathy/minGPT) in small: CfgNode config, GPT with nn.ModuleDict/ModuleList, NewGELU,
a causal mask buffer, _init_weights via apply, c_proj scaled init, configure_optimizers by module
type (named_modules/named_parameters, decay/no_decay sets), a Trainer with callbacks and an
infinite RandomSampler(replacement=True), clip_grad_norm_, generate with top_k and multinomial,
on the sort task of minGPT's demo."""
import math
import time
from collections import defaultdict

import numpy as np


class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __str__(self):
        return self._str_helper(0)

    def _str_helper(self, indent):
        parts = []
        for k, v in self.__dict__.items():
            if isinstance(v, CfgNode):
                parts.append("%s:\n" % k)
                parts.append(v._str_helper(indent + 1))
            else:
                parts.append("%s: %s\n" % (k, v))
        parts = [' ' * (indent * 4) + p for p in parts]
        return "".join(parts)

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items()}

    def merge_from_dict(self, d):
        self.__dict__.update(d)


def build(torch):
    nn = torch.nn
    F = nn.functional

    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd)
            self.attn_dropout = nn.Dropout(config.attn_pdrop)
            self.resid_dropout = nn.Dropout(config.resid_pdrop)
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
            att = self.attn_dropout(att)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            y = self.resid_dropout(self.c_proj(y))
            return y

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = nn.ModuleDict(dict(
                c_fc=nn.Linear(config.n_embd, 4 * config.n_embd),
                c_proj=nn.Linear(4 * config.n_embd, config.n_embd),
                act=NewGELU(),
                dropout=nn.Dropout(config.resid_pdrop),
            ))
            m = self.mlp
            self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlpf(self.ln_2(x))
            return x

    class GPT(nn.Module):
        @staticmethod
        def get_default_config():
            C = CfgNode()
            C.model_type = 'gpt'
            C.n_layer = None
            C.n_head = None
            C.n_embd = None
            C.vocab_size = None
            C.block_size = None
            C.embd_pdrop = 0.1
            C.resid_pdrop = 0.1
            C.attn_pdrop = 0.1
            return C

        def __init__(self, config):
            super().__init__()
            assert config.vocab_size is not None
            assert config.block_size is not None
            self.block_size = config.block_size
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.embd_pdrop),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
            self.n_params = sum(p.numel() for p in self.transformer.parameters())

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            elif isinstance(module, nn.LayerNorm):
                torch.nn.init.zeros_(module.bias)
                torch.nn.init.ones_(module.weight)

        def configure_optimizers(self, train_config):
            decay = set()
            no_decay = set()
            whitelist_weight_modules = (torch.nn.Linear, )
            blacklist_weight_modules = (torch.nn.LayerNorm, torch.nn.Embedding)
            for mn, m in self.named_modules():
                for pn, p in m.named_parameters():
                    fpn = '%s.%s' % (mn, pn) if mn else pn
                    if pn.endswith('bias'):
                        no_decay.add(fpn)
                    elif pn.endswith('weight') and isinstance(m, whitelist_weight_modules):
                        decay.add(fpn)
                    elif pn.endswith('weight') and isinstance(m, blacklist_weight_modules):
                        no_decay.add(fpn)
            param_dict = {pn: p for pn, p in self.named_parameters()}
            inter_params = decay & no_decay
            union_params = decay | no_decay
            assert len(inter_params) == 0
            assert len(param_dict.keys() - union_params) == 0, str(param_dict.keys() - union_params)
            optim_groups = [
                {"params": [param_dict[pn] for pn in sorted(list(decay))], "weight_decay": train_config.weight_decay},
                {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
            ]
            return torch.optim.AdamW(optim_groups, lr=train_config.learning_rate, betas=train_config.betas)

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
            pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0)
            tok_emb = self.transformer.wte(idx)
            pos_emb = self.transformer.wpe(pos)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
                logits, _ = self(idx_cond)
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

    return GPT


def dataset_class(torch):
    Dataset = torch.utils.data.Dataset

    class SortDataset(Dataset):
        def __init__(self, split, length=6, num_digits=3, n=64, seed=0):
            assert split in {'train', 'test'}
            self.split = split
            self.length = length
            self.num_digits = num_digits
            rng = np.random.default_rng(seed + (split == 'test'))
            self.data = rng.integers(0, num_digits, (n, length))

        def __len__(self):
            return len(self.data)

        def get_vocab_size(self):
            return self.num_digits

        def get_block_size(self):
            return self.length * 2 - 1

        def __getitem__(self, idx):
            inp = torch.from_numpy(self.data[idx].copy()).long()
            sol = torch.sort(inp)[0]
            cat = torch.cat((inp, sol), dim=0)
            x = cat[:-1].clone()
            y = cat[1:].clone()
            y[:self.length - 1] = -1
            return x, y

    return SortDataset


def trainer_class(torch):
    DataLoader = torch.utils.data.dataloader.DataLoader

    class Trainer:
        @staticmethod
        def get_default_config():
            C = CfgNode()
            C.device = 'auto'
            C.num_workers = 0
            C.max_iters = None
            C.batch_size = 64
            C.learning_rate = 3e-4
            C.betas = (0.9, 0.95)
            C.weight_decay = 0.1
            C.grad_norm_clip = 1.0
            C.random_sampling = True
            return C

        def __init__(self, config, model, train_dataset):
            self.config = config
            self.model = model
            self.optimizer = None
            self.train_dataset = train_dataset
            self.callbacks = defaultdict(list)
            if config.device == 'auto':
                self.device = 'cuda' if torch.cuda.is_available() else 'cpu'
            else:
                self.device = config.device
            self.model = self.model.to(self.device)
            self.iter_num = 0
            self.iter_time = 0.0
            self.iter_dt = 0.0

        def add_callback(self, onevent, callback):
            self.callbacks[onevent].append(callback)

        def trigger_callbacks(self, onevent):
            for callback in self.callbacks.get(onevent, []):
                callback(self)

        def run(self):
            model, config = self.model, self.config
            self.optimizer = model.configure_optimizers(config)
            if config.random_sampling:
                sampler = torch.utils.data.RandomSampler(self.train_dataset, replacement=True, num_samples=int(1e10))
            else:
                sampler = torch.utils.data.SequentialSampler(self.train_dataset)
            train_loader = DataLoader(self.train_dataset, sampler=sampler, shuffle=False, pin_memory=True,
                                      batch_size=config.batch_size, num_workers=config.num_workers)
            model.train()
            self.iter_num = 0
            self.iter_time = time.time()
            data_iter = iter(train_loader)
            while True:
                try:
                    batch = next(data_iter)
                except StopIteration:
                    data_iter = iter(train_loader)
                    batch = next(data_iter)
                batch = [t.to(self.device) for t in batch]
                x, y = batch
                logits, self.loss = model(x, y)
                model.zero_grad(set_to_none=True)
                self.loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
                self.optimizer.step()
                self.trigger_callbacks('on_batch_end')
                self.iter_num += 1
                tnow = time.time()
                self.iter_dt = tnow - self.iter_time
                self.iter_time = tnow
                if config.max_iters is not None and self.iter_num >= config.max_iters:
                    break

    return Trainer


def run(torch, init=None, seed=3407, iters=20, dropout=0.0, random_sampling=False):
    torch.manual_seed(seed)
    GPT = build(torch)
    SortDataset = dataset_class(torch)
    Trainer = trainer_class(torch)
    train_dataset = SortDataset('train')
    test_dataset = SortDataset('test')
    x, y = train_dataset[0]
    model_config = GPT.get_default_config()
    model_config.model_type = None
    model_config.n_layer, model_config.n_head, model_config.n_embd = 2, 2, 32
    model_config.vocab_size = train_dataset.get_vocab_size()
    model_config.block_size = train_dataset.get_block_size()
    model_config.embd_pdrop = model_config.resid_pdrop = model_config.attn_pdrop = dropout
    model = GPT(model_config)
    start = {} if init is None else init
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    train_config = Trainer.get_default_config()
    train_config.learning_rate = 5e-3
    train_config.max_iters = iters
    train_config.num_workers = 0
    train_config.batch_size = 16
    train_config.random_sampling = random_sampling
    trainer = Trainer(train_config, model, train_dataset)
    losses = []

    def batch_end_callback(trainer):
        losses.append(trainer.loss.item())
    trainer.add_callback('on_batch_end', batch_end_callback)
    trainer.run()
    model.eval()
    n = train_dataset.length
    inp = torch.tensor([[0, 0, 2, 1, 0, 1]], dtype=torch.long)
    with torch.no_grad():
        cat = model.generate(inp, n, do_sample=False)
        cat_top = model.generate(inp, n, do_sample=True, top_k=2)
    return dict(init=start, losses=losses, sol=cat[:, n:].tolist(), sampled_shape=tuple(cat_top.shape),
                n_params=model.n_params, cfg=str(model_config).count("\n"), xy=(x.tolist(), y.tolist()))
