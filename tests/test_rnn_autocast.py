"""LSTM / LSTMCell under CPU bfloat16 autocast (lstm_cell refused the bfloat16 gates with a float32 cell
state): the output dtypes of the recurrent modules follow torch's."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_under_bfloat16_autocast_match_torch_dtypes(name):
    x = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    dtypes = []
    for lib in (torch, flow):
        lib.manual_seed(0)
        cell = getattr(lib.nn, name)(2, 3)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = cell(lib.tensor(x))
        out = out[0] if isinstance(out, tuple) else out
        dtypes.append(str(out.dtype).split(".")[-1])
    assert dtypes[1] == dtypes[0]


def test_lstm_under_bfloat16_autocast_runs_and_trains():
    lstm = flow.nn.LSTM(2, 3, num_layers=2)
    with flow.autocast("cpu", dtype=flow.bfloat16):
        out, (h, c) = lstm(flow.randn(5, 2, 2))
    assert tuple(out.shape) == (5, 2, 3) and out.dtype == flow.float32
    out.float().sum().backward()
    assert lstm.weight_hh_l0.grad is not None
    # float32 outside autocast is unchanged
    ref = flow.nn.LSTMCell(2, 3)
    x = flow.randn(4, 2)
    h1, c1 = ref(x)
    assert h1.dtype == flow.float32 and np.isfinite(h1.detach().numpy()).all()
