"""numpy and DLPack interop: shared memory where the protocol says so."""
import numpy as np
import pytest

import monoflow as flow

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("npdt", NP_DTYPES)
def test_numpy_from_dlpack_shares_memory(npdt):
    t = flow.tensor((np.arange(12) % 3).reshape(3, 4).astype(npdt))
    a = np.from_dlpack(t)
    assert a.dtype == npdt and a.shape == (3, 4)
    np.testing.assert_array_equal(a, t.numpy())
    a[0, 0] = 1 if npdt is not np.bool_ else True
    assert bool(t[0, 0].item() == a[0, 0])


def test_numpy_from_dlpack_keeps_strides_and_owner_alive():
    t = flow.arange(24, dtype=flow.float32).reshape(4, 6)
    view = t[1:, ::2].T
    a = np.from_dlpack(view)
    np.testing.assert_array_equal(a, np.arange(24, dtype=np.float32).reshape(4, 6)[1:, ::2].T)
    del t, view  # the capsule's owner keeps the storage alive
    assert a.sum() == np.arange(24).reshape(4, 6)[1:, ::2].sum()


@pytest.mark.parametrize("npdt", NP_DTYPES)
def test_from_dlpack_numpy_shares_memory(npdt):
    a = (np.arange(10) % 2).astype(npdt)[::3]
    t = flow.from_dlpack(a)
    assert t.shape == (4,) and t.stride() == (3,)
    np.testing.assert_array_equal(t.numpy(), a)
    t.fill_(1)
    assert np.all(a == 1)


def test_from_dlpack_raw_capsule_and_double_consume():
    src = flow.arange(5)
    cap = src.__dlpack__()
    t = flow.from_dlpack(cap)
    np.testing.assert_array_equal(t.numpy(), np.arange(5))
    with pytest.raises(ValueError, match="from_dlpack"):
        flow.from_dlpack(cap)


def test_torch_roundtrip_shares_memory():
    torch = pytest.importorskip("torch")
    t = flow.arange(6, dtype=flow.float64).reshape(2, 3)
    tt = torch.from_dlpack(t.T)
    assert tt.shape == (3, 2) and tt.stride() == (1, 3)
    tt[0, 0] = 7.0
    assert t[0, 0].item() == 7.0
    back = flow.from_dlpack(torch.arange(4, dtype=torch.bfloat16))
    assert back.dtype == flow.bfloat16 and back.float().tolist() == [0, 1, 2, 3]
    b16 = torch.from_dlpack(flow.tensor([1.5, -2.0], dtype=flow.bfloat16))
    assert b16.dtype == torch.bfloat16 and b16.float().tolist() == [1.5, -2.0]
    assert flow.from_dlpack(torch.tensor([True, False])).tolist() == [True, False]


def test_dlpack_device_and_non_host_devices(device):
    t = flow.ones(3, device=device)
    if device.startswith("cpu"):
        assert t.__dlpack_device__() == (1, 0)
        return
    # testdev memory is not host memory: exporting it must fail cleanly
    assert t.__dlpack_device__()[0] != 1
    with pytest.raises(BufferError, match="host memory"):
        t.__dlpack__()
    np.testing.assert_array_equal(np.from_dlpack(t.cpu()), np.ones(3, dtype=np.float32))


def test_numpy_and_from_numpy_share_memory():
    a = np.zeros((2, 3), dtype=np.float32)
    t = flow.from_numpy(a)
    t += 1
    assert np.all(a == 1)
    b = t.numpy()
    b[1, 2] = 5
    assert t[1, 2].item() == 5
    c = flow.tensor(a)  # a copy
    c += 1
    assert np.all(a[0] == 1)


def test_pending_kernels_finish_before_export():
    t = flow.zeros(1 << 20)
    for _ in range(20):
        t += 1
    assert np.from_dlpack(t).min() == 20
