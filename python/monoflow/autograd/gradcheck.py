"""Finite-difference checks of analytical gradients (float64 inputs advised)."""
import numpy as np

from monoflow import _C, _creation
from monoflow.autograd.grad_mode import no_grad


class GradcheckError(RuntimeError):
    """An analytical gradient differs from the numerical one."""


def _as_tuple(x):
    """The inputs as a tuple: a list is its elements (as in torch), anything else one input."""
    return tuple(x) if isinstance(x, list) else x if isinstance(x, tuple) else (x,)


def _numerical_jacobian(fn, inputs, i, eps):
    # Central differences, one input element at a time; columns: outputs flattened.
    x = inputs[i]
    flat = x.detach().reshape(-1)
    cols = []
    for k in range(flat.numel()):
        orig = flat[k].item()
        with no_grad():
            flat[k] = orig + eps
            plus = [o.detach().reshape(-1).numpy().astype(np.float64).copy() for o in _as_tuple(fn(*inputs))]
            flat[k] = orig - eps
            minus = [o.detach().reshape(-1).numpy().astype(np.float64).copy() for o in _as_tuple(fn(*inputs))]
            flat[k] = orig
        cols.append(np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]))
    if cols:
        return np.stack(cols, 0)
    n_out = sum(o.numel() for o in _as_tuple(fn(*inputs)))
    return np.zeros((0, n_out))


def _analytical_jacobian(fn, inputs, diff):
    # One backward per output element: row k of J^T is the gradient of output k.
    from monoflow.autograd import grad as ag_grad

    outs = list(_as_tuple(fn(*inputs)))
    cols = [[] for _ in diff]
    for j, o in enumerate(outs):
        for k in range(o.numel()):
            seeds = []
            for jj, oo in enumerate(outs):
                g = np.zeros(oo.numel())
                if jj == j:
                    g[k] = 1.0
                seeds.append(_like(oo, g.reshape(tuple(oo.shape))))
            res = ag_grad(outs, [inputs[i] for i in diff], seeds, retain_graph=True, allow_unused=True)
            for n, (i, r) in enumerate(zip(diff, res)):
                cols[n].append(np.zeros(inputs[i].numel()) if r is None
                               else r.reshape(-1).numpy().astype(np.float64))
    return [np.stack(c, 1) if c else np.zeros((inputs[i].numel(), 0)) for c, i in zip(cols, diff)]


def _like(t, arr):
    return _creation.tensor(arr, dtype=t.dtype, device=t.device)


def _unsupported_checks(name, **flags):
    for flag, value in flags.items():
        if value:
            raise NotImplementedError(f"{name}(): {flag}=True is not supported: monoflow has no forward-mode "
                                      f"autograd and no batched (vmap) gradients")


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Checks the gradients autograd computes for ``fn(*inputs)`` against central finite differences.

    Every input that requires grad is checked, Jacobian entry by entry; use
    float64 inputs (float32 rounding is far above the default tolerances).

    Args:
        fn (callable): takes the inputs, returns a tensor or a tuple of tensors.
        inputs (Tensor or tuple): the arguments of ``fn``; at least one tensor must
            require grad (``ValueError`` otherwise).
        eps (float): the finite-difference step. Default: ``1e-6``.
        atol (float): absolute tolerance. Default: ``1e-5``.
        rtol (float): relative tolerance. Default: ``1e-3``.
        raise_exception (bool): raise :class:`GradcheckError` on a mismatch instead of
            returning ``False``. Default: ``True``.
        nondet_tol (float): torch's tolerance for nondeterministic backward passes; accepted (monoflow's
            are deterministic). Default: ``0.0``.
        check_undefined_grad (bool): accepted for torch compatibility. Default: ``True``.
        check_grad_dtypes (bool): also require each gradient's dtype to be its input's. Default: ``False``.
        check_batched_grad (bool): not supported (``NotImplementedError`` when ``True``). Default: ``False``.
        check_batched_forward_grad (bool): not supported (``NotImplementedError`` when ``True``).
            Default: ``False``.
        check_forward_ad (bool): not supported: monoflow has no forward-mode autograd
            (``NotImplementedError`` when ``True``). Default: ``False``.
        check_backward_ad (bool): check the gradients (``False``: nothing is checked). Default: ``True``.
        fast_mode (bool): torch's faster check of a random projection; monoflow always checks every
            Jacobian entry, which is at least as strict. Default: ``False``.
        masked (bool, optional): accepted for torch compatibility (sparse inputs). Default: ``None``.

    Returns:
        bool: ``True`` when every Jacobian matches.

    Example::

        >>> x = flow.tensor([0.5, 1.5], dtype=flow.float64, requires_grad=True)
        >>> flow.autograd.gradcheck(flow.sin, (x,))
        True
    """
    _unsupported_checks("gradcheck", check_batched_grad=check_batched_grad,
                        check_batched_forward_grad=check_batched_forward_grad, check_forward_ad=check_forward_ad)
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.TensorBase) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    if not check_backward_ad:
        return True
    if check_grad_dtypes:
        _check_grad_dtypes(fn, inputs, diff, raise_exception)
    analytical = _analytical_jacobian(fn, inputs, diff)
    for n, i in enumerate(diff):
        numerical = _numerical_jacobian(fn, inputs, i, eps)
        # NaN where both are NaN agrees (e.g. var over one element, as in torch)
        if not np.allclose(analytical[n], numerical, atol=atol, rtol=rtol, equal_nan=True):
            if raise_exception:
                raise GradcheckError(f"gradcheck: Jacobian mismatch for input {i}:\nnumerical:\n{numerical}\n"
                                     f"analytical:\n{analytical[n]}")
            return False
    return True


def _check_grad_dtypes(fn, inputs, diff, raise_exception):
    from monoflow.autograd import grad as ag_grad
    from monoflow.autograd.grad_mode import enable_grad

    with enable_grad():
        outs = [o for o in _as_tuple(fn(*inputs)) if isinstance(o, _C.TensorBase) and o.requires_grad]
        if not outs:
            return
        gs = ag_grad([o.sum() for o in outs], [inputs[i] for i in diff], allow_unused=True)
    for i, g in zip(diff, gs):
        if g is not None and g.dtype != inputs[i].dtype:
            raise GradcheckError(f"gradcheck: Gradient has dtype mismatch for input {i}: got {g.dtype}, "
                                 f"expected {inputs[i].dtype}")


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Checks second derivatives: :func:`gradcheck` of the map ``(inputs, v) -> v^T J``.

    Args:
        fn (callable): takes the inputs, returns a tensor or a tuple of tensors.
        inputs (Tensor or tuple): the arguments of ``fn``; those that require grad are checked.
        grad_outputs (Tensor or tuple, optional): the vectors ``v``, one per output;
            random ones when ``None``. Default: ``None``.
        eps (float): the finite-difference step. Default: ``1e-6``.
        atol (float): absolute tolerance. Default: ``1e-5``.
        rtol (float): relative tolerance. Default: ``1e-3``.
        gen_non_contig_grad_outputs (bool): accepted for torch compatibility; the
            random ``grad_outputs`` are contiguous. Default: ``False``.
        raise_exception (bool): raise :class:`GradcheckError` on a mismatch instead of
            returning ``False``. Default: ``True``.
        nondet_tol (float): accepted for torch compatibility. Default: ``0.0``.
        check_undefined_grad (bool): accepted for torch compatibility. Default: ``True``.
        check_grad_dtypes (bool): as in :func:`gradcheck`. Default: ``False``.
        check_batched_grad (bool): not supported (``NotImplementedError`` when ``True``). Default: ``False``.
        check_fwd_over_rev (bool): not supported: monoflow has no forward-mode autograd
            (``NotImplementedError`` when ``True``). Default: ``False``.
        check_rev_over_rev (bool): check the second derivatives by reverse mode over reverse mode
            (``False``: nothing is checked). Default: ``True``.
        fast_mode (bool): as in :func:`gradcheck` (every entry is checked). Default: ``False``.
        masked (bool): accepted for torch compatibility. Default: ``False``.

    Returns:
        bool: ``True`` when every second-order Jacobian matches.

    Example::

        >>> x = flow.tensor([0.5, 1.5], dtype=flow.float64, requires_grad=True)
        >>> flow.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    from monoflow import _creation
    from monoflow.autograd import grad as ag_grad
    from monoflow.autograd.grad_mode import enable_grad
    from monoflow.ops_random import randn

    _unsupported_checks("gradgradcheck", check_batched_grad=check_batched_grad,
                        check_fwd_over_rev=check_fwd_over_rev)
    inputs = _as_tuple(inputs)
    diff = [x for x in inputs if isinstance(x, _C.TensorBase) and x.requires_grad]
    if diff and not check_rev_over_rev:
        return True
    outs = _as_tuple(fn(*inputs))
    if grad_outputs is None:
        grad_outputs = tuple(randn(tuple(o.shape), dtype=o.dtype, device=o.device).requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivative(*args):
        xs, vs = args[:n], args[n:]
        with enable_grad():  # (the finite differences call this under no_grad)
            ys = _as_tuple(fn(*xs))
            wrt = [x for x in xs if isinstance(x, _C.TensorBase) and x.requires_grad]
            gs = ag_grad(list(ys), wrt, list(vs), create_graph=True, allow_unused=True)
        return tuple(_creation.zeros_like(x) if g is None else g for g, x in zip(gs, wrt))

    if not diff:
        raise ValueError("gradgradcheck expects at least one input tensor to require gradient")
    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_grad_dtypes=check_grad_dtypes)
