"""nanoGPT idioms gpt_char.py does not reach: a @dataclass GPTConfig, crop_block_size (a Parameter
re-made from a slice, the causal-mask buffers replaced by slices), estimate_mfu, torch.compile with
the '_orig_mod.' prefix stripped on resume, the train.py checkpoint dict (model_args, iter_num,
best_val_loss as a 0-d tensor) saved and resumed, get_batch from an np.memmap indexed by
torch.randint, f-string formatting of 0-d tensors, and a CPU bfloat16 autocast context."""
import inspect
import math
import os
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np


@dataclass
class GPTConfig:
    block_size: int = 32
    vocab_size: int = 16
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    dropout: float = 0.0
    bias: bool = True


def build(torch):
    nn = torch.nn
    F = nn.functional

    class LayerNorm(nn.Module):
        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            self.dropout = config.dropout
            self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention') and False
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, 1, config.block_size, config.block_size))

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
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x

    class GPT(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        def get_num_params(self, non_embedding=True):
            n_params = sum(p.numel() for p in self.parameters())
            if non_embedding:
                n_params -= self.transformer.wpe.weight.numel()
            return n_params

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            assert t <= self.config.block_size, f"Cannot forward sequence of length {t}"
            pos = torch.arange(0, t, dtype=torch.long, device=device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            else:
                logits = self.lm_head(x[:, [-1], :])
                loss = None
            return logits, loss

        def crop_block_size(self, block_size):
            assert block_size <= self.config.block_size
            self.config.block_size = block_size
            self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
            for block in self.transformer.h:
                if hasattr(block.attn, 'bias'):
                    block.attn.bias = block.attn.bias[:, :, :block_size, :block_size]

        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            param_dict = {pn: p for pn, p in self.named_parameters()}
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [{'params': decay_params, 'weight_decay': weight_decay},
                            {'params': nodecay_params, 'weight_decay': 0.0}]
            self.num_decay = (len(decay_params), sum(p.numel() for p in decay_params))
            fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and device_type == 'cuda'
            extra_args = dict(fused=True) if use_fused else dict()
            return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)

        def estimate_mfu(self, fwdbwd_per_iter, dt):
            N = self.get_num_params()
            cfg = self.config
            L, H, Q, T = cfg.n_layer, cfg.n_head, cfg.n_embd // cfg.n_head, cfg.block_size
            flops_per_token = 6 * N + 12 * L * H * Q * T
            flops_per_fwdbwd = flops_per_token * T
            flops_per_iter = flops_per_fwdbwd * fwdbwd_per_iter
            flops_achieved = flops_per_iter * (1.0 / dt)
            flops_promised = 312e12
            return flops_achieved / flops_promised

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float('Inf')
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.argmax(probs, dim=-1, keepdim=True)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    return GPT


def run(torch, init=None, seed=1337, max_iters=8, resume_at=4, compile=True, autocast=False, workdir=None):
    GPT = build(torch)
    workdir = workdir or tempfile.mkdtemp()
    os.makedirs(workdir, exist_ok=True)
    rng = np.random.default_rng(0)
    data = (np.arange(3000) * 7 % 13 + rng.integers(0, 2, 3000)).astype(np.uint16)
    data.tofile(os.path.join(workdir, 'train.bin'))
    batch_size, block_size = 8, 16
    device, device_type = 'cpu', 'cpu'
    dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float32'
    if autocast:
        dtype = 'bfloat16'
    ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
    ctx = nullcontext() if dtype == 'float32' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
    torch.manual_seed(seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    batch_gen = np.random.default_rng(seed)

    def get_batch(split):
        data = np.memmap(os.path.join(workdir, 'train.bin'), dtype=np.uint16, mode='r')
        ix = torch.from_numpy(batch_gen.integers(0, len(data) - block_size, (batch_size,)))
        x = torch.stack([torch.from_numpy((data[i:i + block_size]).astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy((data[i + 1:i + 1 + block_size]).astype(np.int64)) for i in ix])
        return x.to(device), y.to(device)

    model_args = dict(n_layer=2, n_head=2, n_embd=32, block_size=32, bias=True, vocab_size=16, dropout=0.0)
    model = GPT(GPTConfig(**model_args))
    start = {} if init is None else init
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    if block_size < model.config.block_size:
        model.crop_block_size(block_size)
        model_args['block_size'] = block_size
    cropped = (tuple(model.transformer.wpe.weight.shape), tuple(model.transformer.h[0].attn.bias.shape),
               type(model.transformer.wpe.weight).__name__)
    scaler = torch.amp.GradScaler(device_type, enabled=(dtype == 'float16'))
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.95), device_type)
    if compile:
        unoptimized_model = model  # noqa: F841
        model = torch.compile(model)
    raw_model = model
    losses, lines = [], []
    best_val_loss = 1e9
    iter_num = 0
    ckpt_path = os.path.join(workdir, 'ckpt.pt')

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ['train', 'val']:
            losses = torch.zeros(2)
            for k in range(2):
                X, Y = get_batch(split)
                with ctx:
                    logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    def train_until(stop):
        nonlocal iter_num, best_val_loss
        X, Y = get_batch('train')
        while iter_num < stop:
            if iter_num % 2 == 0:
                ls = estimate_loss()
                lines.append(f"step {iter_num}: train loss {ls['train']:.4f}, val loss {ls['val']:.4f}")
                if ls['val'] < best_val_loss:
                    best_val_loss = ls['val']
                    checkpoint = {'model': raw_model.state_dict(), 'optimizer': optimizer.state_dict(),
                                  'model_args': model_args, 'iter_num': iter_num, 'best_val_loss': best_val_loss,
                                  'config': {'batch_size': batch_size, 'dtype': dtype}}
                    torch.save(checkpoint, ckpt_path)
            with ctx:
                logits, loss = model(X, Y)
            X, Y = get_batch('train')
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            lossf = loss.item()
            losses.append(lossf)
            mfu = raw_model.estimate_mfu(batch_size, 0.01)
            lines.append(f"iter {iter_num}: loss {lossf:.4f}, mfu {mfu * 100:.2f}%")
            iter_num += 1

    train_until(resume_at)
    # init_from == 'resume'
    checkpoint = torch.load(ckpt_path, map_location=device)
    checkpoint_model_args = checkpoint['model_args']
    for k in ['n_layer', 'n_head', 'n_embd', 'block_size', 'bias', 'vocab_size']:
        model_args[k] = checkpoint_model_args[k]
    gptconf = GPTConfig(**model_args)
    model = GPT(gptconf)
    state_dict = checkpoint['model']
    unwanted_prefix = '_orig_mod.'
    for k, v in list(state_dict.items()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
    iter_num = checkpoint['iter_num']
    best_val_loss = checkpoint['best_val_loss']
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.95), device_type)
    optimizer.load_state_dict(checkpoint['optimizer'])
    checkpoint = None
    raw_model = model
    train_until(max_iters)
    sample = raw_model.generate(torch.zeros((1, 1), dtype=torch.long), 10)[0].tolist()
    return dict(init=start, losses=losses, lines=lines, cropped=cropped, resumed_iter=iter_num,
                best=float(best_val_loss), sample=sample, num_decay=model.num_decay)
