"""Source: pytorch/tutorials beginner_source/basics (quickstart, autogradqs, optimization, saveloadrun)
and recipes_source (saving_and_loading_a_general_checkpoint, warmstarting_model_using_parameters_
from_a_different_model, zeroing_out_gradients, amp_recipe, profiler_recipe) and the learning-rate
scheduler docs, in small on synthetic FashionMNIST-shaped data (numpy, the same for every framework).

quickstart: NeuralNetwork(Flatten + Linear/ReLU stack), train/test loops over DataLoaders with
size = len(dataloader.dataset), (pred.argmax(1) == y).type(torch.float).sum().item(), the
state_dict saved and loaded with weights_only=True; autograd: binary_cross_entropy_with_logits,
grad_fn, detach, requires_grad under no_grad, out.backward(torch.ones_like(out), retain_graph=True);
checkpoint: a dict of epoch/model/optimizer state/loss saved, loaded into a fresh model and
optimizer (momentum buffers), training resumed; warmstart: load_state_dict(strict=False) into a
bigger model; amp: autocast(device_type, dtype, enabled=False) + amp.GradScaler(enabled=False),
zero_grad(set_to_none=True); schedulers: OneCycleLR, CosineAnnealingWarmRestarts,
ReduceLROnPlateau, SequentialLR(LinearLR, ExponentialLR), MultiStepLR, CyclicLR; profiler:
profile(activities=[ProfilerActivity.CPU], record_shapes=True) + record_function + key_averages().

run(torch, init=None) -> dict(losses={stage: [...]}, ..., init=...)."""
import os
import tempfile
from collections import defaultdict

import numpy as np

from . import same_start


def run(torch, init=None, seed=0):
    nn = torch.nn
    DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
    torch.manual_seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)
    rng = np.random.default_rng(seed)
    protos = rng.random((10, 28, 28)).astype(np.float32)
    yy = rng.integers(0, 10, 192)
    imgs = np.clip(protos[yy] + 0.3 * rng.standard_normal((192, 28, 28)).astype(np.float32), 0, 1)
    training_data = TensorDataset(torch.from_numpy(imgs[:128, None]), torch.from_numpy(yy[:128]))
    test_data = TensorDataset(torch.from_numpy(imgs[128:, None]), torch.from_numpy(yy[128:]))
    batch_size = 32
    train_dataloader = DataLoader(training_data, batch_size=batch_size)
    test_dataloader = DataLoader(test_data, batch_size=batch_size)
    for X, y in test_dataloader:
        out["shapes"] = [list(X.shape), str(y.dtype).split(".")[-1]]
        break

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28 * 28, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    model = same_start(torch, start, "quick", NeuralNetwork().to(device))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)

    def train(dataloader, model, loss_fn, optimizer, key):
        size = len(dataloader.dataset)
        model.train()
        for batch, (X, y) in enumerate(dataloader):
            X, y = X.to(device), y.to(device)
            pred = model(X)
            loss = loss_fn(pred, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss, current = loss.item(), (batch + 1) * len(X)
            out[key].append(loss)
            out["lines"].append(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

    def test(dataloader, model, loss_fn, key):
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                X, y = X.to(device), y.to(device)
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        test_loss /= num_batches
        correct /= size
        out[key].append(test_loss)
        out[key + "_acc"].append(correct)

    for t in range(3):
        train(train_dataloader, model, loss_fn, optimizer, "quick")
        test(test_dataloader, model, loss_fn, "quick_test")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.pth")
        torch.save(model.state_dict(), path)
        model2 = NeuralNetwork().to(device)
        model2.load_state_dict(torch.load(path, weights_only=True))
        model2.eval()
        with torch.no_grad():
            x, y = test_data[0][0], test_data[0][1]
            pred = model2(x.to(device))
            out["predicted"] = [int(pred[0].argmax(0)), int(y)]

        # ---- autograd tutorial
        x = torch.ones(5)
        y = torch.zeros(3)
        w = torch.tensor(start.setdefault("ag_w", rng.standard_normal((5, 3)).astype(np.float32)), requires_grad=True)
        b = torch.tensor(start.setdefault("ag_b", rng.standard_normal(3).astype(np.float32)), requires_grad=True)
        z = torch.matmul(x, w) + b
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        out["grad_fn"] = [type(z.grad_fn).__name__ != "NoneType", loss.grad_fn is not None]
        loss.backward()
        out["ag_grads"] = w.grad.reshape(-1).tolist() + b.grad.tolist()
        with torch.no_grad():
            z = torch.matmul(x, w) + b
        out["ag_flags"] = [z.requires_grad, (torch.matmul(x, w) + b).detach().requires_grad]
        inp = torch.eye(4, 5, requires_grad=True)
        o = (inp + 1).pow(2).t()
        o.backward(torch.ones_like(o), retain_graph=True)
        first = inp.grad.clone()
        o.backward(torch.ones_like(o), retain_graph=True)
        second = inp.grad.clone()
        inp.grad.zero_()
        o.backward(torch.ones_like(o), retain_graph=True)
        out["ag_jvp"] = [first.sum().item(), second.sum().item(), inp.grad.sum().item()]

        # ---- general checkpoint: train, save, resume into fresh objects
        net = same_start(torch, start, "ckpt", nn.Sequential(nn.Flatten(), nn.Linear(784, 32), nn.Tanh(),
                                                              nn.Linear(32, 10)))
        opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        X, Y = training_data.tensors
        for epoch in range(4):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(X), Y)
            loss.backward()
            opt.step()
            out["ckpt"].append(loss.item())
        cpath = os.path.join(d, "model.pt")
        torch.save({"epoch": epoch, "model_state_dict": net.state_dict(), "optimizer_state_dict": opt.state_dict(),
                    "loss": loss}, cpath)
        net2 = nn.Sequential(nn.Flatten(), nn.Linear(784, 32), nn.Tanh(), nn.Linear(32, 10))
        opt2 = torch.optim.SGD(net2.parameters(), lr=0.5, momentum=0.1)
        checkpoint = torch.load(cpath, weights_only=True)
        net2.load_state_dict(checkpoint["model_state_dict"])
        opt2.load_state_dict(checkpoint["optimizer_state_dict"])
        out["ckpt_meta"] = [checkpoint["epoch"], round(checkpoint["loss"].item(), 4), opt2.param_groups[0]["lr"]]
        net2.train()
        for _ in range(3):
            opt2.zero_grad()
            loss = loss_fn(net2(X), Y)
            loss.backward()
            opt2.step()
            out["ckpt"].append(loss.item())

        # ---- warmstart: a partial state_dict into another model
        class NetB(nn.Module):
            def __init__(self):
                super().__init__()
                self.flat = nn.Flatten()
                self.fc1 = nn.Linear(784, 32)
                self.fc2 = nn.Linear(32, 10)
                self.fc3 = nn.Linear(10, 10)

            def forward(self, x):
                return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(self.flat(x))))))

        netB = same_start(torch, start, "warmB", NetB())
        sd = {"fc1.weight": net2[1].weight.detach(), "fc1.bias": net2[1].bias.detach(), "extra.weight": torch.ones(2)}
        res = netB.load_state_dict(sd, strict=False)
        out["warm_keys"] = [sorted(res.missing_keys), sorted(res.unexpected_keys)]
        out["warm_equal"] = [bool(torch.equal(netB.fc1.weight, net2[1].weight))]

    # ---- AMP recipe on the CPU (disabled autocast and scaler, as the recipe's use_amp=False path)
    use_amp = False
    amp_net = same_start(torch, start, "amp", nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10)))
    opt = torch.optim.SGD(amp_net.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
    Xf = training_data.tensors[0].flatten(1)
    for epoch in range(3):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=use_amp):
            output = amp_net(Xf)
            loss = loss_fn(output, Y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(amp_net.parameters(), max_norm=1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        out["amp"].append(loss.item())
    out["amp_dtype"] = [str(output.dtype).split(".")[-1], scaler.is_enabled(), scaler.get_scale()]
    checkpoint = {"model": amp_net.state_dict(), "optimizer": opt.state_dict(), "scaler": scaler.state_dict()}
    scaler.load_state_dict(checkpoint["scaler"])

    # ---- learning-rate schedulers: the lr each step
    def lrs(make, steps=12, metric=None):
        p = nn.Parameter(torch.zeros(1))
        o = torch.optim.SGD([p], lr=0.1, momentum=0.9)
        s = make(o)
        vals = []
        for i in range(steps):
            o.step()
            if metric is None:
                s.step()
            else:
                s.step(metric[i])
            vals.append(o.param_groups[0]["lr"])
        return vals

    sch = torch.optim.lr_scheduler
    out["lr_onecycle"] = lrs(lambda o: sch.OneCycleLR(o, max_lr=0.5, total_steps=13))
    out["lr_warm_restarts"] = lrs(lambda o: sch.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001))
    out["lr_plateau"] = lrs(lambda o: sch.ReduceLROnPlateau(o, "min", factor=0.5, patience=1),
                            metric=[1.0, 0.9, 0.9, 0.9, 0.9, 0.8, 0.85, 0.85, 0.85, 0.7, 0.7, 0.7])
    out["lr_sequential"] = lrs(lambda o: sch.SequentialLR(o, [sch.LinearLR(o, start_factor=0.1, total_iters=4),
                                                              sch.ExponentialLR(o, gamma=0.9)], milestones=[4]))
    out["lr_multistep"] = lrs(lambda o: sch.MultiStepLR(o, milestones=[3, 7], gamma=0.1))
    out["lr_cyclic"] = lrs(lambda o: sch.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"))
    out["lr_chained"] = lrs(lambda o: sch.ChainedScheduler([sch.ConstantLR(o, factor=0.5, total_iters=3),
                                                            sch.ExponentialLR(o, gamma=0.9)]))
    out["lr_poly"] = lrs(lambda o: sch.PolynomialLR(o, total_iters=8, power=2.0))

    # ---- profiler recipe
    profile, record_function, ProfilerActivity = (torch.profiler.profile, torch.profiler.record_function,
                                                  torch.profiler.ProfilerActivity)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(training_data.tensors[0][:4].to(device))
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    out["profile"] = ["model_inference" in table, len(prof.key_averages()) > 0]
    by_shape = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
    out["profile"].append(isinstance(by_shape, str))
    return dict(out=dict(out), init=start)
