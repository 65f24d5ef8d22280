"""flow.nn.graph.GraphModule: per-module settings of a graph (OneFlow's
spelling). Inside a Graph, ``self.model.to(flow.nn.graph.GraphModule)``
gives the settings of that module:

    self.model.to(flow.nn.graph.GraphModule).activation_checkpointing = True
    self.model.layer2.to(flow.nn.graph.GraphModule).set_stage(1, flow.placement("cpu", [1]))

A graph's module attributes are read through a ModuleView (as OneFlow's
proxy modules): it forwards everything to the module, and its ``to``
also accepts the GraphModule class (the settings) and nn.Module (the
module itself). ``isinstance(view, type(module))`` holds.

Note [Activation checkpointing in a graph]
    While the graph traces build (and during its eager first step), the
    forward of each module with ``activation_checkpointing = True`` runs
    through flow.utils.checkpoint.checkpoint: its activations are not kept,
    and backward recomputes them. The recomputation's kernels are recorded
    like any backward kernel, so the plan recomputes too; the setting is
    part of the plan's cache key. Random ops inside such a module (dropout):
    checkpoint restores the generator around the recompute, eagerly and in
    the trace alike, so the recompute's random kernel repeats the forward's
    reservation; the trace records it as sharing that draw, and the plan
    gives both nodes the same (seed, offset) at every run (Note [Shared
    random draws] in core/include/monoflow/generator.h): the recompute sees
    the forward's mask, as in eager mode. The module's forward gets copies of
    its tensor inputs (differentiable clones), so an in-place op on an input
    inside it (flow.nn.init.uniform_(x)) leaves the input checkpoint saved as
    it was and the recompute starts from the same values, as OneFlow's lazy
    graph does (an eager checkpoint refuses such a module); the caller's
    tensor does not see that in-place change.
"""
import types

from monoflow import _C
from monoflow.nn.module import Module

__all__ = ["GraphModule", "ModuleView"]


class GraphModule:
    """The graph-level settings of one module of an :class:`~monoflow.nn.Graph`:
    ``activation_checkpointing`` (recompute its activations in backward instead of keeping them) and its
    pipeline stage (:meth:`set_stage`).

    Get it with ``graph.<module>.to(flow.nn.graph.GraphModule)``, inside or outside ``build``; the graph
    creates it.

    Its ``name`` is the module's attribute name and ``name_prefix`` the path of the modules above it in
    the graph (``"m.layer."`` for ``graph.m.layer.conv1``; empty for a module assigned to the graph), as
    OneFlow's; ``type`` is ``"MODULE"``.

    Args:
        module (Module): the module it configures (``.module``).
        name (str): the module's dotted path in the graph (``"m.layer.conv1"``).

    Example::

        >>> class G(nn.Graph):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        ...         self.block.to(nn.graph.GraphModule).activation_checkpointing = True
        ...     def build(self, x):
        ...         return self.block(x)
        >>> g = G()
        >>> settings = g.block.to(nn.graph.GraphModule)
        >>> settings.name, settings.name_prefix, settings.activation_checkpointing
        ('block', '', True)
        >>> inner = g.block[0].to(nn.graph.GraphModule)
        >>> inner.name, inner.name_prefix, inner.type
        ('0', 'block.', 'MODULE')
        >>> g(flow.randn(2, 4)).shape
        monoflow.Size([2, 4])
    """

    type = "MODULE"  # (OneFlow's: a graph's parameters and buffers have their own kinds)

    def __init__(self, module, name):
        self._module = module
        prefix, _, self.name = name.rpartition(".")
        self.name_prefix = prefix + "." if prefix else ""
        self._activation_checkpointing = False
        self._debug = False  # set by Graph.debug / the view's debug()
        self.stage_id = None
        self.stage_placement = None

    @property
    def module(self):
        return self._module

    @property
    def activation_checkpointing(self):
        return self._activation_checkpointing

    @activation_checkpointing.setter
    def activation_checkpointing(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"GraphModule({self.name_prefix}{self.name}).activation_checkpointing must be a bool, got "
                            f"{type(value).__name__}")
        self._activation_checkpointing = value

    def set_stage(self, stage_id, placement=None):
        """Assigns the module to pipeline stage `stage_id` on `placement`
        (recorded here, listed by Graph._stages(), run by pipeline.py). The
        placement's ranks must exist in this job."""
        from monoflow._global import groups
        from monoflow._global.placement import placement as Placement

        if isinstance(stage_id, bool) or not isinstance(stage_id, int) or stage_id < 0:
            raise ValueError(f"GraphModule({self.name_prefix}{self.name}).set_stage: stage_id must be a non-negative int, got "
                             f"{stage_id!r}")
        if placement is not None:
            if not isinstance(placement, Placement):
                raise TypeError(f"GraphModule({self.name_prefix}{self.name}).set_stage: placement must be a flow.placement, got "
                                f"{type(placement).__name__}")
            world = groups.world_size()
            missing = [r for r in placement.rank_list() if r >= world]
            if missing:
                raise ValueError(f"GraphModule({self.name_prefix}{self.name}).set_stage({stage_id}): the placement's ranks {missing} "
                                 f"do not exist (this job has {world} process{'es' if world != 1 else ''}, ranks "
                                 f"0..{world - 1})")
        self.stage_id = stage_id
        self.stage_placement = placement
        return self

    def _key(self):
        return (self._activation_checkpointing, self.stage_id,
                None if self.stage_placement is None else self.stage_placement._key)

    def __repr__(self):
        stage = "" if self.stage_id is None else f", stage_id={self.stage_id}, placement={self.stage_placement}"
        return f"GraphModule({self.name_prefix}{self.name}, activation_checkpointing={self._activation_checkpointing}{stage})"


class ModuleView:
    """A graph's module attribute as build and users see it: the module
    itself for everything, plus ``to(flow.nn.graph.GraphModule)``."""

    __slots__ = ("_view_module", "_view_graph", "_view_name")

    def __init__(self, module, graph, name):
        object.__setattr__(self, "_view_module", module)
        object.__setattr__(self, "_view_graph", graph)
        object.__setattr__(self, "_view_name", name)

    @property
    def __class__(self):  # isinstance(view, nn.Linear) as for the module
        return type(object.__getattribute__(self, "_view_module"))

    def _wrap(self, value, name):
        if isinstance(value, Module):
            return ModuleView(value, self._view_graph, f"{self._view_name}.{name}")
        return value

    def to(self, *args, **kwargs):
        """``to(GraphModule)``: the module's graph settings; ``to(nn.Module)``:
        the module itself (OneFlow's way to reach the eager module); otherwise
        the module's own ``to``."""
        if len(args) == 1 and not kwargs and args[0] is GraphModule:
            return self._view_graph._graph_module(self._view_module, self._view_name)
        if len(args) == 1 and not kwargs and args[0] is Module:
            return self._view_module
        out = self._view_module.to(*args, **kwargs)
        return self if out is self._view_module else out

    @property
    def _debug(self):
        """Whether this module is in the graph's debug mode (OneFlow's ``block._debug``)."""
        return self._view_graph._graph_module(self._view_module, self._view_name)._debug

    def debug(self, v_level=0, *, ranks=None, max_py_stack_depth=2, only_user_py_stack=True,
              op_repr_with_py_stack=False):
        """Opens (``v_level`` 0 to 3) or closes (-1) debug mode for this module and its submodules in the
        graph, on ``ranks`` (None: rank 0; -1 among them: every rank), as OneFlow's ``Block.debug``."""
        from monoflow._global import groups

        if isinstance(v_level, bool) or not isinstance(v_level, int) or not -1 <= v_level <= 3:
            raise ValueError(f"{self._view_name}.debug: v_level must be an int from -1 to 3, got {v_level!r}")
        rank_list = [0] if ranks is None else [ranks] if isinstance(ranks, int) else list(ranks)
        if -1 in rank_list or groups.rank() in rank_list:
            for view in self.modules():
                view.to(GraphModule)._debug = v_level >= 0
        return self

    @property
    def origin(self):
        """The eager module (OneFlow 0.8's ``block.origin``; ``to(nn.Module)`` since)."""
        return self._view_module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """The module's ``named_modules``, each one a view of this graph, so that
        ``.config``/``.origin``/``.to(GraphModule)`` work on what the loop yields."""
        for name, module in self._view_module.named_modules(memo, prefix, remove_duplicate):
            yield name, self._wrap(module, name) if name else self

    def modules(self):
        """Views of the module and all its submodules (see :meth:`named_modules`)."""
        for _, view in self.named_modules():
            yield view

    def named_children(self):
        """The module's direct children as views of this graph."""
        for name, module in self._view_module.named_children():
            yield name, self._wrap(module, name)

    def children(self):
        """Views of the module's direct children."""
        for _, view in self.named_children():
            yield view

    def __getattr__(self, name):
        if name == "config" and not hasattr(self._view_module, "config"):
            # OneFlow 0.7/0.8's spelling of to(GraphModule): module.config.set_stage(...),
            # module.config.activation_checkpointing = True (a module's own `config` comes first)
            return self.to(GraphModule)
        value = getattr(self._view_module, name)
        if isinstance(value, types.MethodType) and value.__self__ is self._view_module \
                and value.__func__ is not getattr(Module, name, None) and name not in self._view_module.__dict__:
            # a method the module's class defines (forward, a helper it calls): bound to this view, as
            # OneFlow's Block does, so that inside it `self.child` is a view too (nn.Module's own methods,
            # parameters() ..., stay the module's)
            return types.MethodType(value.__func__, self)
        return self._wrap(value, name)

    def __setattr__(self, name, value):
        setattr(self._view_module, name, value)

    def __delattr__(self, name):
        delattr(self._view_module, name)

    def __call__(self, *args, **kwargs):
        from monoflow.framework import graph_build_util

        if not graph_build_util.lazy_mode.is_enabled():
            return self._call(args, kwargs)
        # the module's scope while build runs: OneFlow's scope attributes from its settings, if any
        gm = self._view_graph._graph_modules.get(id(self._view_module))
        attrs = {}
        if gm is not None and gm.activation_checkpointing:
            attrs["checkpointing"] = True
        if gm is not None and gm.stage_id is not None:
            attrs["pipeline_stage_id_hint"] = gm.stage_id
        with graph_build_util.module_scope(attrs, self._view_name.split(".")):
            return self._call(args, kwargs)

    def _call(self, args, kwargs):
        m = self._view_module
        if "forward" in m.__dict__ or _has_hooks(m) or type(m).__call__ is not Module.__call__ \
                or getattr(m, "_compiled_call_impl", None) is not None:
            # (hooks, a forward installed on the module: checkpointing, stages; its class's own __call__)
            return m(*args, **kwargs)
        # the class's forward with this view as self (OneFlow's Block), so that the submodules it
        # reaches through self are views of this graph as well
        return type(m).forward(self, *args, **kwargs)

    def __getitem__(self, idx):
        return self._wrap(self._view_module[idx], str(idx))

    def __iter__(self):
        for i, m in enumerate(self._view_module):
            yield self._wrap(m, str(i))

    def __len__(self):
        return len(self._view_module)

    def __repr__(self):
        return repr(self._view_module)

    def __dir__(self):
        return dir(self._view_module)


def _has_hooks(m):
    from monoflow.nn import module as _module

    return bool(m._forward_pre_hooks or m._forward_hooks or m._backward_hooks or m._backward_pre_hooks
                or _module._global_forward_pre_hooks or _module._global_forward_hooks
                or _module._global_backward_hooks or _module._global_backward_pre_hooks)


def checkpointed_forward(module, name):
    """The forward that Note [Activation checkpointing in a graph] installs."""
    from monoflow.framework import graph_build_util
    from monoflow.utils.checkpoint import checkpoint

    forward = type(module).forward.__get__(module)

    def run(*args, **kwargs):
        if not _C.is_grad_enabled():
            return forward(*args, **kwargs)  # nothing to save: plain forward
        scope = graph_build_util.current_scope()  # the recompute runs in the forward's scope

        def _on_copies(*args, **kwargs):
            args = [a.clone() if isinstance(a, _C.TensorBase) else a for a in args]
            with graph_build_util.entered(scope):
                return forward(*args, **kwargs)
        return checkpoint(_on_copies, *args, use_reentrant=False, **kwargs)
    return run
