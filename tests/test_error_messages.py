"""Error messages name the op the user called (issue 14 item 12), torch-style:
``op(): argument 'name' must be X, not Y``, with torch's exception types.

The examples of the issue, and the mechanism behind most of the fixes: a
building block's refusal, raised under a public op written in Python, names
that op (Note [Naming the op in progress] in python/monoflow/_args.pxi)."""
import re

import pytest

import monoflow as flow
from monoflow.nn import functional as F

from helpers import TORCH


def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _torch_type(fn):
    """The exception type torch raises for the same call."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is the point
        return type(e)
    return None


# ---------------------------------------------------------------- the examples

def test_cython_typed_argument_names_op_and_argument():
    # was Cython's bare "an integer is required" (a typed int64_t parameter)
    e = _raised(lambda: F.conv_transpose2d(flow.zeros(1, 1, 3, 3), flow.zeros(1, 1, 2, 2), groups=lambda: 0))
    assert isinstance(e, TypeError)
    assert str(e) == "conv_transpose2d(): argument 'groups' must be int, not function"
    e = _raised(lambda: F.avg_pool2d(flow.zeros(1, 1, 4, 4), 2, divisor_override="a"))
    assert isinstance(e, TypeError) and str(e) == "avg_pool2d(): argument 'divisor_override' must be int, not str"
    e = _raised(lambda: F.cross_entropy(flow.zeros(2, 3), flow.zeros(2, dtype=flow.int64), ignore_index=1.5))
    assert isinstance(e, TypeError) and "cross_entropy(): argument 'ignore_index' must be int, not float" in str(e)


def test_addmm_names_addmm():
    # was "add: shapes ... cannot be broadcast"
    e = _raised(lambda: flow.addmm(flow.zeros(5), flow.zeros(2, 3), flow.zeros(3, 4)))
    assert isinstance(e, RuntimeError) and str(e).startswith("addmm")
    e = _raised(lambda: flow.addmm(flow.zeros(2, 4), flow.zeros(2, 3), flow.zeros(5, 4)))
    assert isinstance(e, RuntimeError) and str(e).startswith("addmm")
    e = _raised(lambda: flow.addmm(flow.zeros(2, 4), flow.zeros(2, 3), None))
    assert isinstance(e, TypeError) and str(e).startswith("addmm")


def test_batch_norm_names_batch_norm():
    # was a reshape error
    e = _raised(lambda: F.batch_norm(flow.zeros(2, 3), flow.zeros(4), flow.zeros(4)))
    assert isinstance(e, RuntimeError) and str(e).startswith("batch_norm")
    e = _raised(lambda: F.batch_norm(flow.zeros(2, 3), flow.zeros(3), flow.zeros(3), weight=flow.zeros(2)))
    assert isinstance(e, RuntimeError) and str(e).startswith("batch_norm")


def test_flipud_of_a_number():
    # was "'int' object has no attribute 'dim'"
    e = _raised(lambda: flow.flipud(-100))
    assert isinstance(e, TypeError)
    assert str(e) == "flipud(): argument 'input' (position 1) must be Tensor, not int"


@pytest.mark.skipif(TORCH is None, reason="needs torch")
def test_the_examples_raise_torchs_types():
    torch, tF = TORCH, TORCH.nn.functional
    pairs = [
        (lambda: F.conv_transpose2d(flow.zeros(1, 1, 3, 3), flow.zeros(1, 1, 2, 2), groups=lambda: 0),
         lambda: tF.conv_transpose2d(torch.zeros(1, 1, 3, 3), torch.zeros(1, 1, 2, 2), groups=lambda: 0)),
        (lambda: flow.addmm(flow.zeros(5), flow.zeros(2, 3), flow.zeros(3, 4)),
         lambda: torch.addmm(torch.zeros(5), torch.zeros(2, 3), torch.zeros(3, 4))),
        (lambda: F.batch_norm(flow.zeros(2, 3), flow.zeros(4), flow.zeros(4)),
         lambda: tF.batch_norm(torch.zeros(2, 3), torch.zeros(4), torch.zeros(4))),
        (lambda: flow.flipud(-100), lambda: torch.flipud(-100)),
        (lambda: flow.cdist(flow.zeros(3, 1), 5), lambda: torch.cdist(torch.zeros(3, 1), 5)),
    ]
    for ours, theirs in pairs:
        assert type(_raised(ours)) is _torch_type(theirs)


# ---------------------------------------------------------------- the mechanism

def test_building_block_errors_name_the_public_op():
    # a core error (broadcasting) under the in-place alias less_ (whose building block is lt)
    e = _raised(lambda: flow.zeros(3).less_(flow.zeros(4)))
    assert str(e).startswith("less_(): lt: The size of tensor a")
    # a Python-level refusal (Tensor.__bool__) under a composite
    e = _raised(lambda: flow.zeros(3).min(None, flow.zeros(3)))
    assert isinstance(e, RuntimeError) and str(e).startswith("min(): Boolean value of Tensor")
    # (a bool argument of a binding refuses a tensor itself, as torch: TypeError)
    e = _raised(lambda: flow.all(flow.zeros(3), 0, flow.zeros(3)))
    assert isinstance(e, TypeError) and str(e).startswith("all(): argument 'keepdim'")


def test_an_aliased_argument_error_becomes_the_ops_own():
    # absolute forwards to abs; the argument is absolute's too, so no "abs()" is left
    e = _raised(lambda: flow.absolute(None))
    assert isinstance(e, TypeError) and re.match(r"^absolute\(\): argument 'input' .*must be Tensor, not NoneType$",
                                                 str(e))


def test_messages_outside_an_op_are_unchanged():
    e = _raised(lambda: bool(flow.zeros(3)))
    assert str(e) == "Boolean value of Tensor with 3 elements is ambiguous"
    e = _raised(lambda: flow.zeros(3) + flow.zeros(4))
    assert str(e).startswith("add: The size of tensor a")


def test_a_user_callback_is_not_attributed_to_the_caller():
    # the error is raised by the user's own code called back from a monoflow
    # function: the stack walk stops at the user's frame
    class Boom(flow.nn.Module):
        def forward(self, x):
            return bool(x)

    e = _raised(lambda: Boom()(flow.zeros(3)))
    assert str(e) == "Boolean value of Tensor with 3 elements is ambiguous"


def test_argument_checks_of_composites():
    cases = [
        (lambda: flow.cdist(flow.zeros(3, 1), 5), "cdist(): argument 'x2' (position 2) must be Tensor, not int"),
        (lambda: flow.take(flow.zeros(3), (2, 3)), "take(): argument 'index' (position 2) must be Tensor, not tuple"),
        (lambda: flow.diag(Ellipsis), "diag(): argument 'input' (position 1) must be Tensor, not ellipsis"),
        (lambda: F.embedding(flow.zeros(2, dtype=flow.int64), 3),
         "embedding(): argument 'weight' (position 2) must be Tensor, not int"),
        (lambda: flow.rand_like([2, 3]), "rand_like(): argument 'input' (position 1) must be Tensor, not list"),
    ]
    for call, message in cases:
        e = _raised(call)
        assert isinstance(e, TypeError) and str(e) == message
