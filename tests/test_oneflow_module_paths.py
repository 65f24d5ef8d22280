"""OneFlow's module paths that its own packages (flowvision, libai) import:
``oneflow.framework.{tensor,dtype,distribute}`` and jit's private decorators,
reached through an ``oneflow`` alias as those packages reach them."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import monoflow as flow


def test_framework_modules_answer_with_monoflows_objects():
    from monoflow.framework.tensor import Tensor

    assert Tensor is flow.Tensor
    dt = flow.framework.dtype
    for f, n in ((flow.float32, np.float32), (flow.int64, np.int64), (flow.bool, np.bool_),
                 (flow.complex64, np.complex64)):
        assert dt.convert_oneflow_dtype_to_numpy_dtype(f) is n
        assert dt.convert_numpy_dtype_to_oneflow_dtype(n) == f
        assert dt.convert_numpy_dtype_to_oneflow_dtype(np.dtype(n)) == f
    with pytest.raises(TypeError, match="bfloat16"):
        dt.convert_oneflow_dtype_to_numpy_dtype(flow.bfloat16)
    assert flow.framework.distribute.get_rank() == flow.env.get_rank() == 0
    assert flow.framework.distribute.get_world_size() == 1


def test_jit_private_decorators_are_identities():
    def f(x):
        return x + 1
    assert flow.jit._script_if_tracing(f) is f
    assert flow.jit._overload_method(f) is f and flow.jit._overload(f) is f


def test_flowvision_style_imports_through_an_alias():
    program = textwrap.dedent("""
        import sys, monoflow
        sys.modules["oneflow"] = monoflow
        import oneflow as flow
        from oneflow.framework.tensor import Tensor
        import oneflow.framework.dtype
        from oneflow.nn.modules.utils import _pair
        @flow.jit._script_if_tracing
        def boxes(x):
            return x * 2
        assert isinstance(boxes(flow.ones(2)), Tensor) and _pair(3) == (3, 3)
        print(flow.framework.dtype.convert_oneflow_dtype_to_numpy_dtype(flow.float16).__name__)
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "float16"
