"""Training-step speed of three user-style models beside PyTorch (issue 13 item 6).

    python bench/bench_models.py [--quick] [--no-graph]

Models (same shapes in both frameworks, synthetic data):
  - GPT: 4 layers, 4 heads, width 128, context 64, batch 16, vocab 65, AdamW
  - word LM: embedding 200, 2-layer LSTM hidden 200, tied decoder, vocab 10000,
    bptt 35, batch 20, clip_grad_norm_ + manual SGD (the word_language_model loop)
  - VAE: 784-400-20, batch 128, BCE + KLD, Adam
Each runs eager and, for monoflow, in nn.Graph (forward + backward + optimizer
compiled once) where the graph accepts the model. Thread settings: both
frameworks' defaults, 1 thread each, 2 threads each; each setting runs in its
own process (thread counts are fixed at import), and inside it monoflow and
torch steps are timed interleaved, round by round, so that load on a shared
machine hits both alike. Printed: median ms per step and torch/monoflow
(> 1 means monoflow is faster).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

GPT = dict(n_layer=4, n_head=4, n_embd=128, block=64, batch=16, vocab=65)
LM = dict(vocab=10000, emsize=200, nhid=200, nlayers=2, bptt=35, batch=20)
VAE_BATCH = 128


# ------------------------------------------------------------ models (written once, for either framework)

def gpt_model(lib):
    nn, F = lib.nn, lib.nn.functional
    c = GPT

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(c["n_embd"]), nn.LayerNorm(c["n_embd"])
            self.c_attn = nn.Linear(c["n_embd"], 3 * c["n_embd"])
            self.c_proj = nn.Linear(c["n_embd"], c["n_embd"])
            self.fc = nn.Linear(c["n_embd"], 4 * c["n_embd"])
            self.proj = nn.Linear(4 * c["n_embd"], c["n_embd"])

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, c["n_head"], C // c["n_head"]).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.proj(F.gelu(self.fc(self.ln_2(x))))

    class GPTModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(c["vocab"], c["n_embd"])
            self.wpe = nn.Embedding(c["block"], c["n_embd"])
            self.h = nn.ModuleList([Block() for _ in range(c["n_layer"])])
            self.ln_f = nn.LayerNorm(c["n_embd"])
            self.lm_head = nn.Linear(c["n_embd"], c["vocab"], bias=False)
            self.wte.weight = self.lm_head.weight

        def forward(self, idx, targets):
            pos = lib.arange(idx.shape[1])
            x = self.wte(idx) + self.wpe(pos)
            for b in self.h:
                x = b(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return GPTModel()


def lm_model(lib):
    nn, F = lib.nn, lib.nn.functional
    c = LM

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(c["vocab"], c["emsize"])
            self.rnn = nn.LSTM(c["emsize"], c["nhid"], c["nlayers"], dropout=0.2)
            self.drop = nn.Dropout(0.2)
            self.decoder = nn.Linear(c["nhid"], c["vocab"])
            self.decoder.weight = self.encoder.weight

        def forward(self, x, hidden, targets):
            out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
            logp = F.log_softmax(self.decoder(self.drop(out)).view(-1, c["vocab"]), dim=1)
            return F.nll_loss(logp, targets), hidden

    return RNNModel()


def vae_model(lib):
    nn, F = lib.nn, lib.nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc21, self.fc22 = nn.Linear(784, 400), nn.Linear(400, 20), nn.Linear(400, 20)
            self.fc3, self.fc4 = nn.Linear(20, 400), nn.Linear(400, 784)

        def forward(self, x):
            h = F.relu(self.fc1(x))
            mu, logvar = self.fc21(h), self.fc22(h)
            z = mu + lib.randn_like(mu) * lib.exp(0.5 * logvar)
            recon = lib.sigmoid(self.fc4(F.relu(self.fc3(z))))
            bce = F.binary_cross_entropy(recon, x, reduction="sum")
            return bce - 0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return VAE()


# ------------------------------------------------------------ training steps (functions of no arguments)

def gpt_setup(lib):
    lib.manual_seed(0)
    model = gpt_model(lib)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    opt = lib.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                          lr=1e-3, betas=(0.9, 0.99))
    x = lib.randint(0, GPT["vocab"], (GPT["batch"], GPT["block"]))
    y = lib.randint(0, GPT["vocab"], (GPT["batch"], GPT["block"]))
    return model, opt, (x, y)


def gpt_eager(lib):
    model, opt, (x, y) = gpt_setup(lib)

    def step():
        loss = model(x, y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    return step


def lm_eager(lib):
    lib.manual_seed(0)
    model = lm_model(lib)
    c = LM
    x = lib.randint(0, c["vocab"], (c["bptt"], c["batch"]))
    y = lib.randint(0, c["vocab"], (c["bptt"] * c["batch"],))
    zeros = lambda: lib.zeros(c["nlayers"], c["batch"], c["nhid"])  # noqa: E731
    state = {"hidden": (zeros(), zeros())}

    def step():
        hidden = tuple(h.detach() for h in state["hidden"])
        model.zero_grad()
        loss, state["hidden"] = model(x, hidden, y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-20.0)
        return loss
    return step


def vae_setup(lib):
    lib.manual_seed(0)
    model = vae_model(lib)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    return model, opt, lib.rand(VAE_BATCH, 784)


def vae_eager(lib):
    model, opt, x = vae_setup(lib)

    def step():
        opt.zero_grad()
        loss = model(x)
        loss.backward()
        opt.step()
        return loss
    return step


def graph_step(flow, setup):
    """The same step compiled in nn.Graph (forward, backward, optimizer)."""
    model, opt, inputs = setup(flow)
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)

    class TrainGraph(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(opt)

        def build(self, *xs):
            loss = self.model(*xs)
            loss.backward()
            return loss

    g = TrainGraph()
    return lambda: g(*inputs)


MODELS = {
    "GPT 4x128 ctx64 b16 (AdamW)": (gpt_eager, gpt_setup),
    "LSTM LM 2x200 bptt35 b20 (SGD)": (lm_eager, None),
    "VAE 784-400-20 b128 (Adam)": (vae_eager, vae_setup),
}


# ------------------------------------------------------------ timing (one process per thread setting)

def interleaved(fns, rounds, per_round):
    """Median seconds per call of each fn, timing the fns in turn within each round."""
    times = {k: [] for k in fns}
    for fn, sync in fns.values():  # warm-up: caches, graph compilation
        for _ in range(2):
            fn()
        sync()
    for _ in range(rounds):
        for k, (fn, sync) in fns.items():
            t0 = time.perf_counter()
            for _ in range(per_round):
                out = fn()
            float(out.detach())  # the loss: forces the step to finish in both frameworks
            sync()
            times[k].append((time.perf_counter() - t0) / per_round)
    return {k: statistics.median(v) for k, v in times.items()}


def worker(args):
    import monoflow as flow
    import torch
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    rows = []
    for name, (eager, setup) in MODELS.items():
        fns = {"monoflow": (eager(flow), flow.synchronize), "torch": (eager(torch), lambda: None)}
        graph_note = "n/a"
        if setup is not None and not args.no_graph:
            try:
                fns["graph"] = (graph_step(flow, setup), flow.synchronize)
            except Exception as e:  # noqa: BLE001 - reported, not hidden
                graph_note = f"graph failed: {type(e).__name__}: {str(e)[:60]}"
        try:
            t = interleaved(fns, args.rounds, args.per_round)
        except Exception as e:  # noqa: BLE001
            if "graph" not in fns:
                raise
            graph_note = f"graph failed: {type(e).__name__}: {str(e)[:60]}"
            fns.pop("graph")
            t = interleaved(fns, args.rounds, args.per_round)
        rows.append({"model": name, "monoflow": t["monoflow"], "torch": t["torch"], "graph": t.get("graph"),
                     "note": graph_note if "graph" not in t else "",
                     "threads": f"mf {os.environ.get('MONOFLOW_NUM_THREADS', 'dflt')}/pt {torch.get_num_threads()}"})
    print(json.dumps(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-graph", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--torch-threads", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--per-round", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    rounds, per_round = (3, 2) if args.quick else (7, 3)
    settings = [("defaults", None), ("1 thread", 1), ("2 threads", 2)]
    print(f"{'model (ms per training step)':<34}{'threads':>18}{'monoflow':>10}{'torch':>10}{'vs torch':>10}"
          f"{'graph':>10}{'vs torch':>10}")
    for label, n in settings:
        env = dict(os.environ)
        env.pop("MONOFLOW_NUM_THREADS", None)
        if n:
            env["MONOFLOW_NUM_THREADS"] = str(n)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--rounds", str(rounds),
               "--per-round", str(per_round), "--torch-threads", str(n or 0)] + (["--no-graph"] if args.no_graph else [])
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode:
            print(f"[{label}] worker failed:\n{out.stderr[-2000:]}")
            continue
        for r in json.loads(out.stdout.strip().splitlines()[-1]):
            mf, t, g = r["monoflow"] * 1e3, r["torch"] * 1e3, r["graph"]
            gcol = f"{g * 1e3:>10.2f}{t / (g * 1e3):>10.2f}" if g else f"  {r['note']}"
            print(f"{r['model']:<34}{label + ' (' + r['threads'] + ')':>18}{mf:>10.2f}{t:>10.2f}{t / mf:>10.2f}{gcol}",
                  flush=True)


if __name__ == "__main__":
    main()
