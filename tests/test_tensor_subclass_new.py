"""A Tensor subclass whose __new__ builds the instance (as_subclass / _make_subclass, the pattern of
torchvision's tv_tensors) with its own constructor arguments: Python passes them to __init__ too, and
Tensor.__init__ ignores them, as torch's does."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


def _boxes_class(lib):
    class Boxes(lib.Tensor):
        def __new__(cls, data, *, fmt, canvas_size, dtype=None):
            t = lib.as_tensor(data, dtype=dtype).as_subclass(cls)
            t.fmt, t.canvas_size = fmt, canvas_size
            return t

    return Boxes


@pytest.mark.parametrize("dtype", ["int64", "float32", "uint8"])
def test_subclass_new_with_keywords(dtype):
    data = np.array([[1, 2, 5, 6], [0, 1, 3, 4]], dtype=dtype)
    got = _boxes_class(flow)(data, fmt="XYXY", canvas_size=(8, 8))
    ref = _boxes_class(torch)(data, fmt="XYXY", canvas_size=(8, 8))
    assert type(got).__name__ == "Boxes" and got.fmt == ref.fmt and got.canvas_size == (8, 8)
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
    np.testing.assert_array_equal((got + 1).numpy(), (ref + 1).numpy())


def test_subclass_with_make_subclass_in_new():
    class P(flow.Tensor):
        def __new__(cls, data, scale):
            return flow._C._make_subclass(cls, data * scale, False)

    p = P(flow.tensor([1.0, 2.0]), 3.0)
    assert type(p) is P and p.tolist() == [3.0, 6.0]


def test_subclass_new_calling_super_new_with_data():
    class T(flow.Tensor):
        def __new__(cls, x):
            return super().__new__(cls, x)

    class TT(torch.Tensor):
        def __new__(cls, x):
            return super().__new__(cls, x)

    got, want = T(flow.tensor([1.0, 2.0])), TT(torch.tensor([1.0, 2.0]))
    assert type(got) is T and got.tolist() == want.tolist() == [1.0, 2.0]


def test_plain_construction_unchanged():
    assert flow.Tensor([1.0, 2.0]).tolist() == [1.0, 2.0]
    assert flow.Tensor(2, 3).shape == (2, 3)

    class Plain(flow.Tensor):
        pass

    assert Plain([1.0, 2.0]).tolist() == [1.0, 2.0]
