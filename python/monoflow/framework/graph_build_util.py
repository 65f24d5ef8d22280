"""``oneflow.framework.graph_build_util``: OneFlow's view of an nn.Graph while its ``build`` runs.

``lazy_mode.is_enabled()`` is True while a graph's build (and the forwards it calls) runs, False in
eager code; ``lazy_mode.guard(flag)`` sets it for a block. While build runs, each module of the graph
runs in a scope (``monoflow.current_scope()``) that carries the module's graph settings as OneFlow's
scope attributes: ``checkpointing`` (activation checkpointing on), ``pipeline_stage_id_hint`` (its
stage id), and the module's name in the graph as ``scope_op_name_prefixes``;
:func:`scope_to_proto` reads them with OneFlow's field names.

Example::

    >>> import monoflow as flow
    >>> from monoflow.framework import graph_build_util
    >>> class G(flow.nn.Graph):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.m = flow.nn.Linear(2, 2)
    ...         self.m.to(flow.nn.graph.GraphModule).activation_checkpointing = True
    ...     def build(self, x):
    ...         return self.m(x), graph_build_util.lazy_mode.is_enabled()
    >>> _, lazy = G()(flow.ones(1, 2))
    >>> lazy, graph_build_util.lazy_mode.is_enabled()
    (True, False)
"""
import contextlib
import itertools
import threading

__all__ = ["lazy_mode", "scope_to_proto", "Scope", "AttrValue", "ScopeProto"]

_state = threading.local()
_symbol_ids = itertools.count(1)


class _LazyMode:
    """OneFlow's lazy-mode switch: on while an nn.Graph builds."""

    @staticmethod
    def is_enabled():
        """Whether graph-building (lazy) mode is on in this thread."""
        return getattr(_state, "lazy", False)

    @staticmethod
    @contextlib.contextmanager
    def guard(enabled):
        """Sets lazy mode to `enabled` for the block, then restores it."""
        if not isinstance(enabled, bool):
            raise TypeError(f"lazy_mode.guard: expects a bool, got {type(enabled).__name__}")
        before = getattr(_state, "lazy", False)
        _state.lazy = enabled
        try:
            yield
        finally:
            _state.lazy = before


lazy_mode = _LazyMode()


class AttrValue:
    """One scope attribute, with OneFlow's AttrValue fields (``at_bool``, ``at_int64``) and
    ``WhichOneof("value")``: the field set, or None for an attribute the scope does not carry."""

    __slots__ = ("_field", "_value")

    def __init__(self, field=None, value=None):
        self._field, self._value = field, value

    @property
    def at_bool(self):
        return bool(self._value) if self._field == "at_bool" else False

    @property
    def at_int64(self):
        return int(self._value) if self._field == "at_int64" else 0

    def WhichOneof(self, name):
        if name != "value":
            raise ValueError(f"AttrValue.WhichOneof: no oneof named {name!r}")
        return self._field

    def __repr__(self):
        return f"AttrValue({self._field}={self._value!r})" if self._field else "AttrValue()"


class _AttrMap(dict):
    # a protobuf map of messages: a missing key reads as an empty AttrValue
    def __missing__(self, key):
        return AttrValue()


class Scope:
    """The scope a graph's module runs in while build runs (OneFlow's Scope symbol)."""

    def __init__(self, parent, attrs, prefixes):
        self.symbol_id = next(_symbol_ids)
        self.parent = parent
        self.attrs = dict(attrs)
        self.op_name_prefixes = list(prefixes)

    def __repr__(self):
        return f"Scope(symbol_id={self.symbol_id}, prefixes={self.op_name_prefixes}, attrs={self.attrs})"


class ScopeProto:
    """What :func:`scope_to_proto` returns: OneFlow's ScopeProto fields of a scope."""

    def __init__(self, scope):
        self.symbol_id = scope.symbol_id
        self.parent_scope_symbol_id = scope.parent.symbol_id if scope.parent is not None else 0
        self.scope_op_name_prefixes = list(scope.op_name_prefixes)
        self.attr_name2attr_value = _AttrMap(
            (k, AttrValue("at_bool" if isinstance(v, bool) else "at_int64", v)) for k, v in scope.attrs.items())
        self.session_id = 0


def scope_to_proto(scope):
    """OneFlow's ``graph_build_util.scope_to_proto``: the fields of `scope` (a :class:`Scope` from
    ``monoflow.current_scope()``) under OneFlow's ScopeProto names."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_to_proto: expects a Scope (monoflow.current_scope()), got {type(scope).__name__}")
    return ScopeProto(scope)


def current_scope():
    """current_scope() -> the scope the running code of an nn.Graph's build is in (OneFlow's
    ``flow.current_scope()``), or None outside build. Takes no arguments; read it with
    :func:`scope_to_proto`.

    Example::

        >>> import monoflow as flow
        >>> from monoflow.framework.graph_build_util import scope_to_proto
        >>> class G(flow.nn.Graph):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.m = flow.nn.Identity()
        ...         self.m.to(flow.nn.graph.GraphModule).set_stage(1)
        ...     def build(self, x):
        ...         self.m(x)
        ...         return x, flow.current_scope() is not None
        >>> G()(flow.ones(1))[1], flow.current_scope()
        (True, None)
    """
    stack = getattr(_state, "scopes", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def module_scope(attrs, prefixes):
    """Enters a child scope of the current one for a module of the graph (graph_module.py)."""
    stack = getattr(_state, "scopes", None)
    if stack is None:
        stack = _state.scopes = []
    stack.append(Scope(stack[-1] if stack else None, attrs, prefixes))
    try:
        yield stack[-1]
    finally:
        stack.pop()


@contextlib.contextmanager
def entered(scope):
    """Makes `scope` (None: no scope) current again for a block: a checkpointed module's recompute
    in backward runs in the scope its forward ran in."""
    stack = getattr(_state, "scopes", None)
    if stack is None:
        stack = _state.scopes = []
    before = list(stack)
    stack[:] = [] if scope is None else _chain(scope)
    try:
        yield scope
    finally:
        stack[:] = before


def _chain(scope):
    chain = []
    while scope is not None:
        chain.append(scope)
        scope = scope.parent
    return chain[::-1]


@contextlib.contextmanager
def building(graph_name):
    """Lazy mode on and the graph's root scope entered, while `graph_name`'s build runs."""
    with lazy_mode.guard(True), module_scope({}, []):
        yield
