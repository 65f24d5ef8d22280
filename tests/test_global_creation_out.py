"""normal(out=global_tensor, placement=, sbp=): the samples are made whole, laid out as sbp
and copied into out (OneFlow's test_graph_normal_inplace, eager and inside an nn.Graph)."""
import numpy as np

import monoflow as flow
from test_ddp import launch, needs_gloo


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


WORKER = '''
import json, sys
import numpy as np
import monoflow as flow
from monoflow.utils.global_view import global_mode

P = flow.placement("cpu", ranks=[0, 1])
B = flow.sbp.broadcast
rank = flow.env.get_rank()


class G(flow.nn.Graph):
    def build(self, x):
        m = flow.ones([4, 4], dtype=x.dtype, placement=P, sbp=B)
        m[:, :2] = 0
        with global_mode(True, placement=P, sbp=B):
            r = flow.randn(2, 3)
            a = flow.arange(5)
        return m + x, r, a


g = G()
x = flow.ones(4, 4).to_global(placement=P, sbp=B)
runs = []
for _ in range(2):
    s, r, a = g(x)
    runs.append([float(s.to_local().numpy().sum()), r.to_local().numpy().tolist(), a.to_local().numpy().tolist(),
                 r.is_global and r.placement == P])
flow.manual_seed(11)
d1 = flow.empty(8, 4).to_global(placement=P, sbp=flow.sbp.split(0))
d2 = flow.empty(8, 4).to_global(placement=P, sbp=flow.sbp.split(0))


class N(flow.nn.Graph):
    def build(self):
        flow.manual_seed(233)
        flow.normal(size=d1.shape, mean=0.0, std=1.0, out=d1, placement=P, sbp=flow.sbp.split(0))
        return d1


lazy = N()().to_local().numpy()
flow.manual_seed(233)
flow.normal(size=d2.shape, mean=0.0, std=1.0, out=d2, placement=P, sbp=flow.sbp.split(0))
flow.manual_seed(5)
seeded = flow.randn(3, 2, placement=P, sbp=B).to_local().numpy()
flow.manual_seed(5)
local = flow.randn(3, 2).numpy()
json.dump({"runs": runs, "normal_same": bool(np.array_equal(lazy, d2.to_local().numpy())),
           "seeded_is_local_draw": bool(np.array_equal(seeded, local))},
          open(sys.argv[1] + f"/rank{rank}.json", "w"))
'''


@needs_gloo
def test_global_creation_inside_a_graph_on_two_ranks(tmp_path):
    """Note [Global creation inside a graph's build]: flow.ones/randn/arange with a placement (or under
    global_mode) inside build on 2 ranks: no host read, the random draw is the same on both ranks and
    fresh at every replay; graph and eager normal(out=...) agree; a seeded global draw is the local one."""
    import json

    (tmp_path / "worker.py").write_text(WORKER)
    r = launch(2, ["worker.py", str(tmp_path)], tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = [json.loads((tmp_path / f"rank{k}.json").read_text()) for k in range(2)]
    assert res[0] == res[1]
    (s0, r0, a0, g0), (s1, r1, a1, g1) = res[0]["runs"]
    assert s0 == s1 == 24.0 and a0 == a1 == [0, 1, 2, 3, 4] and g0 and g1
    assert np.array(r0).shape == (2, 3) and r0 != r1  # the replay draws again
    assert res[0]["normal_same"] and res[0]["seeded_is_local_draw"]
