"""numpy arrays (.numpy()) and DLPack consumers keep the memory they view alive, whatever the
tensor does next (Note [Exported memory] in core/include/monoflow/storage.h): giving the tensor
other memory (resize_, set_, .data =) or moving its memory in place (share_memory_) freed the
viewed block, and the array then read freed or reused memory (a segfault once the cache was
emptied). Each case runs in a child process: a failure is a crash."""
import subprocess
import sys
import textwrap

import pytest

CHANGES = {
    "resize_bigger": "t.resize_(1 << 22)",
    "resize_to_zero": "t.resize_(0)",
    "resize_as_": "t.resize_as_(flow.zeros(1 << 22))",
    "set_tensor": "t.set_(flow.zeros(3))",
    "set_storage": "t.set_(flow.zeros(3).untyped_storage())",
    "data_assign": "t.data = flow.zeros(3)",
    "share_memory_": "t.share_memory_()",
}


@pytest.mark.parametrize("exporter", ["numpy", "dlpack"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_exported_view_outlives_the_tensors_memory_change(exporter, change):
    export = "t.numpy()" if exporter == "numpy" else "np.from_dlpack(t)"
    program = textwrap.dedent(f"""
        import numpy as np
        import monoflow as flow
        t = flow.arange(float(1 << 20))
        n = {export}
        {CHANGES[change]}
        flow.memory.empty_cache()
        reuse = [flow.full((1 << 20,), 7.0) for _ in range(4)]  # would take the freed block
        assert n.sum() == float(np.arange(float(1 << 20)).sum()), n[:4]
        n[0] = -1.0  # the array's own memory: no live tensor changes
        assert all(float(r[0]) == 7.0 for r in reuse)
        del n
        flow.memory.empty_cache()
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", (out.returncode, out.stderr[-2000:])


def test_numpy_view_still_shares_memory_with_an_unchanged_tensor():
    import monoflow as flow
    t = flow.zeros(4)
    n = t.numpy()
    n[1] = 5.0
    assert t.tolist() == [0.0, 5.0, 0.0, 0.0]
    t.add_(1)
    assert n.tolist() == [1.0, 6.0, 1.0, 1.0]
