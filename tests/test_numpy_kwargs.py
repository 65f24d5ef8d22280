"""axis=/keepdims= (numpy's names) on the ops whose torch signature takes them, against torch."""
import numpy as np
import pytest

import monoflow

torch = pytest.importorskip("torch")

A = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
I = np.array([[0, 1, 2, 3]] * 3)

CALLS = {
    "sum": lambda T, x: x.sum(axis=1, keepdims=True),
    "fn_sum": lambda T, x: T.sum(x, axis=(0, 1)),
    "mean": lambda T, x: T.mean(x, axis=0, keepdims=True),
    "argmax": lambda T, x: x.argmax(axis=1),
    "argmin_kd": lambda T, x: T.argmin(x, axis=1, keepdims=True),
    "max": lambda T, x: x.max(axis=1, keepdims=True).values,
    "max_idx": lambda T, x: T.max(x, axis=0).indices,
    "amax": lambda T, x: x.amax(axis=1, keepdims=True),
    "std": lambda T, x: x.std(axis=1),
    "var_mean": lambda T, x: T.var_mean(x, axis=1)[0],
    "softmax": lambda T, x: x.softmax(axis=1),
    "log_softmax": lambda T, x: T.log_softmax(x, axis=1),
    "logsumexp": lambda T, x: T.logsumexp(x, axis=1, keepdims=True),
    "cumsum": lambda T, x: x.cumsum(axis=1),
    "cumsum_": lambda T, x: x.clone().cumsum_(axis=0),
    "all": lambda T, x: (x > 0).all(axis=1),
    "any_kd": lambda T, x: T.any(x > 0, axis=0, keepdims=True),
    "sort": lambda T, x: x.sort(axis=1).values,
    "argsort": lambda T, x: T.argsort(x, axis=0),
    "topk": lambda T, x: x.topk(2, axis=1).values,
    "cat": lambda T, x: T.cat([x, x], axis=1),
    "stack": lambda T, x: T.stack([x, x], axis=2),
    "concatenate": lambda T, x: T.concatenate([x, x], axis=0),
    "gather": lambda T, x: x.gather(axis=1, index=T.from_numpy(I[:, ::-1].copy())),
    "index_select": lambda T, x: T.index_select(x, axis=1, index=T.tensor([0, 2])),
    "unsqueeze": lambda T, x: x.unsqueeze(axis=1),
    "squeeze": lambda T, x: x[:1].squeeze(axis=0),
    "chunk": lambda T, x: x.chunk(2, axis=1)[1],
    "narrow": lambda T, x: x.narrow(axis=1, start=1, length=2),
    "unbind": lambda T, x: x.unbind(axis=1)[2],
    "repeat_interleave": lambda T, x: x.repeat_interleave(2, axis=0),
    "diff": lambda T, x: T.diff(x, axis=1),
    "count_nonzero": lambda T, x: (x > 0).count_nonzero(axis=1),
    "median": lambda T, x: x.median(axis=1).values,
    "nansum": lambda T, x: T.nansum(x, axis=1, keepdims=True),
    "prod": lambda T, x: x.prod(axis=1),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_keyword_names_match_torch(name):
    ref = CALLS[name](torch, torch.from_numpy(A.copy()))
    got = CALLS[name](monoflow, monoflow.from_numpy(A.copy()))
    assert tuple(got.shape) == tuple(ref.shape) and str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)


def test_numpy_keyword_names_carry_gradients_as_torch():
    xt = torch.from_numpy(A.copy()).requires_grad_()
    xm = monoflow.from_numpy(A.copy()).requires_grad_()
    (xt.softmax(axis=1) * xt.mean(axis=0, keepdims=True)).sum().backward()
    (xm.softmax(axis=1) * xm.mean(axis=0, keepdims=True)).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_both_spellings_or_python_written_ops_raise_type_error_as_torch():
    for T in (torch, monoflow):
        x = T.ones(2, 3)
        with pytest.raises(TypeError):
            x.sum(dim=1, axis=1)
        with pytest.raises(TypeError):
            x.split(1, axis=1)  # written in Python in torch: no numpy names
        with pytest.raises(TypeError):
            T.nn.functional.softmax(x, axis=1)
    assert monoflow.sum.__name__ == "sum" and monoflow.Tensor.argmax.__name__ == "argmax"
