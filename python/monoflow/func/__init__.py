"""monoflow.func: torch.func's function transforms, built on monoflow's autograd.

``grad`` / ``grad_and_value`` / ``vjp`` / ``jvp`` / ``jacrev`` / ``jacfwd`` / ``hessian`` differentiate a function
of tensors (or of dicts/tuples of tensors: a model's parameters);
``vmap`` maps a function over a batch dimension. monoflow has no batching
rule per op, so vmap runs the function once per batch element and stacks
the results: the values are torch's, the speed is that of a Python loop.
With ``functional_call`` and ``stack_module_state`` this runs torch's
per-sample-gradient and model-ensembling tutorials."""
from monoflow import _creation, ops_shape
from monoflow._tensor import Tensor
from monoflow.autograd import grad as _autograd_grad
from monoflow.autograd.grad_mode import enable_grad
from monoflow.nn.utils.stateless import functional_call

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "stack_module_state"]


# ---------------------------------------------------------------- pytrees of tensors (tuple, list, dict leaves)

def _flatten(tree):
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = _flatten(item)
            leaves += sub
            specs.append(spec)
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key, item in tree.items():
            sub, spec = _flatten(item)
            leaves += sub
            specs.append((key, spec))
        return leaves, (dict, specs)
    return [tree], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, parts = s
        if kind is dict:
            return {k: build(p) for k, p in parts}
        items = [build(p) for p in parts]
        return kind(*items) if hasattr(kind, "_fields") else kind(items)

    return build(spec)


# ---------------------------------------------------------------- grad, grad_and_value, vjp, jacrev

def _as_inputs(leaves):
    # a leaf that is already part of an outer graph keeps its history (grad of grad); others become fresh leaves
    return [x if x.requires_grad else x.detach().requires_grad_() for x in leaves]


def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, returning ``(gradient, value)`` (``((gradient, value), aux)`` ... as torch:
    ``(gradient, (value, aux))`` with ``has_aux``)."""
    def wrapper(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for n in nums:
            if not -len(args) <= n < len(args):
                raise RuntimeError(f"grad(): Got argnums={argnums} but only {len(args)} positional inputs")
        args = list(args)
        specs, inputs = {}, {}
        outer = False
        for n in nums:
            leaves, spec = _flatten(args[n])
            for x in leaves:
                if not isinstance(x, Tensor):
                    raise TypeError(f"grad(): the differentiated argument {n} must hold only Tensors, "
                                    f"not {type(x).__name__}")
                outer |= x.requires_grad
            inputs[n], specs[n] = _as_inputs(leaves), spec
            args[n] = _unflatten(inputs[n], spec)
        with enable_grad():
            out = func(*args, **kwargs)
            value, aux = (out[0], out[1]) if has_aux else (out, None)
            if not isinstance(value, Tensor) or value.numel() != 1:
                raise RuntimeError("grad(): the function must return a Tensor with a single element "
                                   f"(got {type(value).__name__}{'' if not isinstance(value, Tensor) else ' of shape ' + str(tuple(value.shape))})")
            flat = [x for n in nums for x in inputs[n]]
            grads = _autograd_grad(value, flat, create_graph=outer, allow_unused=True)
        grads = [_creation.zeros_like(x) if g is None else g for g, x in zip(grads, flat)]
        pieces, at = [], 0
        for n in nums:
            k = len(inputs[n])
            pieces.append(_unflatten(grads[at:at + k], specs[n]))
            at += k
        result = pieces[0] if isinstance(argnums, int) else tuple(pieces)
        value = value if outer else value.detach()
        return (result, (value, aux)) if has_aux else (result, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar-valued ``func`` with respect to its argument(s) ``argnums``.

    Example::

        >>> from monoflow.func import grad
        >>> grad(lambda x: (x ** 2).sum())(flow.tensor([1.0, 3.0]))
        tensor([2., 6.])
    """
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns the vector-Jacobian products, one per primal."""
    flat, specs = [], []
    for p in primals:
        leaves, spec = _flatten(p)
        leaves = _as_inputs(leaves)
        flat.append(leaves)
        specs.append(spec)
    with enable_grad():
        out = func(*[_unflatten(l, s) for l, s in zip(flat, specs)])
    out, aux = (out[0], out[1]) if has_aux else (out, None)
    out_leaves, out_spec = _flatten(out)

    def vjp_fn(cotangents):
        cot = _flatten(cotangents)[0]
        inputs = [x for leaves in flat for x in leaves]
        gs = _autograd_grad(out_leaves, inputs, grad_outputs=cot, retain_graph=True, allow_unused=True)
        gs = [_creation.zeros_like(x) if g is None else g for g, x in zip(gs, inputs)]
        res, at = [], 0
        for leaves, spec in zip(flat, specs):
            res.append(_unflatten(gs[at:at + len(leaves)], spec))
            at += len(leaves)
        return tuple(res)

    detached = _unflatten([o.detach() for o in out_leaves], out_spec)
    return (detached, vjp_fn, aux) if has_aux else (detached, vjp_fn)


def _check_argnums(argnums, args, name):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or not all(isinstance(n, int) for n in nums):
        raise RuntimeError(f"{name}(): argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    for n in nums:
        if not -len(args) <= n < len(args):
            raise RuntimeError(f"{name}(): Got argnums={argnums} but only {len(args)} positional inputs")
    return nums


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to its argument(s) ``argnums``, by reverse mode (one backward pass
    per output element).

    Each output tensor ``y`` and input tensor ``x`` give a block of shape ``y.shape + x.shape``; the blocks are
    arranged as the outputs (a tensor, or a tuple/dict of them) holding, for each, the inputs' structure (one
    argument's structure for an int ``argnums``, a tuple of them for a tuple). Nested transforms compose
    (``jacfwd(jacrev(f))`` is the Hessian).

    Args:
        func (callable): a function of tensors returning a tensor (or a tuple/dict of tensors).
        argnums (int or tuple of int): the argument(s) to differentiate. Default: ``0``.
        has_aux (bool): ``func`` returns ``(output, aux)``; ``aux`` is returned beside the Jacobian.
        chunk_size (int, optional): accepted for torch compatibility.

    Example::

        >>> from monoflow.func import jacrev
        >>> jacrev(lambda x: x ** 2)(flow.tensor([1.0, 3.0]))
        tensor([[2., 0.],
                [0., 6.]])
    """
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, args, "jacrev")
        args = list(args)
        specs, inputs, outer = {}, {}, False
        for n in nums:
            leaves, spec = _flatten(args[n])
            for x in leaves:
                if not isinstance(x, Tensor):
                    raise TypeError(f"jacrev(): the differentiated argument {n} must hold only Tensors, "
                                    f"not {type(x).__name__}")
                outer |= x.requires_grad
            inputs[n], specs[n] = _as_inputs(leaves), spec
            args[n] = _unflatten(inputs[n], spec)
        flat_in = [x for n in nums for x in inputs[n]]
        with enable_grad():
            out = func(*args, **kwargs)
            out, aux = (out[0], out[1]) if has_aux else (out, None)
            out_leaves, out_spec = _flatten(out)
            per_out = []
            for y in out_leaves:
                if not isinstance(y, Tensor):
                    raise RuntimeError(f"jacrev(): the function must return Tensors, got {type(y).__name__}")
                rows = [[] for _ in flat_in]
                flat_y = y.reshape(-1)
                for i in range(flat_y.numel()):
                    gs = (_autograd_grad(flat_y[i], flat_in, retain_graph=True, create_graph=outer, allow_unused=True)
                          if y.requires_grad else [None] * len(flat_in))
                    for k, (g, x) in enumerate(zip(gs, flat_in)):
                        rows[k].append(_creation.zeros_like(x) if g is None else g)
                blocks = [ops_shape.stack(r).reshape(tuple(y.shape) + tuple(x.shape)) if r else
                          _creation.zeros(tuple(y.shape) + tuple(x.shape), dtype=x.dtype, device=x.device)
                          for r, x in zip(rows, flat_in)]
                pieces, at = [], 0
                for n in nums:
                    k = len(inputs[n])
                    pieces.append(_unflatten(blocks[at:at + k], specs[n]))
                    at += k
                per_out.append(pieces[0] if isinstance(argnums, int) else tuple(pieces))
        result = _unflatten(per_out, out_spec)
        return (result, aux) if has_aux else result
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to ``argnums``, laid out as :func:`jacrev`'s. torch computes it in
    forward mode; monoflow has no forward-mode autograd and computes the same values in reverse mode.

    Example::

        >>> from monoflow.func import jacfwd
        >>> jacfwd(lambda x: x.sin())(flow.tensor([0.0, 0.0]))
        tensor([[1., 0.],
                [0., 1.]])
    """
    if not isinstance(randomness, str) or randomness not in ("error", "different", "same"):
        raise RuntimeError(f"jacfwd(): Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of a function with respect to ``argnums``: ``jacfwd(jacrev(func, argnums), argnums)``.

    Example::

        >>> from monoflow.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(flow.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product, computed as the derivative of the
    vector-Jacobian product ``u -> J^T u`` (linear in ``u``) in the direction ``tangents``.

    Args:
        func (callable): a function of tensors returning a tensor (or a tuple/dict of tensors).
        primals (tuple): the arguments (tensors or structures of them).
        tangents (tuple): one tangent per primal, of the same structure and shapes.
        has_aux (bool): ``func`` returns ``(output, aux)``; then ``(output, jvp_out, aux)`` is returned.

    Example::

        >>> from monoflow.func import jvp
        >>> jvp(lambda x: x ** 2, (flow.tensor([1.0, 3.0]),), (flow.tensor([1.0, 1.0]),))
        (tensor([1., 9.]), tensor([2., 6.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples of the same "
                           "length.")
    flat, specs, outer = [], [], False
    for p in primals:
        leaves, spec = _flatten(p)
        outer |= any(isinstance(x, Tensor) and x.requires_grad for x in leaves)
        flat.append(_as_inputs(leaves))
        specs.append(spec)
    inputs = [x for leaves in flat for x in leaves]
    tans = [t for tan in tangents for t in _flatten(tan)[0]]
    if len(tans) != len(inputs) or any(tuple(t.shape) != tuple(x.shape) for t, x in zip(tans, inputs)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same structure "
                           "and shapes.")
    with enable_grad():
        out = func(*[_unflatten(l, s) for l, s in zip(flat, specs)])
        out, aux = (out[0], out[1]) if has_aux else (out, None)
        out_leaves, out_spec = _flatten(out)
        live = [o for o in out_leaves if o.requires_grad]
        dummies = [_creation.zeros_like(o).requires_grad_() for o in live]
        results = {}
        if live:
            vj = _autograd_grad(live, inputs, grad_outputs=dummies, create_graph=True, allow_unused=True)
            pairs = [(g, t) for g, t in zip(vj, tans) if g is not None and g.requires_grad]
            if pairs:
                jv = _autograd_grad([g for g, _ in pairs], dummies, grad_outputs=[t for _, t in pairs],
                                    create_graph=outer, allow_unused=True)
                results = {id(o): r for o, r in zip(live, jv) if r is not None}
    jvp_out = [results.get(id(o), _creation.zeros_like(o)) for o in out_leaves]
    value = [o if outer else o.detach() for o in out_leaves]
    value, jvp_out = _unflatten(value, out_spec), _unflatten(jvp_out, out_spec)
    return (value, jvp_out, aux) if has_aux else (value, jvp_out)


# ---------------------------------------------------------------- vmap

def _dims_per_leaf(in_dim, arg):
    leaves, spec = _flatten(arg)
    if isinstance(in_dim, (tuple, list, dict)):
        dims, _ = _flatten(in_dim)
        if len(dims) != len(leaves):
            raise ValueError("vmap(): in_dims is not compatible with the structure of the inputs")
    else:
        dims = [in_dim] * len(leaves)
    return leaves, spec, dims


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Maps ``func`` over dimension ``in_dims`` of its inputs (None: not mapped), stacking the results along
    ``out_dims``; runs ``func`` once per batch element.

    Args:
        func (callable): the function of one batch element.
        in_dims (int, None or tuple): the mapped dimension of each positional input (a nested tuple/dict for
            a structured input); ``None`` passes the input unmapped. Default: ``0``.
        out_dims (int or tuple): where the batch dimension goes in each output. Default: ``0``.
        randomness (str): ``'error'``, ``'different'`` or ``'same'``, accepted as torch's; each call draws
            from the generator in turn, which is ``'different'``. Default: ``'error'``.
        chunk_size (int, optional): accepted for torch compatibility (the calls are one by one anyway).

    Example::

        >>> from monoflow.func import vmap
        >>> vmap(lambda row: row.sum())(flow.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([3., 7.])
    """
    if not isinstance(randomness, str) or randomness not in ("error", "different", "same"):
        raise RuntimeError(f"vmap(): Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(): in_dims is not compatible with the structure of `inputs`: in_dims has "
                             f"{len(dims)} elements but there are {len(args)} positional inputs")
        per_arg, size = [], None
        for arg, d in zip(args, dims):
            leaves, spec, ds = _dims_per_leaf(d, arg)
            for x, dd in zip(leaves, ds):
                if dd is None:
                    continue
                if not isinstance(x, Tensor):
                    raise ValueError(f"vmap(): Got in_dim={dd} for an input but the input is of type "
                                     f"{type(x).__name__}. We cannot vmap over non-Tensor arguments")
                n = x.shape[dd]
                if size is not None and n != size:
                    raise ValueError(f"vmap(): Expected all tensors to have the same size in the mapped dimension, "
                                     f"got sizes {size} and {n} for the mapped dimension")
                size = n
            per_arg.append((leaves, spec, ds))
        if size is None:
            raise ValueError("vmap(): at least one input must be mapped (in_dims all None)")
        results = []
        for i in range(size):
            call = [_unflatten([x if d is None else x.select(d, i) for x, d in zip(leaves, ds)], spec)
                    for leaves, spec, ds in per_arg]
            results.append(func(*call, **kwargs))
        leaves0, spec0 = _flatten(results[0])
        columns = zip(*[_flatten(r)[0] for r in results])
        od = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(leaves0)
        stacked = [ops_shape.stack([c if isinstance(c, Tensor) else _creation.tensor(c) for c in col], dim=d)
                   for col, d in zip(columns, od)]
        return _unflatten(stacked, spec0)
    return wrapper


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer name mapped to the stack of the models' tensors (ensembling
    with vmap over ``functional_call``)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    params = {k: ops_shape.stack([dict(m.named_parameters())[k].detach() for m in models]).requires_grad_()
              for k, _ in models[0].named_parameters()}
    buffers = {k: ops_shape.stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers
