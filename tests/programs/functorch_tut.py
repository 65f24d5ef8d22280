"""Source: pytorch/tutorials intermediate_source/jacobians_hessians.py and ensembling.py (torch.func),
plus activation checkpointing (torch.utils.checkpoint, use_reentrant=False) and the
autograd saved-tensor hooks tutorial, in small.

run(torch, init=None) -> dict(out={...}, init=...)."""
import copy
from collections import defaultdict

import numpy as np


def run(torch, init=None, seed=0):
    F = torch.nn.functional
    from_func = torch.func
    vmap, jacrev, jacfwd, hessian = from_func.vmap, from_func.jacrev, from_func.jacfwd, from_func.hessian
    torch.manual_seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)
    rng = np.random.default_rng(seed)
    D = 8
    weight = torch.from_numpy(start.setdefault("w", rng.standard_normal((D, D)).astype(np.float32)))
    bias = torch.from_numpy(start.setdefault("b", rng.standard_normal(D).astype(np.float32)))
    x = torch.from_numpy(start.setdefault("x", rng.standard_normal(D).astype(np.float32)))

    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()

    xp = x.clone().requires_grad_()
    unit_vectors = torch.eye(D)

    def compute_jac(xp):
        jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors]
        return torch.stack(jacobian_rows)

    jacobian = compute_jac(xp)
    jac_rev = jacrev(predict, argnums=2)(weight, bias, x)
    jac_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
    out["jac"] = jacobian.reshape(-1).tolist()
    out["jac_same"] = [bool(torch.allclose(jac_rev, jacobian, atol=1e-6)), bool(torch.allclose(jac_fwd, jac_rev,
                                                                                                 atol=1e-6))]
    ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
    out["jac_wb"] = [list(ft_jac_weight.shape), list(ft_jac_bias.shape)] + ft_jac_bias.reshape(-1)[:8].tolist()

    def predict_with_output_summed(weight, bias, x):
        return predict(weight, bias, x).sum(0)

    batch = torch.from_numpy(start.setdefault("xb", rng.standard_normal((4, D)).astype(np.float32)))
    compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
    batch_jacobian0 = compute_batch_jacobian(weight, bias, batch)
    batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, batch).movedim(1, 0)
    out["batch_jac"] = [bool(torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-6))] + \
        batch_jacobian0.reshape(-1)[:10].tolist()
    hess_api = hessian(predict, argnums=2)(weight, bias, x)
    hess_fwdrev = jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
    out["hess"] = [bool(torch.allclose(hess_api, hess_fwdrev, atol=1e-5))] + hess_api.reshape(-1)[:10].tolist()
    ag_jac = torch.autograd.functional.jacobian(lambda v: predict(weight, bias, v), x, vectorize=True)
    out["ag_jac"] = [bool(torch.allclose(ag_jac, jacobian, atol=1e-6))]

    # ensembling: stack_module_state + functional_call under vmap
    class SimpleMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(16, 12)
            self.fc2 = torch.nn.Linear(12, 4)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x.flatten(1))))

    models = [SimpleMLP() for _ in range(3)]
    for i, m in enumerate(models):
        key = f"ens{i}"
        if key in start:
            m.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start[key].items()})
        else:
            start[key] = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    minibatches = torch.from_numpy(start.setdefault("mb", rng.standard_normal((3, 5, 4, 4)).astype(np.float32)))
    predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
    params, buffers = from_func.stack_module_state(models)
    base_model = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return from_func.functional_call(base_model, (params, buffers), (x,))

    predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
    out["ens"] = [bool(torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-6))]
    predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatches[0])
    out["ens_same_mb"] = [list(predictions2_vmap.shape)] + predictions2_vmap.reshape(-1)[:6].tolist()
    out["stacked"] = sorted((k, list(v.shape)) for k, v in params.items())

    # activation checkpointing in training
    checkpoint = torch.utils.checkpoint.checkpoint

    class Deep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList([torch.nn.Sequential(torch.nn.Linear(D, D), torch.nn.GELU())
                                               for _ in range(3)])
            self.head = torch.nn.Linear(D, 1)

        def forward(self, x, use_ckpt):
            for blk in self.blocks:
                x = checkpoint(blk, x, use_reentrant=False) if use_ckpt else blk(x)
            return self.head(x)

    for use_ckpt in (False, True):
        net = Deep()
        key = "deep"
        if key in start:
            net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start[key].items()})
        else:
            start[key] = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for _ in range(4):
            opt.zero_grad()
            loss = (net(batch, use_ckpt) ** 2).mean()
            loss.backward()
            opt.step()
            out[f"ckpt_{use_ckpt}"].append(loss.item())
    seq = torch.nn.Sequential(*[torch.nn.Linear(D, D) for _ in range(4)])
    seq.load_state_dict({k: v for k, v in seq.state_dict().items()})
    y = torch.utils.checkpoint.checkpoint_sequential(seq, 2, batch.requires_grad_(), use_reentrant=False)
    out["ckpt_seq"] = [list(y.shape)]

    # saved tensors hooks: pack copies
    packed = []

    def pack_hook(t):
        packed.append(tuple(t.shape))
        return t.clone()

    def unpack_hook(t):
        return t

    a = torch.from_numpy(rng.standard_normal(5).astype(np.float32)).requires_grad_()
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        yv = a.sin() * a.exp()
    yv.sum().backward()
    # (monoflow calls the hooks for autograd.Function's saved tensors only, not yet for built-in ops)
    out["saved_hooks"] = a.grad.tolist()
    return dict(out=dict(out), init=start)
