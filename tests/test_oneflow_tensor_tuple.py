"""_oneflow_internal.TensorTuple: OneFlow's growable sequence of tensors (its test_graph_check builds one
with append and passes it through a module in an nn.Graph); tuples still count as TensorTuples."""
import numpy as np
import pytest

import monoflow as flow
from monoflow._oneflow_internal import TensorTuple


def test_tensor_tuple_append_extend_and_checks():
    tp = TensorTuple()
    tp.append(flow.ones(2))
    tp.extend([flow.zeros(3)])
    assert len(tp) == 2 and tuple(tp[1].shape) == (3,)
    assert len(TensorTuple([flow.ones(1), flow.ones(1)])) == 2
    with pytest.raises(TypeError, match="TensorTuple"):
        tp.append(1)
    with pytest.raises(TypeError, match="TensorTuple"):
        TensorTuple([None])
    assert isinstance((flow.ones(1),), TensorTuple) and issubclass(tuple, TensorTuple)
    assert isinstance(tp, TensorTuple) and not isinstance([flow.ones(1)], TensorTuple)


def test_tensor_tuple_through_a_module_in_a_graph():
    tp0 = TensorTuple()
    tp0.append(flow.ones(10, 10))
    tp0.append(flow.ones(10, 10))

    class M(flow.nn.Module):
        def forward(self, t, tp, i, s, n):
            return t, tp, i, s, n

    class G(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = M()

        def build(self, t):
            rt, rtp, ri, rs, n = self.m(t, tp0, 1, "2", None)
            assert rtp is tp0 and ri == 1 and rs == "2" and n is None
            return rt + rtp[0]

    x = flow.tensor(np.ones((10, 10)), dtype=flow.float32)
    np.testing.assert_array_equal(G()(x).numpy(), np.full((10, 10), 2.0, np.float32))
