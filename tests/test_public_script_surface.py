"""The API surface that well-known public PyTorch training scripts rely on
(pytorch/examples, karpathy's nanoGPT/minGPT/makemore/ng-video-lecture, the
DDP tutorial), checked against torch: each test names the script whose line
stopped on monoflow before."""
import warnings

import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F

torch = pytest.importorskip("torch")


# ------------------------------------------ mnist_rnn: nn.Dropout2d on (N, C) features

@pytest.mark.parametrize("op, shape", [("dropout2d", (64, 32)), ("dropout2d", (4, 6, 2, 2, 2)),
                                       ("dropout3d", (40, 6)), ("dropout3d", (30,)), ("dropout3d", (20, 3, 4))])
def test_channel_dropout_of_another_rank_warns_and_masks_as_torch(op, shape):
    with pytest.warns(UserWarning, match=f"{op}: Received a {len(shape)}-D input"):
        y = getattr(F, op)(flow.ones(*shape), 0.5, training=True).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(torch.nn.functional, op)(torch.ones(*shape), 0.5, training=True).numpy()
    # the masks' shapes agree: the same elements vary together
    def groups(a):
        a = a.reshape(1, *a.shape) if op == "dropout3d" else a
        return a.reshape(a.shape[0], a.shape[1], -1) if a.ndim >= 2 else a[:, None]
    for a in (y, ref):
        g = groups(a)
        assert set(np.unique(a)) <= {0.0, 2.0}
        assert np.all((g == g[..., :1]).all(-1))
    assert y.shape == ref.shape
    assert 0 < (y == 0).mean() < 1 or y.size < 8


def test_dropout2d_of_a_vector_is_refused_as_torch():
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.functional.dropout2d(torch.ones(5), 0.5)
    with pytest.raises(RuntimeError, match="dropout2d"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F.dropout2d(flow.ones(5), 0.5)


def test_dropout2d_module_on_features_trains():
    # mnist_rnn's head: BatchNorm1d -> Dropout2d -> Linear, backward through the mask
    x = flow.randn(16, 8, requires_grad=True)
    with pytest.warns(UserWarning):
        y = flow.nn.Dropout2d(0.25)(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y.detach().numpy() != 0) / 0.75, rtol=1e-6)
    with pytest.warns(UserWarning):
        d = flow.nn.Dropout2d(0.25).eval()
        np.testing.assert_array_equal(d(x).detach().numpy(), x.detach().numpy())


# ------------------------------------------ word_language_model: import torch.onnx, save/load the model

def test_onnx_module_imports_and_export_says_what_to_do_instead():
    import monoflow.onnx as onnx
    assert onnx.is_in_onnx_export() is False
    assert torch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="onnx.export"):
        onnx.export(flow.nn.Linear(2, 2), (flow.ones(1, 2),), "m.onnx")


def test_torch_module_paths_that_safe_globals_lists_name():
    import monoflow.nn.modules as M
    import torch.nn.modules as TM
    for mod, name in [("activation", "MultiheadAttention"), ("linear", "NonDynamicallyQuantizableLinear"),
                      ("normalization", "LayerNorm"), ("sparse", "Embedding"), ("transformer", "TransformerEncoder"),
                      ("transformer", "TransformerEncoderLayer"), ("container", "ModuleList"),
                      ("dropout", "Dropout"), ("rnn", "LSTM"), ("rnn", "GRU"), ("rnn", "RNN"), ("linear", "Linear")]:
        assert hasattr(getattr(TM, mod), name)
        assert getattr(getattr(M, mod), name) is getattr(flow.nn, name)


def test_whole_transformer_model_saves_and_loads_under_safe_globals(tmp_path):
    # the default activation (F.relu) is pickled by name, and the allow-list of torch's spelling admits it
    flow.manual_seed(0)
    enc = flow.nn.TransformerEncoder(flow.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2).eval()
    x = flow.randn(5, 3, 8)
    path = tmp_path / "model.pt"
    flow.save(enc, path)
    allowed = [flow.nn.functional.relu, flow.nn.modules.activation.MultiheadAttention,
               flow.nn.modules.container.ModuleList, flow.nn.modules.dropout.Dropout,
               flow.nn.modules.linear.Linear, flow.nn.modules.linear.NonDynamicallyQuantizableLinear,
               flow.nn.modules.normalization.LayerNorm, flow.nn.modules.transformer.TransformerEncoder,
               flow.nn.modules.transformer.TransformerEncoderLayer]
    with flow.serialization.safe_globals(allowed):
        back = flow.load(path)
    np.testing.assert_allclose(back(x).detach().numpy(), enc(x).detach().numpy(), rtol=1e-6)
    assert back.layers[0].activation is flow.nn.functional.relu


# ------------------------------------------ DDP tutorial: launched as python -m torch.distributed.run

def test_torchrun_module_translates_its_rendezvous_flags():
    from monoflow.distributed import run
    assert run.translate(["--standalone", "--nproc_per_node=2", "train.py", "--standalone"]) == \
        ["--nproc_per_node=2", "train.py", "--standalone"]
    assert run.translate(["--nnodes=1", "--rdzv_backend=c10d", "--rdzv_endpoint", "localhost:29400",
                          "--rdzv_id=100", "s.py"]) == \
        ["--nnodes=1", "--master-addr", "localhost", "--master-port", "29400", "--rdzv_id=100", "s.py"]
    assert run.translate(["-m", "pkg.main", "--x"]) == ["-m", "pkg.main", "--x"]


def test_torchrun_module_runs_a_two_rank_job(tmp_path):
    import socket
    import subprocess
    import sys
    script = tmp_path / "job.py"
    script.write_text(
        "import monoflow as torch, monoflow.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "t = torch.ones(1) * (dist.get_rank() + 1)\n"
        "dist.all_reduce(t)\n"
        "print('sum', int(t.item()))\n"
        "dist.destroy_process_group()\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = subprocess.run([sys.executable, "-m", "monoflow.distributed.run", "--standalone", "--nproc_per_node=2",
                          f"--rdzv_endpoint=127.0.0.1:{port}", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("sum 3") == 2
