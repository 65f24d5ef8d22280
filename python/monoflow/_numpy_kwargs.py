"""numpy's keyword names on torch's ops: ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``.

torch's argument parser accepts them on every op it binds from its native
declarations (``x.argmax(axis=1)`` in d2l's ``accuracy``, ``x.sum(axis=0,
keepdims=True)`` in its from-scratch chapters), but not on the ops it writes
in Python (``Tensor.split``, ``Tensor.norm``, ``F.softmax``). The listed
functions and Tensor methods are wrapped once: a call without keywords, or
without these two, goes straight through; otherwise the names are renamed
and giving both spellings is a TypeError, as in torch.
"""
import functools

# (checked against torch 2.13: each of these takes axis=/keepdims=, the ones torch writes in Python do not)
NAMES = """
all amax amin aminmax any argmax argmin argsort count_nonzero cummax cummin cumprod cumsum diff log_softmax
logcumsumexp logsumexp max mean median min mode nanmean nanmedian nansum prod softmax sort squeeze std sum
unbind unsqueeze var var_mean std_mean gather index_select narrow select chunk topk kthvalue repeat_interleave
scatter scatter_add scatter_reduce index_add index_copy index_fill index_reduce cat stack concat concatenate
take_along_dim tensor_split cross trapezoid cumulative_trapezoid renorm quantile nanquantile
""".split()
# Tensor methods only (in-place forms)
METHOD_NAMES = "cumprod_ cumsum_ squeeze_ unsqueeze_ scatter_ scatter_add_ scatter_reduce_ index_add_ index_copy_ " \
               "index_fill_ index_reduce_ renorm_".split()

_RENAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def _renamed(name, kwargs):
    for numpy_name, torch_name in _RENAMES:
        if numpy_name in kwargs:
            if torch_name in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{torch_name}' (given as "
                                f"'{torch_name}' and as '{numpy_name}')")
            kwargs[torch_name] = kwargs.pop(numpy_name)
    return kwargs


def _accepting(name, fn):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs):
            kwargs = _renamed(name, kwargs)
        return fn(*args, **kwargs)
    # (its frame names the op, for errors raised beneath: Note [Naming the op in progress], _args.pxi)
    op.__code__ = op.__code__.replace(co_name=name)
    op.__numpy_kwargs__ = True
    return op


def _wrap(namespace, names, get):
    wrappers = {}
    for name in names:
        fn = get(namespace, name)
        if fn is None or not callable(fn) or getattr(fn, "__numpy_kwargs__", False) or getattr(
                fn, "__monoflow_not_implemented__", False):
            continue
        if id(fn) not in wrappers:
            wrappers[id(fn)] = _accepting(name, fn)
        setattr(namespace, name, wrappers[id(fn)])


def install(namespace):
    """Wraps the listed free functions of `namespace` (monoflow)."""
    _wrap(namespace, NAMES, lambda ns, name: getattr(ns, name, None))


def install_methods(cls):
    """Wraps the listed methods of `cls` (monoflow.Tensor), found through its MRO, as plain functions on `cls`."""
    def raw(c, name):
        for base in c.__mro__:
            if name in base.__dict__:
                return base.__dict__[name]
        return None
    _wrap(cls, NAMES + METHOD_NAMES, raw)
