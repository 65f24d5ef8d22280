"""Fixes found by running OneFlow's module tests (op slice 01) against monoflow,
each checked against torch or numpy."""
import numpy as np
import pytest
import torch

import monoflow as flow


# -- test_hann_window: window functions take placement=/sbp= like every creation function
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_window_placement_sbp(name):
    placement = flow.placement("cpu", ranks=[0])
    sbp = (flow.sbp.broadcast,)
    out = getattr(flow, name)(7, False, placement=placement, sbp=sbp)
    assert out.sbp == sbp and out.placement == placement
    ref = getattr(torch, name)(7, False).numpy()
    np.testing.assert_allclose(out.to_local().numpy(), ref, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match=name):
        getattr(flow, name)(7, sbp=sbp)
