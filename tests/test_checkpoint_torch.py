"""PyTorch .pt/.pth files read by flow.load without running torch's pickle,
checked against files the real torch wrote (zip and legacy layouts), and
safetensors files checked against the `safetensors` package."""
import collections
import io
import os
import zipfile

import numpy as np
import pytest

import monoflow as flow
from monoflow import nn, serialization
from helpers import to_np
from test_checkpoint_interop import Config, Exploit

torch = pytest.importorskip("torch")
CheckpointError = serialization.CheckpointError
WeightsOnlyError = serialization.WeightsOnlyError

TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def torch_values(t):
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def assert_matches_torch(got, want):
    assert isinstance(got, flow.Tensor), type(got)
    assert got.dtype == getattr(flow, str(want.dtype).split(".")[1]) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(to_np(got), torch_values(want))


def torch_file(obj, legacy=False):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


@pytest.fixture(params=["zip", "legacy"])
def layout(request):
    return request.param == "legacy"


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_tensors_of_every_dtype(layout, dtype):
    g = torch.Generator().manual_seed(0)
    t = (torch.randn(3, 5, generator=g) * 50).to(getattr(torch, dtype))
    got = flow.load(io.BytesIO(torch_file({"t": t, "nc": t.t(), "step": t[:, ::2]}, layout)))
    assert_matches_torch(got["t"], t)
    assert_matches_torch(got["nc"], t.t())
    assert_matches_torch(got["step"], t[:, ::2])


def test_torch_shared_storage_stays_shared(layout):
    base = torch.arange(10, dtype=torch.float32)
    got = flow.load(io.BytesIO(torch_file({"a": base, "b": base[2:6], "c": base.view(2, 5).t()}, layout)))
    assert got["b"]._is_view_of(got["a"]) and got["c"]._is_view_of(got["a"])
    got["a"].fill_(7.0)
    assert to_np(got["b"]).tolist() == [7.0] * 4


def torch_models():
    torch.manual_seed(0)
    return {
        "mlp": torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)),
        "cnn": torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                                   torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 10)),
        "lstm": torch.nn.LSTM(5, 7, num_layers=2),
        "embed": torch.nn.Embedding(11, 3),
    }


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "embed"])
def test_torch_state_dicts_of_models(layout, name):
    model = torch_models()[name]
    sd = model.state_dict()
    got = flow.load(io.BytesIO(torch_file(sd, layout)), map_location="cpu")
    assert isinstance(got, collections.OrderedDict) and list(got) == list(sd)
    for k in sd:
        assert_matches_torch(got[k], sd[k])
    assert got._metadata[""] == sd._metadata[""]  # (state_dict's per-module versions)


def test_torch_state_dict_loads_into_the_same_monoflow_model(tmp_path, layout):
    tmodel = torch_models()["cnn"].eval()
    with torch.no_grad():  # non-trivial running statistics
        tmodel[1].running_mean.uniform_(-1, 1)
        tmodel[1].running_var.uniform_(0.5, 2)
    path = tmp_path / "cnn.pth"
    torch.save(tmodel.state_dict(), path, _use_new_zipfile_serialization=not layout)
    fmodel = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                           nn.Linear(4 * 6 * 6, 10)).eval()
    fmodel.load_state_dict(flow.load(path))
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    want = tmodel(torch.from_numpy(x)).detach().numpy()
    got = to_np(fmodel(flow.tensor(x)).detach())
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_torch_parameters_optimizer_state_and_plain_values(layout):
    p = torch.nn.Parameter(torch.ones(2, 2))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = torch.full((2, 2), 0.5)
    opt.step()
    obj = {"p": p, "opt": opt.state_dict(), "misc": [1, 2.5, "s", None, True, (3, 4), b"raw", {"k": -1}],
           "size": torch.Size([2, 3]), "dtype": torch.bfloat16}
    got = flow.load(io.BytesIO(torch_file(obj, layout)))
    assert isinstance(got["p"], nn.Parameter) and got["p"].requires_grad
    assert_matches_torch(got["p"], p)
    state = got["opt"]["state"][0]["momentum_buffer"]
    assert_matches_torch(state, opt.state_dict()["state"][0]["momentum_buffer"])
    assert got["opt"]["param_groups"][0]["lr"] == 0.1 and got["opt"]["param_groups"][0]["params"] == [0]
    assert got["misc"] == [1, 2.5, "s", None, True, (3, 4), b"raw", {"k": -1}]
    assert got["size"] == (2, 3) and got["dtype"] == flow.bfloat16


def test_torch_map_location_forms(layout):
    data = torch_file({"w": torch.arange(4.0)}, layout)
    seen = []

    def fn(t, where):
        seen.append(where)
        return t * 2

    got = flow.load(io.BytesIO(data), map_location=fn)
    assert seen == ["cpu"] and to_np(got["w"]).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert str(flow.load(io.BytesIO(data), map_location=flow.device("cpu"))["w"].device) == "cpu:0"
    assert to_np(flow.load(io.BytesIO(data), map_location={"cpu": "cpu"})["w"]).tolist() == [0, 1, 2, 3]


def test_torch_cuda_location_asks_for_map_location():
    data = torch_file({"w": torch.arange(3.0)})
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    pkl = next(n for n in members if n.endswith("data.pkl"))
    members[pkl] = members[pkl].replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    with pytest.raises(CheckpointError, match="cuda.*map_location"):
        flow.load(io.BytesIO(buf.getvalue()))
    assert to_np(flow.load(io.BytesIO(buf.getvalue()), map_location="cpu")["w"]).tolist() == [0, 1, 2]


def test_torch_pickled_module_is_refused_and_never_imported(layout):
    data = torch_file(torch.nn.Linear(2, 2), layout)
    with pytest.raises(WeightsOnlyError, match="(?s)Weights only load failed.*GLOBAL torch.nn.modules.linear.Linear"):
        flow.load(io.BytesIO(data))
    with pytest.raises(WeightsOnlyError, match="PyTorch object that monoflow does not rebuild"):
        flow.load(io.BytesIO(data), weights_only=False)  # torch files' pickles are never run


def test_torch_file_with_an_exploit_runs_nothing(layout):
    marker = "/tmp/monoflow-pwned-by-test"
    if os.path.exists(marker):
        os.unlink(marker)
    data = torch_file({"w": torch.ones(1), "x": Exploit()}, layout)
    for weights_only in (True, False):
        with pytest.raises(WeightsOnlyError, match="posix.system"):
            flow.load(io.BytesIO(data), weights_only=weights_only)
    assert not os.path.exists(marker)


def test_torch_user_classes_need_the_allow_list(layout):
    data = torch_file({"cfg": Config(0.5, torch.arange(3)), "w": torch.zeros(2)}, layout)
    with pytest.raises(WeightsOnlyError, match="test_checkpoint_interop.Config.*safe_globals"):
        flow.load(io.BytesIO(data), weights_only=False)
    with serialization.safe_globals([Config]):
        got = flow.load(io.BytesIO(data))
    assert type(got["cfg"]) is Config and got["cfg"].lr == 0.5
    assert to_np(got["cfg"].tensor).tolist() == [0, 1, 2]


@pytest.mark.parametrize("legacy", [False, True])
def test_support_pytorch_format_false_refuses_a_torch_file(tmp_path, legacy):
    # OneFlow's flow.load(..., support_pytorch_format=False): a PyTorch file is refused, not read
    path = tmp_path / "conv.pt"
    sd = torch.nn.Conv2d(3, 3, 3).state_dict()
    torch.save(sd, path, _use_new_zipfile_serialization=not legacy)
    with pytest.raises(NotImplementedError, match=r"^load: No valid load method found for .*conv\.pt': it is a "
                                                  r"PyTorch checkpoint and support_pytorch_format=False$"):
        flow.load(str(path), support_pytorch_format=False)
    got = flow.load(str(path))  # (the default reads it)
    np.testing.assert_array_equal(got["weight"].numpy(), sd["weight"].numpy())
    # monoflow's own files load either way
    own = tmp_path / "own.pt"
    flow.save({"w": flow.ones(2)}, str(own))
    assert flow.load(str(own), support_pytorch_format=False)["w"].tolist() == [1.0, 1.0]
