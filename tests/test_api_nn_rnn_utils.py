"""nn.utils.rnn (pack_padded_sequence, pad_packed_sequence, pad_sequence,
pack_sequence, unpack/unpad) and the recurrent layers on packed input,
against torch: the same packed layout, and LSTM/GRU/RNN outputs, final
states and gradients on variable-length batches (sorted or not,
bidirectional, several layers)."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
TR, MR = torch.nn.utils.rnn, flow.nn.utils.rnn
TOL = dict(rtol=1e-9, atol=1e-11)


def padded_batch(lengths, feat=3, seed=0, batch_first=False):
    rng = np.random.default_rng(seed)
    T, N = max(lengths), len(lengths)
    a = rng.standard_normal((N, T, feat) if batch_first else (T, N, feat))
    return torch.tensor(a, requires_grad=True), flow.tensor(a, requires_grad=True)


@pytest.mark.parametrize("lengths,enforce", [([5, 3, 3, 1], True), ([2, 5, 1, 4], False), ([4], True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_round_trip(lengths, enforce, batch_first):
    t, m = padded_batch(lengths, batch_first=batch_first)
    tp = TR.pack_padded_sequence(t, lengths, batch_first=batch_first, enforce_sorted=enforce)
    mp = MR.pack_padded_sequence(m, flow.tensor(lengths), batch_first=batch_first, enforce_sorted=enforce)
    np.testing.assert_array_equal(mp.batch_sizes.numpy(), tp.batch_sizes.numpy())
    np.testing.assert_allclose(mp.data.detach().numpy(), tp.data.detach().numpy())
    for a, b in ((mp.sorted_indices, tp.sorted_indices), (mp.unsorted_indices, tp.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    tout, tlen = TR.pad_packed_sequence(tp, batch_first=batch_first, padding_value=-1.0, total_length=6)
    mout, mlen = MR.pad_packed_sequence(mp, batch_first=batch_first, padding_value=-1.0, total_length=6)
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy())
    np.testing.assert_array_equal(mlen.numpy(), tlen.numpy())
    tout.sum().backward()
    mout.sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy())


def test_pad_sequence_and_pack_sequence():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((n, 2)) for n in (3, 5, 2)]
    ts, ms = [torch.tensor(a) for a in arrays], [flow.tensor(a) for a in arrays]
    for kw in (dict(), dict(batch_first=True, padding_value=7.0), dict(batch_first=True, padding_side="left")):
        np.testing.assert_allclose(MR.pad_sequence(ms, **kw).numpy(), TR.pad_sequence(ts, **kw).numpy())
    tp, mp = TR.pack_sequence(ts, enforce_sorted=False), MR.pack_sequence(ms, enforce_sorted=False)
    np.testing.assert_allclose(mp.data.numpy(), tp.data.numpy())
    for a, b in zip(MR.unpack_sequence(mp), TR.unpack_sequence(tp)):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    padded, lengths = TR.pad_sequence(ts), [3, 5, 2]
    for a, b in zip(MR.unpad_sequence(flow.tensor(padded.numpy()), flow.tensor(lengths)),
                    TR.unpad_sequence(padded, torch.tensor(lengths))):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        MR.pack_padded_sequence(flow.randn(4, 2, 1), [2, 4])
    assert isinstance(mp, tuple) and mp._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("enforce", [True, False])
def test_recurrent_layers_on_packed_input(mode, bidirectional, enforce):
    lengths = [5, 4, 2, 1] if enforce else [2, 5, 1, 4]
    torch.manual_seed(0)
    trnn = getattr(torch.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional).double()
    mrnn = getattr(flow.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional).double()
    mrnn.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in trnn.state_dict().items()})
    t, m = padded_batch(lengths, seed=2)
    dirs = 2 if bidirectional else 1
    h0 = np.random.default_rng(3).standard_normal((2 * dirs, 4, 4))
    th0, mh0 = torch.tensor(h0, requires_grad=True), flow.tensor(h0, requires_grad=True)
    thx, mhx = ((th0, th0 * 0.5), (mh0, mh0 * 0.5)) if mode == "LSTM" else (th0, mh0)
    tout, th = trnn(TR.pack_padded_sequence(t, lengths, enforce_sorted=enforce), thx)
    mout, mh = mrnn(MR.pack_padded_sequence(m, lengths, enforce_sorted=enforce), mhx)
    assert isinstance(mout, MR.PackedSequence)
    np.testing.assert_allclose(mout.data.detach().numpy(), tout.data.detach().numpy(), **TOL)
    th, mh = (th if mode == "LSTM" else (th,)), (mh if mode == "LSTM" else (mh,))
    for a, b in zip(mh, th):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL)
    tpad, _ = TR.pad_packed_sequence(tout)
    mpad, _ = MR.pad_packed_sequence(mout)
    w = np.random.default_rng(4).standard_normal(tuple(tpad.shape))
    ((tpad * torch.tensor(w)).sum() + sum(x.sum() for x in th)).backward()
    ((mpad * flow.tensor(w)).sum() + sum(x.sum() for x in mh)).backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), **TOL)
    np.testing.assert_allclose(mh0.grad.numpy(), th0.grad.numpy(), **TOL)
    tparams = dict(trnn.named_parameters())
    for name, p in mrnn.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tparams[name].grad.numpy(), err_msg=name, **TOL)
