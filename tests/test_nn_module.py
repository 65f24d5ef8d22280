"""nn.Module and nn.Parameter: registration, traversal, state dicts (round
trips, strict errors, torch <-> monoflow through numpy), hooks, modes, dtype
and device moves, reprs against torch's."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import monoflow as flow
from monoflow import nn

torch = pytest.importorskip("torch")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.act = nn.Tanh()
        self.scale = nn.Parameter(flow.ones(4))
        self.register_buffer("steps", flow.zeros(1))
        self.register_buffer("scratch", flow.zeros(2), persistent=False)

    def forward(self, x):
        self.steps += 1
        return self.act(self.fc(x)) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(4, 2, bias=False)

    def forward(self, x):
        return self.head(self.block(x))


def torch_state_to_flow(sd):
    return OrderedDict((k, flow.tensor(v.detach().numpy())) for k, v in sd.items())


def flow_state_to_torch(sd):
    return OrderedDict((k, torch.from_numpy(np.array(v.numpy()))) for k, v in sd.items())


# ---------------------------------------------------------------- Parameter

def test_parameter_is_a_leaf_sharing_memory():
    data = flow.arange(4.0)
    p = nn.Parameter(data)
    assert isinstance(p, nn.Parameter) and isinstance(p, flow.Tensor)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    data[0] = 7.0
    assert p[0].item() == 7.0  # same storage
    q = nn.Parameter(flow.zeros(2), requires_grad=False)
    assert not q.requires_grad
    e = nn.Parameter()
    assert tuple(e.shape) == (0,)
    assert repr(nn.Parameter(flow.zeros(2))) == repr(torch.nn.Parameter(torch.zeros(2)))
    out = p * 2  # ops on a Parameter give plain tensors, as in torch
    assert type(out) is flow.Tensor
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_integer_parameters_are_state_without_gradient():
    """OneFlow's rule (torch refuses integer parameters): registered, saved, moved and converted with
    the module, and never differentiated."""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(flow.ones(2))
            self.count = nn.Parameter(flow.tensor([3, 4], dtype=flow.int32))
            self.flag = nn.Parameter(flow.tensor([True]))

    m = M()
    assert [n for n, _ in m.named_parameters()] == ["w", "count", "flag"]
    assert m.w.requires_grad and not m.count.requires_grad and not m.flag.requires_grad
    assert m.count.dtype == flow.int32 and m.count.is_leaf
    assert set(m.state_dict()) == {"w", "count", "flag"}
    m.to(flow.float64)  # a floating-point dtype converts the floating-point parameters only
    assert m.w.dtype == flow.float64 and m.count.dtype == flow.int32
    (m.w * m.count).sum().backward()
    assert m.count.grad is None and m.w.grad.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="floating point"):
        m.count.requires_grad_()  # the tensor rule itself stays torch's


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(flow.tensor([1.0, 2.0]))
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert isinstance(q, nn.Parameter) and q.requires_grad
        np.testing.assert_array_equal(q.detach().numpy(), [1.0, 2.0])
        q.data.fill_(0.0)
        assert p[0].item() == 1.0


# ---------------------------------------------------------------- registration

def test_setattr_registers_and_traversal_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["block.scale", "block.fc.weight", "block.fc.bias",
                                                      "head.weight"]
    assert [n for n, _ in net.named_buffers()] == ["block.steps", "block.scratch"]
    assert [n for n, _ in net.named_children()] == ["block", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "block", "block.fc", "block.act", "head"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == []
    assert [n for n, _ in net.block.named_parameters(prefix="b", recurse=False)] == ["b.scale"]
    assert net.head.bias is None
    assert "fc" in dir(net.block) and "scale" in dir(net.block)
    assert net.get_submodule("block.fc") is net.block.fc
    assert net.get_parameter("block.fc.bias") is net.block.fc.bias
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        net.nope  # noqa: B018


def test_shared_parameters_are_listed_once():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, nn.Tanh(), a)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert len(list(seq.modules())) == 3


def test_assignment_rules():
    m = nn.Module()
    m.w = nn.Parameter(flow.zeros(2))
    with pytest.raises(TypeError, match="parameter 'w'"):
        m.w = flow.zeros(2)  # a plain tensor cannot replace a parameter
    m.w = None
    assert "w" in m._parameters and m.w is None
    m.sub = nn.Linear(1, 1)
    with pytest.raises(TypeError, match="child module 'sub'"):
        m.sub = 3
    m.register_buffer("b", flow.zeros(1))
    m.b = flow.ones(1)
    assert m._buffers["b"].item() == 1.0
    with pytest.raises(TypeError):
        m.b = 3
    with pytest.raises(KeyError):
        m.register_buffer("a.b", flow.zeros(1))
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("sub", None)
    del m.sub
    assert "sub" not in m._modules
    m.x = 5  # plain attributes stay plain
    assert m.x == 5 and "x" not in m._parameters

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(flow.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


# ---------------------------------------------------------------- state dicts

def test_state_dict_round_trip():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert list(sd) == ["block.scale", "block.steps", "block.fc.weight", "block.fc.bias", "head.weight"]
    assert all(not v.requires_grad for v in sd.values())
    assert "block.scratch" not in sd  # non-persistent
    assert isinstance(sd, OrderedDict)
    keep = a.state_dict(keep_vars=True)
    assert keep["head.weight"] is a.head.weight
    w_before = b.head.weight
    res = b.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == [] and repr(res) == "<All keys matched successfully>"
    assert b.head.weight is w_before  # copied in place: optimizers keep their parameters
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy())
    sd["head.weight"].fill_(3.0)  # the state dict aliases a's parameters
    assert a.head.weight[0, 0].item() == 3.0
    assert b.head.weight[0, 0].item() != 3.0


def test_load_state_dict_strict_errors():
    m = nn.Linear(3, 2)
    sd = m.state_dict()
    del sd["bias"]
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    assert str(e.value) == 'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
    sd = m.state_dict()
    sd["extra"] = flow.zeros(1)
    sd["weight"] = flow.zeros(4, 4)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    msg = str(e.value)
    assert msg.startswith("Error(s) in loading state_dict for Linear:\n\tUnexpected key(s) in state_dict: \"extra\". ")
    assert "size mismatch for weight: copying a param with shape" in msg
    # torch reports the same problems
    tm = torch.nn.Linear(3, 2)
    tsd = tm.state_dict()
    tsd["extra"] = torch.zeros(1)
    tsd["weight"] = torch.zeros(4, 4)
    with pytest.raises(RuntimeError) as te:
        tm.load_state_dict(tsd)
    assert str(te.value).replace("torch", "monoflow") == msg
    # strict=False: reported, not raised; matching entries still load
    sd = OrderedDict(bias=flow.full((2,), 5.0), extra=flow.zeros(1))
    res = m.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["weight"] and res.unexpected_keys == ["extra"]
    np.testing.assert_array_equal(m.bias.detach().numpy(), [5.0, 5.0])
    with pytest.raises(TypeError, match="dict-like"):
        m.load_state_dict([1, 2])  # noqa


def test_nested_unexpected_and_missing_keys():
    net = Net()
    sd = net.state_dict()
    sd["block.fc.gamma"] = flow.zeros(1)
    del sd["block.steps"]
    res = net.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["block.steps"] and res.unexpected_keys == ["block.fc.gamma"]


def test_torch_state_dict_loads_and_outputs_match():
    tm = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.BatchNorm1d(7), torch.nn.Tanh(), torch.nn.Linear(7, 3))
    tm(torch.randn(6, 5))  # moves the running stats
    tm.eval()
    fm = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.Tanh(), nn.Linear(7, 3)).eval()
    assert list(fm.state_dict()) == list(tm.state_dict())
    fm.load_state_dict(torch_state_to_flow(tm.state_dict()))
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(fm(flow.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert fm[1].num_batches_tracked.item() == 1
    # and back: a monoflow state dict loads into torch
    tm2 = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.BatchNorm1d(7), torch.nn.Tanh(),
                              torch.nn.Linear(7, 3)).eval()
    tm2.load_state_dict(flow_state_to_torch(fm.state_dict()))
    np.testing.assert_allclose(tm2(torch.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6)


def test_state_dict_serialization_round_trip(tmp_path):
    net = Net()
    path = str(tmp_path / "net.mf")
    flow.save(net.state_dict(), path)
    other = Net()
    other.load_state_dict(flow.load(path))
    for (k, v), (k2, v2) in zip(net.state_dict().items(), other.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(v.numpy(), v2.numpy())


# ---------------------------------------------------------------- modes, grads, conversions

def test_train_eval_and_requires_grad():
    net = Net()
    assert net.training and net.block.fc.training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError):
        net.train("yes")
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_zero_grad():
    m = nn.Linear(3, 2)
    m(flow.randn(4, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert float(m.weight.grad.abs().sum()) == 0.0
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None


def test_to_dtype_keeps_parameter_identity():
    m = Net()
    m(flow.randn(2, 3)).sum().backward()
    w = m.head.weight
    assert m.double() is m
    assert m.head.weight is w and isinstance(w, nn.Parameter)
    assert w.dtype == flow.float64 and w.grad.dtype == flow.float64 and w.requires_grad and w.is_leaf
    assert m.block.steps.dtype == flow.float64
    m.to(flow.float32)
    assert w.dtype == flow.float32
    m.half()
    assert w.dtype == flow.float16
    m.float()
    with pytest.raises(TypeError, match="floating point"):
        m.to(flow.int64)
    # integer buffers keep their dtype
    bn = nn.BatchNorm1d(3).double()
    assert bn.num_batches_tracked.dtype == flow.int64 and bn.running_mean.dtype == flow.float64


def test_to_device(device):
    m = nn.Linear(3, 2)
    w = m.weight
    m.to(device)
    assert m.weight is w and str(m.weight.device) == device
    x = flow.randn(4, 3, device=device)
    out = m(x)
    assert str(out.device) == device
    out.sum().backward()
    assert str(m.weight.grad.device) == device
    np.testing.assert_allclose(m.weight.grad.numpy(), np.tile(x.sum(0).numpy(), (2, 1)), rtol=1e-5)
    m.cpu()
    assert m.weight.device.type == "cpu"


def test_apply_visits_children_first():
    net = Net()
    seen = []
    net.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Tanh", "Block", "Linear", "Net"]


# ---------------------------------------------------------------- hooks

def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(post)
    out = m(flow.ones(1, 2))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), m.bias.detach().numpy()[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    out = m(flow.ones(1, 2))
    assert calls == ["pre", "post"]

    def kw_pre(mod, args, kwargs):
        return args, kwargs

    with m.register_forward_pre_hook(kw_pre, with_kwargs=True):
        m(flow.ones(1, 2))
    assert not m._forward_pre_hooks


def test_full_backward_hook():
    m = nn.Linear(3, 2)
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["in"] = grad_input
        seen["out"] = grad_output
        return (grad_input[0] * 2,)

    m.register_full_backward_hook(hook)
    x = flow.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    np.testing.assert_allclose(seen["out"][0].numpy(), np.ones((4, 2)))
    want = np.ones((4, 2)) @ m.weight.detach().numpy()
    np.testing.assert_allclose(seen["in"][0].numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), 2 * want, rtol=1e-5)


# ---------------------------------------------------------------- containers

def test_sequential_indexing():
    layers = [nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and seq[0] is layers[0] and seq[-1] is layers[2]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == layers[1:]
    assert list(sub._modules) == ["1", "2"]  # slices keep torch's names
    seq.append(nn.Sigmoid())
    assert len(seq) == 4
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"]
    named = nn.Sequential(OrderedDict(a=nn.Linear(2, 2), b=nn.Tanh()))
    assert named.a is named[0]
    with pytest.raises(IndexError):
        seq[10]


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml.append(nn.Tanh())
    ml.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "Linear", "Linear", "Linear", "Tanh"]
    assert len(list(ml.parameters())) == 6
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.Tanh()})
    assert list(md.keys()) == ["a", "b"] and "a" in md
    md["c"] = nn.ReLU()
    assert len(md) == 3 and md.pop("c").__class__ is nn.ReLU
    with pytest.raises(TypeError):
        ml.extend(nn.Linear(1, 1))


def test_parameter_list_and_dict():
    pl = nn.ParameterList([flow.zeros(2), nn.Parameter(flow.ones(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(flow.zeros(1))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"b": flow.zeros(2), "a": flow.ones(1)})
    assert list(pd.keys()) == ["a", "b"]  # plain dicts sort, as in torch
    assert isinstance(pd["a"], nn.Parameter)
    holder = nn.Module()
    holder.p = pd
    assert [n for n, _ in holder.named_parameters()] == ["p.a", "p.b"]


# ---------------------------------------------------------------- repr

def _same_repr(fm, tm):
    assert repr(fm) == repr(tm).replace("torch.", "monoflow.")


def test_repr_matches_torch():
    _same_repr(nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Dropout(0.2)), nn.Linear(3, 1, bias=False)),
               torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Dropout(0.2)),
                                   torch.nn.Linear(3, 1, bias=False)))
    _same_repr(nn.ModuleList([nn.Linear(2, 2)] * 3 + [nn.ReLU()]),
               torch.nn.ModuleList([torch.nn.Linear(2, 2)] * 3 + [torch.nn.ReLU()]))
    _same_repr(nn.ModuleDict({"a": nn.GELU("tanh")}), torch.nn.ModuleDict({"a": torch.nn.GELU("tanh")}))
    _same_repr(nn.ParameterList([nn.Parameter(flow.zeros(2, 3))]),
               torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3))]))
    _same_repr(nn.ParameterDict({"a": nn.Parameter(flow.zeros(2, 3))}),
               torch.nn.ParameterDict({"a": torch.nn.Parameter(torch.zeros(2, 3))}))
    _same_repr(nn.ModuleList(), torch.nn.ModuleList())
    _same_repr(nn.TransformerEncoderLayer(8, 2, 16), torch.nn.TransformerEncoderLayer(8, 2, 16))
    pairs = [
        ("LSTM", (3, 4, 2), dict(bidirectional=True)), ("GRU", (3, 4), dict(batch_first=True, dropout=0.1,
                                                                           num_layers=2)),
        ("RNN", (3, 4), dict(nonlinearity="relu", bias=False)),
        ("Embedding", (4, 3), dict(padding_idx=0)), ("BatchNorm1d", (3,), {}), ("BatchNorm2d", (3,),
                                                                               dict(affine=False)),
        ("LayerNorm", ([2, 3],), {}), ("GroupNorm", (2, 4), {}), ("Dropout", (), {}), ("Dropout2d", (0.3,), {}),
        ("Flatten", (), {}), ("Unflatten", (1, (2, 2)), {}), ("Softmax", (), dict(dim=1)), ("LogSoftmax", (1,), {}),
        ("GELU", (), {}), ("LeakyReLU", (0.2, True), {}), ("ELU", (), {}), ("Hardtanh", (), {}), ("PReLU", (3,), {}),
        ("Softplus", (), {}), ("ReLU", (), dict(inplace=True)), ("ReLU6", (), {}), ("SiLU", (), {}),
        ("Mish", (), {}), ("Hardswish", (), {}), ("Hardsigmoid", (), {}), ("Sigmoid", (), {}), ("Tanh", (), {}),
        ("Softsign", (), {}), ("Identity", (), {}), ("Bilinear", (2, 3, 4), {}), ("CrossEntropyLoss", (), {}),
        ("MSELoss", (), {}), ("MultiheadAttention", (8, 2), {}), ("LSTMCell", (2, 3), {}),
        ("GRUCell", (2, 3), dict(bias=False)), ("RNNCell", (2, 3), dict(nonlinearity="relu")),
    ]
    for name, args, kwargs in pairs:
        _same_repr(getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs))


def test_custom_extra_repr_and_nesting():
    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Linear(1, 1)

        def extra_repr(self):
            return "k=1\nj=2"

    assert repr(Custom()) == "Custom(\n  k=1\n  j=2\n  (inner): Linear(in_features=1, out_features=1, bias=True)\n)"


def test_forward_missing():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


def test_deepcopy_module():
    net = Net()
    other = copy.deepcopy(net)
    assert other.head.weight is not net.head.weight
    assert isinstance(other.head.weight, nn.Parameter)
    np.testing.assert_array_equal(other.head.weight.detach().numpy(), net.head.weight.detach().numpy())
    with flow.no_grad():
        other.head.weight.fill_(0.0)
    assert float(net.head.weight.abs().sum()) > 0


@pytest.mark.parametrize("lib", [flow, torch], ids=["monoflow", "torch"])
def test_tensor_deepcopy_keeps_grad(lib):
    x = lib.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    x.tag = [1]
    y = copy.deepcopy(x)
    assert y.is_leaf and y.requires_grad and y.grad_fn is None and y.tag == [1] and y.tag is not x.tag
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 2.0, 2.0])
    y.grad.add_(1)  # a copy, not the same gradient
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    a, g = copy.deepcopy([x, x.grad])  # the memo keeps the pair's identity
    assert a.grad is g
    assert not copy.deepcopy(lib.ones(2)).requires_grad
    # a Parameter keeps its class and requires_grad; torch 2.13 leaves its grad behind
    p = lib.nn.Parameter(lib.ones(2))
    p.grad = lib.full((2,), 5.0)
    q = copy.deepcopy(p)
    assert type(q) is lib.nn.Parameter and q.requires_grad and q.grad is None
    assert not copy.deepcopy(lib.nn.Parameter(lib.ones(2), requires_grad=False)).requires_grad


def test_tensor_deepcopy_of_a_result_is_a_new_leaf():
    # OneFlow copies an op's result (its autotests deepcopy one to replay an op in
    # nn.Graph); torch refuses. The copy has the values, dtype, device and
    # requires_grad, no grad_fn, and does not share memory.
    x = flow.arange(6.0).reshape(2, 3).requires_grad_()
    for r in (x * 3, (x * 3).t(), (x + 1).to(flow.float64)):
        c = copy.deepcopy(r)
        assert c.is_leaf and c.grad_fn is None and c.requires_grad
        assert c.dtype == r.dtype and c.device == r.device and c.shape == r.shape
        np.testing.assert_array_equal(c.detach().numpy(), r.detach().numpy())
        with flow.no_grad():
            c.add_(1)
        np.testing.assert_array_equal(r.detach().numpy() + 1, c.detach().numpy())
        c.sum().backward()
        np.testing.assert_array_equal(c.grad.numpy(), np.ones(r.shape))
    assert x.grad is None  # the copy is cut from x's graph
    y = copy.deepcopy(flow.ones(2) * 2)  # a result that does not require grad
    assert not y.requires_grad and y.is_leaf
    with pytest.raises(RuntimeError, match="graph leaves"):  # torch still refuses
        copy.deepcopy(torch.ones(2, requires_grad=True) * 3)
