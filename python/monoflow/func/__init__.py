"""monoflow.func: torch.func's function transforms, built on monoflow's autograd.

``grad`` / ``grad_and_value`` / ``vjp`` / ``jacrev`` differentiate a function
of tensors (or of dicts/tuples of tensors: a model's parameters);
``vmap`` maps a function over a batch dimension. monoflow has no batching
rule per op, so vmap runs the function once per batch element and stacks
the results: the values are torch's, the speed is that of a Python loop.
With ``functional_call`` and ``stack_module_state`` this runs torch's
per-sample-gradient and model-ensembling tutorials."""
import monoflow as flow
from monoflow.autograd import grad as _autograd_grad
from monoflow.nn.utils.stateless import functional_call

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jacrev", "vmap", "stack_module_state"]


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
                if not isinstance(x, flow.Tensor):
                    raise TypeError(f"grad(): the differentiated argument {n} must hold only Tensors, "
                                    f"not {type(x).__name__}")
                outer |= x.requires_grad
            inputs[n], specs[n] = _as_inputs(leaves), spec
            args[n] = _unflatten(inputs[n], spec)
        with flow.enable_grad():
            out = func(*args, **kwargs)
            value, aux = (out[0], out[1]) if has_aux else (out, None)
            if not isinstance(value, flow.Tensor) or value.numel() != 1:
                raise RuntimeError("grad(): the function must return a Tensor with a single element "
                                   f"(got {type(value).__name__}{'' if not isinstance(value, flow.Tensor) else ' of shape ' + str(tuple(value.shape))})")
            flat = [x for n in nums for x in inputs[n]]
            grads = _autograd_grad(value, flat, create_graph=outer, allow_unused=True)
        grads = [flow.zeros_like(x) if g is None else g for g, x in zip(grads, flat)]
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
    with flow.enable_grad():
        out = func(*[_unflatten(l, s) for l, s in zip(flat, specs)])
    out, aux = (out[0], out[1]) if has_aux else (out, None)
    out_leaves, out_spec = _flatten(out)

    def vjp_fn(cotangents):
        cot = _flatten(cotangents)[0]
        inputs = [x for leaves in flat for x in leaves]
        gs = _autograd_grad(out_leaves, inputs, grad_outputs=cot, retain_graph=True, allow_unused=True)
        gs = [flow.zeros_like(x) if g is None else g for g, x in zip(gs, inputs)]
        res, at = [], 0
        for leaves, spec in zip(flat, specs):
            res.append(_unflatten(gs[at:at + len(leaves)], spec))
            at += len(leaves)
        return tuple(res)

    detached = _unflatten([o.detach() for o in out_leaves], out_spec)
    return (detached, vjp_fn, aux) if has_aux else (detached, vjp_fn)


def jacrev(func, argnums=0):
    """The Jacobian of ``func`` (one tensor out) with respect to the tensor argument ``argnums``, by reverse mode:
    shape ``output.shape + input.shape``."""
    def wrapper(*args):
        args = list(args)
        x = args[argnums].detach().requires_grad_()
        args[argnums] = x
        with flow.enable_grad():
            y = func(*args)
            rows = []
            flat_y = y.reshape(-1)
            for i in range(flat_y.numel()):
                (g,) = _autograd_grad(flat_y[i], [x], retain_graph=True, allow_unused=True)
                rows.append(flow.zeros_like(x) if g is None else g)
        return flow.stack(rows).reshape(tuple(y.shape) + tuple(x.shape))
    return wrapper


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
                if not isinstance(x, flow.Tensor):
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
        stacked = [flow.stack([c if isinstance(c, flow.Tensor) else flow.tensor(c) for c in col], dim=d)
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
    params = {k: flow.stack([dict(m.named_parameters())[k].detach() for m in models]).requires_grad_()
              for k, _ in models[0].named_parameters()}
    buffers = {k: flow.stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers
