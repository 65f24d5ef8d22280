"""More torch.nn layers and functions against torch (values and gradients):
RMSNorm, LocalResponseNorm, distance modules and pdist, in-place and
randomised activations, gumbel_softmax, SyncBatchNorm, Conv3d,
ConvTranspose1d, LPPool, MaxUnpool, the _with_indices spellings,
ChannelShuffle, the margin losses, RNNCellBase."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
TF, MF = torch.nn.functional, flow.nn.functional
TOL = dict(rtol=1e-9, atol=1e-11)


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def check(tfn, mfn, *shapes, seed=0, tol=TOL, extra=()):
    """Same output and same gradients of every array input."""
    arrs = arrays(*shapes, seed=seed)
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    ms = [flow.tensor(a, requires_grad=True) for a in arrs]
    tout, mout = tfn(*ts, *extra), mfn(*ms, *[flow.tensor(e.numpy()) if isinstance(e, torch.Tensor) else e
                                               for e in extra])
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), **tol)
    w = np.random.default_rng(seed + 1).standard_normal(tuple(tout.shape))
    (tout * torch.tensor(w)).sum().backward()
    (mout * flow.tensor(w)).sum().backward()
    for m, t in zip(ms, ts):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), **tol)


def copied(name, *args, **kwargs):
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(*args, **kwargs).double()
    m = getattr(flow.nn, name)(*args, **kwargs).double()
    m.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, m


@pytest.mark.parametrize("shape,norm", [((2, 3, 4), 4), ((2, 3, 4), (3, 4)), ((5, 6), 6)])
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(shape, norm, eps):
    t, m = copied("RMSNorm", norm, eps=eps)
    with torch.no_grad():
        t.weight.uniform_()
    m.load_state_dict({"weight": flow.tensor(t.weight.detach().numpy())})
    check(t, m, shape)
    check(lambda x: TF.rms_norm(x, (shape[-1],), eps=eps), lambda x: MF.rms_norm(x, (shape[-1],), eps=eps), shape)
    norm = [norm] if isinstance(norm, int) else list(norm)
    assert sorted(m.state_dict()) == sorted(t.state_dict()) == ["weight"]
    a = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(MF.rms_norm(flow.tensor(a), norm).numpy(), TF.rms_norm(torch.tensor(a), norm).numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 6, 5), (2, 7, 3, 4)])
def test_local_response_norm(shape):
    check(torch.nn.LocalResponseNorm(3, alpha=0.1), flow.nn.LocalResponseNorm(3, alpha=0.1), shape)
    check(lambda x: TF.local_response_norm(x, 4, k=2.0), lambda x: MF.local_response_norm(x, 4, k=2.0), shape)


def test_distance_modules_and_pdist():
    check(torch.nn.CosineSimilarity(dim=1), flow.nn.CosineSimilarity(dim=1), (4, 5), (4, 5))
    check(torch.nn.PairwiseDistance(p=3.0, keepdim=True), flow.nn.PairwiseDistance(p=3.0, keepdim=True),
          (4, 5), (4, 5))
    for p in (2, 1, 3.5):
        check(lambda x: TF.pdist(x, p), lambda x: MF.pdist(x, p), (5, 3))


@pytest.mark.parametrize("name,args", [("elu_", (0.7,)), ("celu_", (1.3,)), ("selu_", ()), ("leaky_relu_", (0.2,)),
                                       ("hardtanh_", (-0.5, 0.8)), ("threshold_", (0.1, -2.0)),
                                       ("rrelu_", (0.1, 0.3, False))])
def test_inplace_activations(name, args):
    a = arrays((3, 4))[0]
    t, m = torch.tensor(a), flow.tensor(a)
    tr, mr = getattr(TF, name)(t, *args), getattr(MF, name)(m, *args)
    assert mr is m
    np.testing.assert_allclose(m.numpy(), t.numpy(), **TOL)
    del tr


def test_rrelu_training_slopes_and_module():
    flow.manual_seed(0)
    x = -flow.rand(2000, dtype=flow.float64) - 0.1
    y = MF.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    m = flow.nn.RReLU(0.1, 0.3)
    m.eval()
    check(torch.nn.RReLU(0.1, 0.3).eval(), m, (3, 4))


def test_gumbel_softmax():
    flow.manual_seed(0)
    logits = flow.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
    soft = MF.gumbel_softmax(logits.expand(4000, 3), tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), 1.0, rtol=1e-6)
    hard = MF.gumbel_softmax(logits.expand(4000, 3), tau=0.5, hard=True)
    assert set(np.unique(hard.detach().numpy())) <= {0.0, 1.0}
    freq = hard.detach().numpy().mean(0)
    expect = np.exp([2.0, 0.5, -1.0]) / np.exp([2.0, 0.5, -1.0]).sum()  # Gumbel-max samples the softmax
    np.testing.assert_allclose(freq, expect, atol=0.03)
    hard.sum().backward()  # the straight-through gradient is the soft sample's
    assert logits.grad is not None


def test_sync_batch_norm_single_process():
    t, m = copied("SyncBatchNorm", 3)
    check(t, m, (4, 3, 5))
    np.testing.assert_allclose(m.running_mean.numpy(), t.running_mean.numpy(), **TOL)
    seq = flow.nn.Sequential(flow.nn.Conv2d(2, 3, 1), flow.nn.BatchNorm2d(3))
    conv = flow.nn.SyncBatchNorm.convert_sync_batchnorm(seq)
    assert isinstance(conv[1], flow.nn.SyncBatchNorm) and conv[1].weight is seq[1].weight


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1), dict(stride=(1, 2, 1), dilation=(2, 1, 1)),
                                    dict(groups=2, padding="same"), dict(padding=(1, 0, 2), bias=False)])
def test_conv3d(kwargs):
    t, m = copied("Conv3d", 4, 6, (3, 2, 3), **kwargs)
    check(t, m, (2, 4, 5, 6, 7))
    check(t, m, (4, 5, 6, 7), seed=2)


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1, output_padding=1),
                                    dict(dilation=2, groups=2), dict(bias=False)])
def test_conv_transpose1d(kwargs):
    t, m = copied("ConvTranspose1d", 4, 6, 3, **kwargs)
    check(t, m, (2, 4, 9))
    check(lambda x, w: TF.conv_transpose1d(x, w, stride=2), lambda x, w: MF.conv_transpose1d(x, w, stride=2),
          (2, 4, 5), (4, 3, 3))


def test_lp_pool():
    check(torch.nn.LPPool1d(2, 3, stride=2), flow.nn.LPPool1d(2, 3, stride=2), (2, 3, 9))
    check(torch.nn.LPPool2d(3, 2), flow.nn.LPPool2d(3, 2), (2, 3, 4, 6))
    check(torch.nn.LPPool3d(2, (2, 1, 2)), flow.nn.LPPool3d(2, (2, 1, 2)), (1, 2, 4, 3, 6))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_and_with_indices(n):
    shape = (2, 3) + (6, 4, 4)[:n]
    a = arrays(shape)[0]
    t, m = torch.tensor(a), flow.tensor(a)
    tout, tidx = getattr(TF, f"max_pool{n}d_with_indices")(t, 2)
    mout, midx = getattr(MF, f"max_pool{n}d_with_indices")(m, 2)
    np.testing.assert_array_equal(midx.numpy(), tidx.numpy())
    check(lambda x: getattr(TF, f"max_unpool{n}d")(x, tidx, 2), lambda x: getattr(MF, f"max_unpool{n}d")(x, midx, 2),
          tuple(tout.shape))
    check(getattr(torch.nn, f"MaxUnpool{n}d")(2), getattr(flow.nn, f"MaxUnpool{n}d")(2), tuple(tout.shape),
          extra=(tidx,))
    size = tuple(shape[2:])
    np.testing.assert_allclose(getattr(MF, f"max_unpool{n}d")(mout, midx, 2, output_size=size).numpy(),
                               getattr(TF, f"max_unpool{n}d")(tout, tidx, 2, output_size=size).numpy())
    tout, tidx = getattr(TF, f"adaptive_max_pool{n}d_with_indices")(t, 2)
    mout, midx = getattr(MF, f"adaptive_max_pool{n}d_with_indices")(m, 2)
    np.testing.assert_array_equal(midx.numpy(), tidx.numpy())


def test_channel_shuffle():
    check(torch.nn.ChannelShuffle(3), flow.nn.ChannelShuffle(3), (2, 6, 2, 2))
    check(lambda x: TF.channel_shuffle(x, 2), lambda x: MF.channel_shuffle(x, 2), (1, 4, 3))
    with pytest.raises(RuntimeError, match="divisible"):
        MF.channel_shuffle(flow.randn(1, 5, 2), 2)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_margin_losses(reduction):
    target = torch.tensor([2, 0, 4])
    weight = torch.tensor([1.0, 2.0, 0.5, 1.5, 1.0], dtype=torch.float64)
    for p, margin in ((1, 1.0), (2, 0.5)):
        check(torch.nn.MultiMarginLoss(p=p, margin=margin, reduction=reduction),
              flow.nn.MultiMarginLoss(p=p, margin=margin, reduction=reduction), (3, 5), extra=(target,))
    check(lambda x, t: TF.multi_margin_loss(x, t, weight=weight, reduction=reduction),
          lambda x, t: MF.multi_margin_loss(x, t, weight=flow.tensor(weight.numpy()), reduction=reduction),
          (3, 5), extra=(target,))
    ml_target = torch.tensor([[3, 0, -1, 1, 2], [1, 4, 2, 3, 0], [-1, 1, 2, 0, 0]])
    check(torch.nn.MultiLabelMarginLoss(reduction=reduction), flow.nn.MultiLabelMarginLoss(reduction=reduction),
          (3, 5), extra=(ml_target,))
    soft_target = torch.tensor(np.random.default_rng(0).integers(0, 2, (3, 5)).astype(np.float64))
    check(torch.nn.MultiLabelSoftMarginLoss(weight=weight, reduction=reduction),
          flow.nn.MultiLabelSoftMarginLoss(weight=flow.tensor(weight.numpy()), reduction=reduction), (3, 5),
          extra=(soft_target,))
    for swap in (False, True):
        check(torch.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=swap, reduction=reduction),
              flow.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=swap, reduction=reduction), (4, 3), (4, 3),
              (4, 3))
    check(lambda a, p, n: TF.triplet_margin_with_distance_loss(
              a, p, n, distance_function=lambda x, y: 1 - TF.cosine_similarity(x, y), reduction=reduction),
          lambda a, p, n: MF.triplet_margin_with_distance_loss(
              a, p, n, distance_function=lambda x, y: 1 - MF.cosine_similarity(x, y), reduction=reduction),
          (4, 3), (4, 3), (4, 3))


def test_rnn_cell_base_is_the_cells_base():
    assert issubclass(flow.nn.LSTMCell, flow.nn.RNNCellBase) and issubclass(flow.nn.GRUCell, flow.nn.RNNCellBase)


def test_data_parallel_single_device_wrapper():
    torch.manual_seed(0)
    t = torch.nn.DataParallel(torch.nn.Linear(3, 2).double())
    m = flow.nn.DataParallel(flow.nn.Linear(3, 2).double())
    assert sorted(m.state_dict()) == sorted(t.state_dict()) == ["module.bias", "module.weight"]
    m.load_state_dict(to_flow_state(t.state_dict()))
    check(t, m, (4, 3))
    assert isinstance(m.module, flow.nn.Linear) and flow.nn.parallel.DataParallel is flow.nn.DataParallel
    with pytest.raises(NotImplementedError, match="DistributedDataParallel"):
        flow.nn.DataParallel(flow.nn.Linear(3, 2), device_ids=[0, 1])


def to_flow_state(state):
    return {k: flow.tensor(v.detach().numpy()) for k, v in state.items()}


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("layout", ["offsets", "offsets-last", "2d", "padding"])
def test_embedding_bag(mode, layout):
    torch.manual_seed(0)
    kw = dict(padding_idx=2) if layout == "padding" else {}
    kw["include_last_offset"] = layout == "offsets-last"
    t = torch.nn.EmbeddingBag(6, 3, mode=mode, **kw).double()
    m = flow.nn.EmbeddingBag(6, 3, mode=mode, **kw).double()
    m.load_state_dict(to_flow_state(t.state_dict()))
    if layout == "2d":
        idx = [[1, 2, 4], [5, 0, 0]]
        targs, margs = (torch.tensor(idx),), (flow.tensor(idx),)
    else:
        idx, offsets = [1, 2, 4, 5, 4, 3, 2, 2], [0, 2, 2, 5]  # bag 1 is empty
        if layout == "offsets-last":
            offsets = offsets + [len(idx)]
        targs, margs = (torch.tensor(idx), torch.tensor(offsets)), (flow.tensor(idx), flow.tensor(offsets))
    tout, mout = t(*targs), m(*margs)
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), **TOL)
    w = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    (tout * torch.tensor(w)).sum().backward()
    (mout * flow.tensor(w)).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), t.weight.grad.numpy(), **TOL)
    if mode == "sum" and layout == "offsets":
        psw = np.random.default_rng(2).standard_normal(len(idx))
        np.testing.assert_allclose(
            m(*margs, per_sample_weights=flow.tensor(psw)).detach().numpy(),
            t(*targs, per_sample_weights=torch.tensor(psw)).detach().numpy(), **TOL)


def test_legacy_names():
    """NLLLoss2d, Container, factory_kwargs as torch has them."""
    a = np.random.default_rng(0).standard_normal((2, 3, 2, 2))
    tgt = np.random.default_rng(1).integers(0, 3, (2, 2, 2))
    np.testing.assert_allclose(
        flow.nn.NLLLoss2d()(flow.tensor(a).log_softmax(1), flow.tensor(tgt)).numpy(),
        torch.nn.NLLLoss2d()(torch.tensor(a).log_softmax(1), torch.tensor(tgt)).numpy(), **TOL)
    with pytest.warns(UserWarning):
        c = flow.nn.Container(fc=flow.nn.Linear(2, 2))
    assert isinstance(c.fc, flow.nn.Linear)
    kw = dict(device="cpu", factory_kwargs={"dtype": flow.float64})
    assert flow.nn.factory_kwargs(kw) == {"device": "cpu", "dtype": flow.float64}
    with pytest.raises(TypeError, match="unexpected"):
        flow.nn.factory_kwargs({"colour": 1})


@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_scale_grad_by_freq(padding_idx):
    # each row's gradient divided by its index's count in the input (torch's and OneFlow's test_sparse)
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=25, deadline=None)
    @given(seed=st.integers(0, 2**16), shape=st.lists(st.integers(1, 5), min_size=1, max_size=3))
    def check(seed, shape):
        rng = np.random.default_rng(seed)
        w = rng.standard_normal((10, 3)).astype(np.float32)
        idx = rng.integers(0, 10, shape)
        g = rng.standard_normal(tuple(shape) + (3,)).astype(np.float32)
        tw = torch.tensor(w, requires_grad=True)
        to = torch.nn.functional.embedding(torch.tensor(idx), tw, padding_idx=padding_idx, scale_grad_by_freq=True)
        m = flow.nn.Embedding(10, 3, padding_idx=padding_idx, scale_grad_by_freq=True, _weight=flow.tensor(w))
        fo = m(flow.tensor(idx))
        (to * torch.tensor(g)).sum().backward()
        (fo * flow.tensor(g)).sum().backward()
        np.testing.assert_array_equal(fo.detach().numpy(), to.detach().numpy())
        np.testing.assert_allclose(m.weight.grad.numpy(), tw.grad.numpy(), rtol=1e-6, atol=1e-6)

    check()
