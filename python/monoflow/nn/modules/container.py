"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (and the deprecated Container)."""
import operator
from collections import OrderedDict
from collections.abc import Mapping

from monoflow import _C
from monoflow.nn.module import Module, _addindent
from monoflow.nn.parameter import Parameter

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(op, idx, n):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx + n if idx < 0 else idx


def _renumber(modules, items):
    # Re-keys the module dict "0", "1", ... over items: the numbering stays contiguous, as torch's.
    modules.clear()
    for i, m in enumerate(items):
        modules[str(i)] = m


class Sequential(Module):
    """A chain of modules called in order, each on the previous one's output.

    Build it as ``Sequential(m1, m2, ...)`` (the children are named ``'0'``, ``'1'``, ...) or from an
    ``OrderedDict`` of names to modules. It supports indexing and slicing (a slice is a new Sequential),
    ``len``, iteration, ``+``, :meth:`append`, :meth:`insert`, :meth:`extend` and :meth:`pop`.

    Args:
        args: the modules, or a single ``OrderedDict`` mapping names to modules.

    Shape:
        - Input: what the first module takes.
        - Output: what the last module returns.

    Example::

        >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        >>> model(flow.randn(3, 4)).shape
        monoflow.Size([3, 2])
        >>> model[0]
        Linear(in_features=4, out_features=8, bias=True)
        >>> len(model[1:])
        2
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index("Sequential", idx, len(keys))]]

    def __setitem__(self, idx, module):
        keys = list(self._modules)
        setattr(self, keys[_index("Sequential", idx, len(keys))], module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        if isinstance(idx, slice):
            for k in keys[idx]:
                del self._modules[k]
        else:
            del self._modules[keys[_index("Sequential", idx, len(keys))]]
        _renumber(self._modules, list(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        out = Sequential()
        for m in list(self) + list(other):
            out.append(m)
        return out

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self._modules, items)
        return self

    def extend(self, sequential):
        for m in sequential:
            self.append(m)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules, registered so that their parameters belong to the owner.

    It supports indexing and slicing, ``len``, iteration, ``+=``, :meth:`append`, :meth:`extend`,
    :meth:`insert` and :meth:`pop`. It has no ``forward``: iterate over it in your own.

    Args:
        modules (iterable of Module, optional): the initial modules. Default: ``None``.

    Example::

        >>> layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        >>> layers.append(nn.ReLU())
        ModuleList(
          (0-2): 3 x Linear(in_features=4, out_features=4, bias=True)
          (3): ReLU()
        )
        >>> len(layers), len(list(layers.parameters()))
        (4, 6)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index("ModuleList", idx, len(self._modules)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index("ModuleList", idx, len(self._modules))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                del self._modules[str(k)]
        else:
            del self._modules[str(_index("ModuleList", idx, len(self._modules)))]
        _renumber(self._modules, list(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for m in list(self) + list(other):
            out.append(m)
        return out

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, (Module, _C.TensorBase)) or not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        for m in modules:
            self.append(m)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __repr__(self):
        # Runs of identical children print once: "(0-2): 3 x Linear(...)".
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for start, end, r in runs:
            head = f"({start}): " if start == end else f"({start}-{end}): {end - start + 1} x "
            lines.append(_addindent(head + r, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList is not callable: iterate over it")


class ModuleDict(Module):
    """An ordered dict of submodules (insertion order kept), registered so that their parameters belong to
    the owner.

    It supports ``[key]``, ``in``, ``len``, iteration over the keys, :meth:`keys`, :meth:`items`,
    :meth:`values`, :meth:`update`, :meth:`pop` and :meth:`clear`.

    Args:
        modules (dict or iterable of (str, Module) pairs, optional): the initial modules. Default:
            ``None``.

    Example::

        >>> heads = nn.ModuleDict({'cls': nn.Linear(8, 3), 'reg': nn.Linear(8, 1)})
        >>> heads['reg'](flow.randn(2, 8)).shape
        monoflow.Size([2, 1])
        >>> list(heads.keys())
        ['cls', 'reg']
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for k, m in modules.items():
                self[k] = m
        else:
            for j, item in enumerate(modules):
                if len(item) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length {len(item)}; 2 is "
                                     "required")
                self[item[0]] = item[1]

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict is not callable")


def _param_line(key, p, typename):
    if isinstance(p, _C.TensorBase):
        size = "x".join(str(s) for s in p.shape)
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{typename(p)} of size {size}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


_TYPENAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
              "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
              "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


def _typename(t):
    # torch.typename's legacy names (ParameterDict's repr uses them)
    return "monoflow." + _TYPENAMES.get(t.dtype.name, t.dtype.name)


def _as_parameter(value):
    # Tensors stored in the parameter containers become Parameters (torch's rule).
    if isinstance(value, _C.TensorBase) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters registered as ``'0'``, ``'1'``, ...; plain tensors are wrapped in
    :class:`Parameter`.

    It supports indexing, ``len``, iteration, ``+=``, :meth:`append` and :meth:`extend`. Calling it
    raises ``RuntimeError``.

    Args:
        values (iterable of Tensor, optional): the initial parameters. Default: ``None``.

    Example::

        >>> params = nn.ParameterList([flow.zeros(2), nn.Parameter(flow.ones(3))])
        >>> len(params), type(params[0]).__name__
        (2, 'Parameter')
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        return getattr(self, str(_index("ParameterList", idx, self._size)))

    def __setitem__(self, idx, param):
        idx = _index("ParameterList", idx, self._size)
        setattr(self, str(idx), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(self._size))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        new_idx = self._size
        self._size += 1
        setattr(self, str(new_idx), _as_parameter(value))
        return self

    def extend(self, values):
        if isinstance(values, _C.TensorBase) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " +
                            type(values).__name__)
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(i, p, lambda t: repr(t.dtype)) for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters; plain tensors are wrapped in :class:`Parameter`.

    It supports ``[key]``, ``in``, ``len``, iteration over the keys, :meth:`keys`, :meth:`items`,
    :meth:`values`, :meth:`get`, :meth:`setdefault`, :meth:`update`, :meth:`pop`, :meth:`copy` and
    :meth:`clear`. Calling it raises ``RuntimeError``.

    Args:
        parameters (dict or iterable of (str, Tensor) pairs, optional): the initial parameters. Default:
            ``None``.

    Example::

        >>> pd = nn.ParameterDict({'scale': flow.ones(3)})
        >>> pd['shift'] = flow.zeros(3)
        >>> list(pd.keys()), pd['scale'].requires_grad
        (['scale', 'shift'], True)
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for k, v in parameters.items():
                self[k] = v
        elif isinstance(parameters, Mapping):
            for k, v in sorted(parameters.items()):  # torch sorts plain mappings
                self[k] = v
        else:
            for j, item in enumerate(parameters):
                if len(item) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length {len(item)}; 2 is "
                                     "required")
                self[item[0]] = item[1]

    def extra_repr(self):
        return "\n".join(_param_line(k, p, _typename) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")


class Container(Module):
    """torch's deprecated ``Container(**modules)``: a Module holding the given submodules (warns when
    built; subclass :class:`Module` instead).

    Args:
        kwargs: the submodules, by name.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     c = nn.Container(fc=nn.Linear(2, 2))
        >>> list(dict(c.named_children()))
        ['fc']
    """

    def __init__(self, **kwargs):
        super().__init__()
        import warnings

        warnings.warn("nn.Container is deprecated. All of it's functionality is now implemented in nn.Module. "
                      "Subclass that instead.", stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)
