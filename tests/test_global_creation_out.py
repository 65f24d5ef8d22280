"""normal(out=global_tensor, placement=, sbp=): the samples are made whole, laid out as sbp
and copied into out (OneFlow's test_graph_normal_inplace, eager and inside an nn.Graph)."""
import numpy as np

import monoflow as flow


def _placement():
    return flow.placement("cpu", ranks=[0])


def test_normal_out_global_eager_fills_out_and_returns_it():
    out = flow.zeros(4, 6).to_global(placement=_placement(), sbp=flow.sbp.broadcast)
    flow.manual_seed(7)
    r = flow.normal(size=(4, 6), mean=0.0, std=1.0, out=out, placement=_placement(), sbp=flow.sbp.split(0))
    assert r is out
    assert out.is_global and out.sbp == (flow.sbp.broadcast,)
    flow.manual_seed(7)
    ref = flow.normal(size=(4, 6), mean=0.0, std=1.0, placement=_placement(), sbp=flow.sbp.split(0))
    np.testing.assert_array_equal(out.to_local().numpy(), ref.to_local().numpy())
    assert np.abs(out.to_local().numpy()).sum() > 0


def test_normal_out_global_in_graph_matches_eager():
    data_1 = flow.empty(8, 16).to_global(placement=_placement(), sbp=flow.sbp.split(0))
    data_2 = flow.empty(8, 16).to_global(placement=_placement(), sbp=flow.sbp.split(0))

    class G(flow.nn.Graph):
        def build(self):
            flow.manual_seed(233)
            flow.normal(size=data_1.shape, mean=0.0, std=1.0, out=data_1, placement=_placement(),
                        sbp=flow.sbp.split(0))
            return data_1

    lazy = G()()
    flow.manual_seed(233)
    flow.normal(size=data_2.shape, mean=0.0, std=1.0, out=data_2, placement=_placement(), sbp=flow.sbp.split(0))
    np.testing.assert_array_equal(lazy.to_local().numpy(), data_2.to_local().numpy())
