"""OneFlow's ContiguousParamsGroup (oneflow.nn.utils.parameters_grouping) and
Module.make_contiguous_params_group (OneFlow's test/modules/test_parameters_grouping.py): parameters and
their gradients become views of flat buffers, one per dtype and device."""
import numpy as np
import pytest

import monoflow as flow
from monoflow.nn.utils.parameters_grouping import ContiguousParamsGroup


class _Two(flow.nn.Module):
    def __init__(self, v):
        super().__init__()
        self.w1 = flow.nn.Parameter(flow.tensor([v, v], dtype=flow.float32))
        self.w2 = flow.nn.Parameter(flow.tensor([v, v], dtype=flow.float32))

    def forward(self, x):
        return x * self.w1 * self.w2


def test_module_grouping_by_dtype_and_reuse_of_buffers():
    m = flow.nn.Module()
    for i in range(6):
        m.register_parameter(f"w{i}", flow.nn.Parameter(flow.tensor([i % 2 + 1.0] * 2, dtype=[flow.float32, flow.float64][i % 2])))
    assert m.make_contiguous_params_group() is m
    bufs = m.cpg.grouped_parameters
    assert [b.dtype for b in bufs] == [flow.float32, flow.float64] and [b.numel() for b in bufs] == [6, 6]
    assert np.all(bufs[0].numpy() == 1) and np.all(bufs[1].numpy() == 2)
    # a parameter is a view of its buffer: writes either way are seen by the other
    with flow.no_grad():
        m.w0.fill_(5.0)
    assert np.all(bufs[0].numpy()[:2] == 5)
    bufs[1].fill_(7.0)
    assert np.all(m.w3.numpy() == 7)
    extra = flow.tensor([3.0, 3.0], requires_grad=True)
    cpg = ContiguousParamsGroup(list(m.parameters()) + [extra])
    assert len(cpg.grouped_parameters) == 3 and len(cpg.grouped_grads) == 3
    assert cpg.grouped_parameters[0] is bufs[0] and cpg.grouped_parameters[1] is bufs[1]
    assert np.all(cpg.grouped_parameters[2].numpy() == 3)


def test_list_of_lists_groups_each_list():
    x = [flow.nn.Parameter(flow.tensor([1.0, 2.0])), flow.nn.Parameter(flow.tensor([3.0, 4.0]))]
    cpg = ContiguousParamsGroup([[x[0]], [x[1]]])
    assert len(cpg.grouped_parameters) == 2 and len(cpg.grouped_grads) == 2
    assert cpg.grouped_parameters[1].numpy().tolist() == [3.0, 4.0]
    with pytest.raises(TypeError, match="ContiguousParamsGroup"):
        ContiguousParamsGroup([x[0], [x[1]]])


def test_gradients_accumulate_into_the_grad_buffer_and_sgd_updates_the_buffer():
    m1, m2 = _Two(1.0).make_contiguous_params_group(), _Two(2.0).make_contiguous_params_group()
    opt = flow.optim.SGD(m2.parameters(), lr=0.5, contiguous_params=True)
    flow.sum(m1(flow.ones(1, 1))).backward()
    flow.sum(m2(flow.ones(2, 2))).backward()
    for p in m1.parameters():
        assert p.grad.shape == (2,) and np.allclose(p.grad.numpy(), [1.0, 1.0])
    for p in m2.parameters():
        assert np.allclose(p.grad.numpy(), [4.0, 4.0])
    assert np.allclose(m2.cpg.grouped_grads[0].numpy(), [4.0] * 4)
    opt.step()
    assert np.allclose(m2.cpg.grouped_parameters[0].numpy(), [0.0] * 4)
    # a gradient dropped by zero_grad() goes back into the buffer on regrouping
    opt.zero_grad()
    cpg = ContiguousParamsGroup(list(m2.parameters()))
    assert len(cpg.grouped_parameters) == 1 and m2.w1.grad is not None
    assert m2.w1.grad.data_ptr() == cpg.grouped_grads[0].data_ptr()


def test_global_parameters_group_by_sbp():
    p = flow.placement("cpu", ranks=[0])
    x = flow.nn.Parameter(flow.zeros(10).to_global(placement=p, sbp=flow.sbp.broadcast))
    y = flow.nn.Parameter(flow.ones(10).to_global(placement=p, sbp=flow.sbp.split(0)))
    cpg = ContiguousParamsGroup([x, y], group_on_current_buffer=False)
    assert len(cpg.grouped_parameters) == 2 and len(cpg.grouped_grads) == 2
    assert cpg.grouped_parameters[1].sbp == (flow.sbp.split(0),)
    assert np.all(cpg.grouped_parameters[1].numpy() == 1)
