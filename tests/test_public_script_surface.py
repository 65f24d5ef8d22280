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

def test_onnx_module_imports_and_is_in_onnx_export_is_false_outside_export():
    # export itself is tested in tests/test_onnx.py (needs the onnx package)
    import monoflow.onnx as onnx
    assert onnx.is_in_onnx_export() is False
    assert torch.onnx.is_in_onnx_export() is False
    assert issubclass(onnx.OnnxExporterError, RuntimeError)


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


# ------------------------------------------ makemore: from torch.utils.tensorboard import SummaryWriter

def _records(path):
    """(payload, ...) of a TFRecord file, checking both masked CRC-32C fields (an independent bitwise CRC)."""
    def crc32c(data):
        crc = 0xFFFFFFFF
        for b in data:
            crc ^= b
            for _ in range(8):
                crc = (crc >> 1) ^ (0x82F63B78 * (crc & 1))
        crc ^= 0xFFFFFFFF
        return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    import struct
    data, out, i = path.read_bytes(), [], 0
    while i < len(data):
        header = data[i:i + 8]
        (n,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[i + 8:i + 12])[0] == crc32c(header)
        payload = data[i + 12:i + 12 + n]
        assert struct.unpack("<I", data[i + 12 + n:i + 16 + n])[0] == crc32c(payload)
        out.append(payload)
        i += 16 + n
    return out


def _fields(buf):
    """{field number: [values]} of one protobuf message (varint, 64-bit, bytes, 32-bit wire types)."""
    import struct
    out, i = {}, 0
    def varint():
        nonlocal i
        shift = value = 0
        while True:
            b = buf[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value
    while i < len(buf):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
        elif wire == 1:
            value = struct.unpack("<d", buf[i:i + 8])[0]
            i += 8
        elif wire == 2:
            n = varint()
            value = buf[i:i + n]
            i += n
        else:
            assert wire == 5
            value = struct.unpack("<f", buf[i:i + 4])[0]
            i += 4
        out.setdefault(number, []).append(value)
    return out


def test_summary_writer_writes_scalar_events_tensorboard_reads(tmp_path):
    from monoflow.utils.tensorboard import SummaryWriter
    with SummaryWriter(log_dir=tmp_path / "run") as w:
        assert w.get_logdir() == str(tmp_path / "run")
        w.add_scalar("Loss/train", flow.tensor(1.5), 10)
        w.add_scalar("Loss/test", 0.25, 20)
        w.add_text("note", "hello", 3)
        with pytest.raises(NotImplementedError, match="add_graph"):  # (images: test_public_programs)
            w.add_graph(flow.nn.Linear(2, 2), flow.zeros(1, 2))
        with pytest.raises(TypeError, match="add_scalar"):
            w.add_scalar("bad", "x", 1)
    files = list((tmp_path / "run").iterdir())
    assert len(files) == 1 and files[0].name.startswith("events.out.tfevents.")
    events = [_fields(r) for r in _records(files[0])]
    assert events[0][3] == [b"brain.Event:2"]
    scalars = []
    for ev in events[1:3]:
        value = _fields(_fields(ev[5][0])[1][0])
        scalars.append((ev[2][0], value[1][0].decode(), value[2][0]))
    assert scalars == [(10, "Loss/train", 1.5), (20, "Loss/test", 0.25)]
    text = _fields(_fields(events[3][5][0])[1][0])
    assert _fields(_fields(text[9][0])[1][0])[1] == [b"text"]
    assert _fields(text[8][0])[8] == [b"hello"] and _fields(text[8][0])[1] == [7]
