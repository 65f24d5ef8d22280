"""nn.Graph: a module's computation written once in build(), traced on the
first call with a given input signature and replayed by the actor runtime
after that (docs/graph_runtime.md, "nn.Graph")."""
from collections import OrderedDict
import contextlib
import functools
import itertools
import os
import warnings

from monoflow import _C, _dtypes, _graph
from monoflow._creation import tensor as _tensor_from_data
from monoflow._global import whole_graph
from monoflow._tensor import Tensor
from monoflow.amp.autocast_mode import autocast
from monoflow.autograd.grad_mode import no_grad
from monoflow.framework import graph_build_util
from monoflow.nn.graph.accumulation import (average_accumulated_grads, merge_micro_batch_outputs,
                                            split_micro_batches)
from monoflow.nn.graph.config import GraphConfig
from monoflow.nn.graph.errors import build_error
from monoflow.nn.graph.graph_module import GraphModule, ModuleView, checkpointed_forward
from monoflow.nn.graph.lr_schedule import GraphLRSchedule
from monoflow.nn.graph.optimizer_state import load_optimizer_state, optimizer_state_entries
from monoflow.nn.graph.optimizer_step import GraphOptimizerStep
from monoflow.nn.graph.pipeline import stage_scope
from monoflow.nn.graph.signature import Keywords, describe_signature, signature
from monoflow.nn.module import Module
from monoflow.utils._pytree import register_pytree_node, tree_map_only

# (a graph call's keyword arguments: copied like any dict, and kept a Keywords)
register_pytree_node(Keywords, lambda d: (list(d.values()), list(d.keys())), lambda c, k: Keywords(zip(k, c)))

__all__ = ["Graph"]


def _input_copies(args):
    """`args` with each tensor replaced by a copy (Note [A graph's inputs are its own]), and the
    copies' versions in signature order. (A tensor that requires grad stays: build cannot read it.)"""
    copied = tree_map_only(Tensor, lambda t: t if t.requires_grad else t.detach().clone(), args)
    tensors = []
    signature(copied, tensors)
    return copied, [t._version for t in tensors]


def _contiguous_outputs(out):
    """build's results with every tensor contiguous, as OneFlow's lazy outputs are (an expand() or
    transpose() returned by build is a fresh tensor, not a stride-0 or permuted view)."""
    return tree_map_only(Tensor, lambda t: t.contiguous(), out)  # (contiguous() of a contiguous t is t)


def _parameters_placement(module):
    """The one placement all of `module`'s parameters are global on, else None: the stage
    placement of OneFlow 0.7's `module.config.stage_id = i` (no placement given)."""
    placements = {p.placement for p in module.parameters() if getattr(p, "is_global", False)}
    if len(placements) == 1 and all(getattr(p, "is_global", False) for p in module.parameters()):
        return placements.pop()
    return None


def _drop_eager_grads(opts):
    """A training call's step starts from no gradients, as OneFlow's graph, which never sees the .grad
    eager code left (zero_grad(set_to_none=False), a backward outside the graph): built on them, the
    step would add to them, and a trace would read them as constants it writes in place (Note
    [Constants written in place] in graph/trace.h). Replays hold their own gradient memory."""
    for s in opts:
        s.opt.zero_grad(set_to_none=True)


_TRAIN_STEP = "System-Train-TrainStep"  # OneFlow's key for a training graph's step count in state_dict


def _step_count(step):
    """The int a saved "System-Train-TrainStep" holds; a global one may live on some ranks only
    (OneFlow's save/load page loads it onto the ranks holding the files), so it is broadcast first."""
    if not isinstance(step, Tensor):
        return int(step)
    if step.is_global:
        from monoflow._global import groups
        from monoflow._global.placement import placement
        from monoflow._global.sbp import broadcast

        everyone = placement(step.placement.type, ranks=list(range(groups.world_size())))
        step = step.to_global(placement=everyone, sbp=broadcast).to_local()
    return int(step.reshape(-1)[0].item())


class Graph:
    """A static graph of modules (OneFlow's ``nn.Graph``): traced once per input signature, then replayed.

    ``flow.save(graph, path)`` saves :meth:`state_dict` (OneFlow's way to keep a graph); load it with
    ``graph.load_state_dict(flow.load(path))``.

    Subclass it, assign modules as attributes in ``__init__`` (after ``super().__init__()``), optionally
    ``self.add_optimizer(opt, lr_sch=...)``, and write ``build(*args)``. Calling the graph traces
    ``build`` on the first call with a given input signature (the nesting of tuples/lists/dicts, tensor
    shapes, dtypes and devices, non-tensor values) and replays the plan on later calls with that
    signature; a new signature compiles another plan.

    Without an optimizer it is an eval graph: ``build`` runs without autograd. With one, ``build`` calls
    ``loss.backward()`` and the graph runs gradient clipping (the param groups' ``clip_grad_max_norm``),
    the optimizer's step, ``zero_grad`` and the lr scheduler's step after it;
    ``config.set_gradient_accumulation_steps(n)`` runs ``build`` on ``n`` micro-batches per call first.

    Module attributes read back from the graph are ModuleViews: the module for all purposes, plus
    ``.to(flow.nn.graph.GraphModule)`` for its graph settings (activation checkpointing, pipeline
    stage).

    Example::

        >>> class LinearGraph(nn.Graph):
        ...     def __init__(self, model):
        ...         super().__init__()
        ...         self.model = model
        ...     def build(self, x):
        ...         return self.model(x)
        >>> model = nn.Linear(4, 2)
        >>> graph = LinearGraph(model)
        >>> x = flow.randn(3, 4)
        >>> flow.allclose(graph(x), model(x))
        True
    """
    _child_init_cnt = {}  # class name -> graphs made (OneFlow's; names G_0, G_1, ... per class name)

    def __init__(self):
        d = self.__dict__
        d["_modules"] = OrderedDict()
        d["_optimizers"] = []  # (GraphOptimizerStep, GraphLRSchedule or None)
        d["_train_steps"] = 0  # train calls run: state_dict's "System-Train-TrainStep"
        d["_plans"] = OrderedDict()  # signature -> CompiledTrace
        d["_plan_cache_size"] = None  # with_dynamic_input_shape(size=): the most plans kept, least recently used first out
        d["_graph_modules"] = OrderedDict()  # id(module) -> GraphModule (its settings in this graph)
        d["_ungraded"] = {}  # build signature -> ids of parameters build leaves without a gradient
        d["_eager_builds"] = set()  # build signatures whose build cannot be traced: Note [Graphs run eagerly]
        d["_written_inputs"] = {}  # plan key -> the inputs the plan writes: Note [A graph's inputs are its own]
        d["_debug"] = False
        d["_sbp_reports"] = {}  # plan key -> "sbp: greedy N bytes -> whole-graph M bytes per step"
        d["_sbp_pending"] = {}  # build part of a plan key -> whole_graph.Solution the next trace applies
        d["config"] = GraphConfig()
        cls = type(self).__name__
        n = Graph._child_init_cnt.get(cls, 0)
        Graph._child_init_cnt[cls] = n + 1
        d["_name"] = f"{cls}_{n}"

    @property
    def name(self):
        """The graph's name, ``<class name>_<n>`` with ``n`` counting the graphs of that class name
        made in this process (OneFlow's ``Graph.name``; ``nn.Graph._child_init_cnt``, a dict of
        class name to count, holds the counts and ``clear()`` restarts them); assigning one
        replaces it.

        Example::

            >>> class G(nn.Graph):
            ...     def build(self, x):
            ...         return x
            >>> G().name.startswith("G_")
            True
        """
        return self.__dict__["_name"]

    @name.setter
    def name(self, value):
        self.__dict__["_name"] = value

    # ------------------------------------------------------------ structure

    _saved_as_state_dict = True  # (flow.save(graph, path): serialization/native.py)

    def __setattr__(self, name, value):
        if "_modules" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        self.__dict__.pop("_module_list", None)
        if type(value) is ModuleView:  # another graph's attribute: register the module itself
            value = object.__getattribute__(value, "_view_module")
        if isinstance(value, Module):
            self._modules[name] = value
            self.__dict__.pop(name, None)
        else:
            self._modules.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        modules = self.__dict__.get("_modules", {})
        if name in modules:
            return ModuleView(modules[name], self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _graph_module(self, module, name):
        """The GraphModule (settings) of `module` in this graph, made on first use."""
        gm = self._graph_modules.get(id(module))
        if gm is None:
            gm = self._graph_modules[id(module)] = GraphModule(module, name)
        return gm

    def _stages(self):
        """[(stage_id, placement, module name, module)] of the modules given a
        pipeline stage with set_stage, by stage id: what pipeline.py's
        stage_scope runs them from."""
        staged = [(gm.stage_id, gm.stage_placement or _parameters_placement(gm.module), gm.name_prefix + gm.name,
                   gm.module)
                  for gm in self._graph_modules.values() if gm.stage_id is not None]
        return sorted(staged, key=lambda s: s[0])

    @contextlib.contextmanager
    def _module_settings(self):
        """Applies the GraphModule settings while build runs (traced or eager):
        Note [Activation checkpointing in a graph] in graph_module.py."""
        installed = []
        try:
            for gm in self._graph_modules.values():
                if gm.activation_checkpointing:
                    m = gm.module
                    if "forward" in m.__dict__:
                        raise RuntimeError(f"nn.Graph: module '{gm.name_prefix}{gm.name}' has its own forward "
                                           f"attribute; activation checkpointing wraps the class's forward and cannot "
                                           f"combine with it")
                    object.__setattr__(m, "forward", checkpointed_forward(m, gm.name_prefix + gm.name))
                    installed.append(m)
            with stage_scope(self):  # pipeline stages: pipeline.py
                yield
        finally:
            for m in installed:
                m.__dict__.pop("forward", None)

    def _build(self, *args):
        """build, under config.enable_amp in an autocast region for every device type: one region per
        micro-batch, as the eager loop it stands for enters one per forward (a region's cached weight casts
        belong to that micro-batch's autograd graph)."""
        kwargs = args[-1] if args and type(args[-1]) is Keywords else {}
        if kwargs:
            args = args[:-1]
        with contextlib.ExitStack() as regions:
            # OneFlow's lazy mode and the graph's root scope (framework/graph_build_util.py)
            regions.enter_context(graph_build_util.building(self.name))
            if self.config.amp is None:
                return _contiguous_outputs(self.build(*args, **kwargs))
            for device_type in _C.device_types():
                regions.enter_context(autocast(device_type, dtype=self.config.amp))
            return _contiguous_outputs(self.build(*args, **kwargs))

    def build(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define build(*args)")

    def add_optimizer(self, optimizer, *, lr_sch=None, is_sparse=False):
        """The graph runs optimizer.step(), zero_grad and the schedule's step after build. As OneFlow's
        graph, it advances its own copy of ``lr_sch``'s schedule (lr_schedule.py): ``lr_sch`` and the
        optimizer's learning rates stay where they were for eager use.

        Args:
            optimizer (Optimizer): the optimizer whose step the graph runs.
            lr_sch (LRScheduler, optional): its learning-rate schedule, stepped once per call.
            is_sparse (bool): OneFlow's lazy update of only the embedding rows a step touched; not
                implemented (True raises NotImplementedError).

        Example::

            >>> lin = nn.Linear(2, 1)
            >>> class G(nn.Graph):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.lin = lin
            ...         self.add_optimizer(flow.optim.SGD(lin.parameters(), lr=0.1))
            ...     def build(self, x):
            ...         loss = self.lin(x).sum()
            ...         loss.backward()
            ...         return loss
            >>> G().training
            True
        """
        if is_sparse:
            raise NotImplementedError(f"{type(self).__name__}.add_optimizer(is_sparse=True): sparse (lazy) optimizer "
                                      f"updates of only the rows a step touched are not implemented in monoflow")
        schedule = None if lr_sch is None else GraphLRSchedule(lr_sch)
        self._optimizers.append((GraphOptimizerStep(optimizer, scheduled=lr_sch is not None), schedule))
        self.config._training = True  # (config.training, as OneFlow's)
        self._plans.clear()

    def add_lr_scheduler(self, lr_sch):
        if not self._optimizers:
            raise RuntimeError(f"{type(self).__name__}.add_lr_scheduler: add its optimizer first")
        step, _ = self._optimizers[-1]
        step.scheduled = True
        self._optimizers[-1] = (step, GraphLRSchedule(lr_sch))
        self._plans.clear()

    def set_grad_scaler(self, grad_scaler=None):
        """OneFlow's loss scaling for a graph under ``config.enable_amp``: kept as ``graph.grad_scaler``.
        A plan computes the parameters' gradients in their own dtype (float32 master weights;
        autocast casts only the activations), where scaling the loss and unscaling the gradients
        is the identity, so the update is the unscaled one; the scale stays the scaler's initial one
        (a plan has no data-dependent skip of an inf/NaN step)."""
        from monoflow.amp.grad_scaler import GradScaler

        if grad_scaler is not None and not isinstance(grad_scaler, GradScaler):
            raise TypeError(f"{type(self).__name__}.set_grad_scaler expects a monoflow.amp.GradScaler or "
                            f"StaticGradScaler, got {type(grad_scaler).__name__}")
        self.__dict__["grad_scaler"] = grad_scaler

    @property
    def training(self):
        return bool(self._optimizers)

    def debug(self, v_level=0, *args, ranks=None, max_py_stack_depth=2, only_user_py_stack=True,
              op_repr_with_py_stack=False):
        """Opens or closes the graph's debug mode (OneFlow's levels): ``v_level`` 0 to 3 opens it (each plan
        is printed when it is compiled, saying why, with the plan before and after each pass), -1 closes
        it. ``ranks``: an int or a list of ints, the ranks that print; None is rank 0 and -1 among them
        is every rank. The graph's modules (``graph.m._debug``) follow. OneFlow's Python-stack options
        are accepted: a plan's nodes carry no Python stack here. OneFlow 0.7's positional form
        ``debug(mode, v_level, ranks)`` (``mode`` a bool, False closes) is accepted too.

        Args:
            v_level (int): -1 (close) to 3; default 0.
            ranks (int or list of int, optional): the ranks whose graph opens debug mode.

        Example::

            >>> class G(nn.Graph):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.m = nn.Linear(2, 2)
            ...     def build(self, x):
            ...         return self.m(x)
            >>> g = G().debug(0)
            >>> g._debug, g.m._debug
            (True, True)
            >>> g.debug(-1)._debug
            False
        """
        from monoflow._global import groups

        if isinstance(v_level, bool):  # OneFlow 0.7: debug(mode=True, v_level=0, ranks=None)
            if len(args) > 2:
                raise TypeError(f"nn.Graph.debug(mode, v_level, ranks): takes at most 3 positional arguments, "
                                f"got {1 + len(args)}")
            mode, v_level = v_level, (args[0] if args else 0)
            if len(args) > 1:
                ranks = args[1]
            if not mode:
                v_level = -1
        elif args:
            raise TypeError(f"nn.Graph.debug(v_level, *, ranks=...): takes 1 positional argument, got "
                            f"{1 + len(args)}")
        if isinstance(v_level, bool) or not isinstance(v_level, int) or not -1 <= v_level <= 3:
            raise ValueError(f"nn.Graph.debug: v_level must be an int from -1 to 3, got {v_level!r}")
        if ranks is None:
            rank_list = [0]
        elif isinstance(ranks, int) and not isinstance(ranks, bool):
            rank_list = [ranks]
        elif isinstance(ranks, (list, tuple)) and all(isinstance(r, int) for r in ranks):
            rank_list = list(ranks)
        else:
            raise ValueError(f"nn.Graph.debug: ranks must be an int or a list of ints, got {ranks!r}")
        if -1 in rank_list or groups.rank() in rank_list:
            on = v_level >= 0
            self.__dict__["_debug"] = on
            for name, module in self._modules.items():
                for sub_name, sub in module.named_modules():
                    self._graph_module(sub, f"{name}.{sub_name}" if sub_name else name)._debug = on
        return self

    # ------------------------------------------------------------ state

    def state_dict(self, destination=None, prefix=""):
        """The graph's state, as OneFlow lays it out: one entry per registered module holding that
        module's ``state_dict()``; for a training graph also ``"System-Train-TrainStep"``, the train
        calls run so far (an int64 tensor of shape [1]), and its optimizers' state, one flat entry
        per tensor named ``"<parameter>-<state>"`` (``"linear.weight-momentum"``; optimizer_state.py),
        so that :meth:`load_state_dict` resumes training where it stopped.

        Args:
            destination (dict, optional): filled and returned instead of a new OrderedDict.
            prefix (str): prepended to the module names.

        Example::

            >>> class G(nn.Graph):
            ...     def __init__(self, m):
            ...         super().__init__()
            ...         self.lin = m
            ...     def build(self, x):
            ...         return self.lin(x)
            >>> sd = G(nn.Linear(2, 1)).state_dict()
            >>> list(sd), list(sd["lin"])
            (['lin'], ['weight', 'bias'])
        """
        out = OrderedDict() if destination is None else destination
        for name, module in self._modules.items():
            out[prefix + name] = module.state_dict()
        if self._optimizers:
            out[prefix + _TRAIN_STEP] = _tensor_from_data([self._train_steps], dtype=_dtypes.int64)
            out.update(optimizer_state_entries(self, prefix))
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Loads a state saved by :meth:`state_dict` (OneFlow's nested layout, or flat
        ``"<module>.<key>"`` names) into the registered modules, in place: compiled plans stay valid;
        the optimizers' ``"<parameter>-<state>"`` entries into their state (a training graph resumes
        from it) and ``"System-Train-TrainStep"`` into the graph's step count.

        Args:
            state_dict (dict): the state to load.
            strict (bool): whether keys that match nothing, or modules' missing keys, raise.

        Example::

            >>> class G(nn.Graph):
            ...     def __init__(self, m):
            ...         super().__init__()
            ...         self.lin = m
            ...     def build(self, x):
            ...         return self.lin(x)
            >>> a, b = G(nn.Linear(2, 1)), G(nn.Linear(2, 1))
            >>> _ = b.load_state_dict(a.state_dict())
            >>> flow.equal(a.lin.weight, b.lin.weight)
            True
        """
        missing, unexpected = [], []
        names = list(self._modules)
        if _TRAIN_STEP in state_dict:
            self.__dict__["_train_steps"] = _step_count(state_dict[_TRAIN_STEP])
        used, made = load_optimizer_state(self, state_dict, self._train_steps)
        if made:  # (new optimizer state tensors: the plans hold the old ones)
            self._plans.clear()
        for name, module in self._modules.items():
            if isinstance(state_dict.get(name), dict):
                sub = state_dict[name]
            else:
                sub = OrderedDict((k[len(name) + 1:], v) for k, v in state_dict.items()
                                  if k.startswith(name + ".") and k not in used)
            result = module.load_state_dict(sub, strict=strict)
            if result is not None:
                missing += [f"{name}.{k}" for k in getattr(result, "missing_keys", [])]
                unexpected += [f"{name}.{k}" for k in getattr(result, "unexpected_keys", [])]
        stray = [k for k in state_dict if k != _TRAIN_STEP and k not in used and k not in names
                 and not any(k.startswith(n + ".") for n in names)]
        if strict and stray:
            raise RuntimeError(f"{type(self).__name__}.load_state_dict: unexpected keys {stray}")
        return missing, unexpected + stray

    # ------------------------------------------------------------ calls

    def _build_key(self, args, tensors):
        """What build's trace depends on besides the optimizers: the input
        signature (fills `tensors` with the run's inputs in trace order), the
        modules' training flags, the graph settings."""
        modules = self.__dict__.get("_module_list")
        if modules is None:  # cached; reset when a module attribute is assigned
            modules = self.__dict__["_module_list"] = list(self.modules())
        modes = tuple(m.training for m in modules)
        settings = (self.config.gradient_accumulation_steps, self.config.pipeline_schedule, self.config.whole_graph_sbp,
                    str(self.config.amp),
                    # (modules whose settings are the defaults add nothing: a view made while build runs,
                    # or by debug(), leaves the key as it was)
                    tuple((gm.name_prefix + gm.name, gm._key()) for gm in self._graph_modules.values()
                          if gm._key() != (False, None, None)))
        return (signature(args, tensors), modes, settings)

    def _key(self, args, tensors, feeds=()):
        """The plan cache key; fills `tensors` with the run's inputs in trace order."""
        build_key = self._build_key(args, tensors)
        return self._plan_key(build_key, feeds, tensors)

    def _plan_key(self, build_key, feeds, tensors):
        opt = tuple(s.key() for s, _ in self._optimizers)
        return (build_key[0], signature(feeds, tensors), build_key[1:], opt)

    def modules(self):
        for m in self._modules.values():
            yield from m.modules()

    @staticmethod
    def trace(func):
        """Decorator (OneFlow's ``nn.Graph.trace``): runs ``func`` as the ``build`` of an eval graph.

        The returned callable takes ``func``'s positional arguments; the first call with a given input
        signature traces ``func`` and later calls replay the plan, as for any :class:`Graph`. Tensors
        ``func`` reads from its closure are part of the graph (updates to them are seen eagerly).
        The graph itself is the callable's ``graph`` attribute.

        Example::

            >>> @nn.Graph.trace
            ... def double_plus_one(x):
            ...     return x * 2 + 1
            >>> double_plus_one(flow.tensor([1.0, 2.0]))
            tensor([3., 5.])
        """
        import functools

        class TracedGraph(Graph):
            def build(self, *args):
                return func(*args)

        graph = TracedGraph()

        @functools.wraps(func)
        def run(*args):
            return graph(*args)

        run.graph = graph
        return run

    # OneFlow's earlier name of trace (its test_slice decorates with @flow.nn.Graph.to_graph)
    to_graph = trace

    @property
    def _is_compiled(self):
        """Whether the graph has run (OneFlow's flag: its first call compiles it)."""
        return bool(self._plans or self._train_steps or self._eager_builds)

    def _share_from(self, shared_graph):
        """OneFlow's ``graph._share_from(other)``: run this graph on the variables of `other`, a
        graph of the same modules that has been compiled (called), e.g. to serve another input
        shape without a second copy of the weights. In monoflow both graphs read the modules'
        parameters and buffers themselves, so this checks that they are the same tensors (and that
        this graph has not run yet) and records `other`; this graph still traces its own plans.

        Args:
            shared_graph (nn.Graph): a compiled graph holding the same parameters and buffers.

        Example::

            >>> class G(nn.Graph):
            ...     def __init__(self, m):
            ...         super().__init__()
            ...         self.m = m
            ...     def build(self, x):
            ...         return self.m(x)
            >>> lin = nn.Linear(3, 2)
            >>> g0 = G(lin)
            >>> _ = g0(flow.ones(4, 3))
            >>> g1 = G(lin)
            >>> g1._share_from(g0)
            >>> tuple(g1(flow.ones(2, 3)).shape)
            (2, 2)
        """
        if not isinstance(shared_graph, Graph):
            raise TypeError(f"nn.Graph._share_from: expects an nn.Graph, got {type(shared_graph).__name__}")
        if not shared_graph._is_compiled:
            raise RuntimeError(f"nn.Graph._share_from: graph {shared_graph.name} to share from must be "
                               f"compiled (called once) first")
        if self._is_compiled:
            raise RuntimeError(f"nn.Graph._share_from: graph {self.name} is already compiled; share before "
                               f"its first call")
        def held(g):
            return [id(t) for m in g._modules.values() for t in itertools.chain(m.parameters(), m.buffers())]
        ours, theirs = held(self), held(shared_graph)
        if ours != theirs:
            raise RuntimeError(f"nn.Graph._share_from: graph {self.name} and graph {shared_graph.name} do not "
                               f"hold the same parameters and buffers; build both from the same modules")
        self.__dict__["_shared_graph"] = shared_graph

    def __call__(self, *args, **kwargs):
        self._drop_stale_plans()
        if kwargs:  # build(*args, **kwargs): the keywords travel as one last input
            args = (*args, Keywords(kwargs))
        if not self.training:
            return self._call_eval(args)
        return self._call_train(args)

    def _drop_stale_plans(self):
        """Note [Stale plans] (_C.pyx): a plan holds the memory of the parameters and buffers it
        traced. When some tensor's .data was swapped or a parameter or submodule assigned since the
        last call, the graph compares its modules' tensors (which objects, their memory, shape and
        dtype) with those of its plans, and traces again if they moved (p.data = x, Module.double(),
        .to('meta'), a new layer). Otherwise one integer comparison."""
        epoch = _C._tensor_layout_epoch()
        if epoch == self.__dict__.get("_layout_epoch"):
            return
        self.__dict__.pop("_module_list", None)
        fingerprint = []
        for m in self.modules():
            for t in itertools.chain(m._parameters.values(), m._buffers.values()):
                if t is not None:
                    local = t.to_local() if getattr(t, "is_global", False) else t
                    memory = 0 if local.is_meta or local.numel() == 0 else local.data_ptr()
                    fingerprint.append((id(t), memory, local.dtype, local.device, tuple(local.shape)))
        if fingerprint != self.__dict__.get("_layout_fingerprint"):
            self._plans.clear()
        self.__dict__["_layout_fingerprint"], self.__dict__["_layout_epoch"] = fingerprint, epoch

    def _cached_plan(self, key):
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)  # recently used: the last a bounded cache drops
        return plan

    def _evict_plans(self):
        size = self._plan_cache_size
        while size is not None and len(self._plans) > size:
            key, _ = self._plans.popitem(last=False)
            self._written_inputs.pop(key, None)
            self._sbp_reports.pop(key, None)

    @staticmethod
    def with_dynamic_input_shape(*, size=10, enable_shared=True):
        """``with_dynamic_input_shape(*, size=10, enable_shared=True)``: decorates a Graph subclass's ``__init__`` so the
        graph keeps at most ``size`` compiled plans, one per input signature (shapes, dtypes ...), dropping the
        least recently used one when a new signature compiles (OneFlow's graph cache). Without it a graph keeps
        every plan it compiled.

        Args:
            size (int): the most plans kept; a positive int. Default: ``10``.
            enable_shared (bool): OneFlow's option to let the cached graphs share parameters and buffers; monoflow's
                plans always read the graph's own modules, so both values behave the same. Default: ``True``.

        Example::

            >>> class G(flow.nn.Graph):
            ...     @flow.nn.Graph.with_dynamic_input_shape(size=2)
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.lin = flow.nn.Linear(3, 2)
            ...     def build(self, x):
            ...         return self.lin(x)
            >>> g = G()
            >>> [tuple(g(flow.ones(n, 3)).shape) for n in (1, 2, 3, 1)]
            [(1, 2), (2, 2), (3, 2), (1, 2)]
            >>> len(g._plans)
            2
        """
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"with_dynamic_input_shape(): size must be a positive int, got {size!r}")
        if not isinstance(enable_shared, bool):
            raise TypeError(f"with_dynamic_input_shape(): enable_shared must be a bool, got {type(enable_shared).__name__}")

        def decorate(init):
            @functools.wraps(init)
            def wrapped(self, *args, **kwargs):
                init(self, *args, **kwargs)
                self.__dict__["_plan_cache_size"] = size
                self._evict_plans()
            return wrapped
        return decorate

    def _call_eval(self, args):
        tensors = []
        key = self._key(args, tensors)
        plan = self._cached_plan(key)
        if plan is not None:
            return plan.run_flat(self._own_inputs(key, tensors), slots=self.config.slots, threads=self.config.threads)

        def fn(*a):
            with no_grad(), self._module_settings():
                return self._build(*a)
        args, versions = _input_copies(args)  # Note [A graph's inputs are its own]
        if key[0] in self._eager_builds:
            return _contiguous_outputs(fn(*args))
        try:
            ct = self._compile(key, fn, args)
            self._note_written_inputs(key, args, versions)
            return ct.example_outputs
        except RuntimeError as e:
            if not self._runs_eagerly(key[0], e):
                raise
        return _contiguous_outputs(fn(*args))

    # Note [A graph's inputs are its own]
    #   OneFlow copies a graph's inputs into the graph: an in-place op of
    #   build on an input changes the graph's copy, never the caller's tensor
    #   (its tests check it). The plan rebinds inputs without a copy
    #   (docs/graph_runtime.md), so here the first call traces on copies, and
    #   the inputs the plan turned out to write (their copy's version moved)
    #   are copied before every later run; the others stay copy-free. Calls
    #   that run build eagerly take copies too. (Parameters and buffers are
    #   the graph's state and are updated in place, as in OneFlow.)
    def _own_inputs(self, key, tensors):
        written = self._written_inputs.get(key)
        if not written:
            return tensors
        tensors = list(tensors)
        for i in written:
            tensors[i] = tensors[i].clone()
        return tensors

    def _note_written_inputs(self, key, copied_args, versions):
        copies = []
        signature(copied_args, copies)
        written = tuple(i for i, (t, v) in enumerate(zip(copies, versions)) if t._version != v)
        if written:
            self._written_inputs[key] = written

    # Note [Graphs run eagerly]: an op whose output shape depends on tensor values (nonzero,
    # masked_select, boolean-mask indexing) cannot be replayed by a plan, which keeps the traced
    # shapes. OneFlow's graphs run such ops (their tensors have dynamic shapes); here the graph runs
    # build eagerly for that input signature instead, with the same results, without the plan's
    # optimisations, and says so once. So does a kernel writing in place to a tensor the trace read
    # as a constant (Note [Constants written in place] in graph/trace.h: x = flow.tensor(...); x += y
    # in build), which a replay would run on the previous run's values. Any other trace failure is
    # raised.
    def _runs_eagerly(self, build_signature, error):
        """Whether `error` (from tracing build) is one a plan cannot replay (a DynamicShapeError: a
        value-dependent shape, or a constant written in place): then the signature runs eagerly
        from now on."""
        cause = error.__cause__ or error  # (build_error restates it)
        if not isinstance(cause, _C.DynamicShapeError):
            return False
        self._eager_builds.add(build_signature)
        reason = str(cause).splitlines()[0] if str(cause) else "an op a compiled plan cannot replay"
        warnings.warn(f"{type(self).__name__}: build cannot be replayed by a compiled plan ({reason}); calls with "
                      "these input shapes run build eagerly", stacklevel=3)
        return True

    def _call_train(self, args):
        with contextlib.ExitStack() as schedules:
            for _, schedule in self._optimizers:
                if schedule is not None:
                    schedules.enter_context(schedule)
            out = self._train_step(args)
            self.__dict__["_train_steps"] += 1
            if os.environ.get("ONEFLOW_DEBUG_MODE", "").lower() in ("1", "true", "yes", "on"):
                self._log_train_step_lr()
            for _, schedule in self._optimizers:
                if schedule is not None:
                    schedule.step()
        return out

    def _train_step(self, args):
        opts = [s for s, _ in self._optimizers]
        n = self.config.gradient_accumulation_steps
        if n > 1:  # checked before anything runs, so a bad batch changes nothing
            split_micro_batches(f"{type(self).__name__}.__call__", args, n)
        tensors = []
        build_key = self._build_key(args, tensors)
        ungraded = self._ungraded.get(build_key, frozenset())
        # ZeRO (zero.py): optimizer state laid out for config.enable_zero; new state tensors make the plans stale
        if any([s.use_zero(self.config.zero) for s in opts]):
            self._plans.clear()
        if build_key[0] in self._eager_builds or any(s.needs_warmup(ungraded) for s in opts):
            _drop_eager_grads(opts)
            out = self._eager_step(_input_copies(args)[0], build_key)
        else:
            feeds = tuple(s.feeds(ungraded) for s in opts)
            key = self._plan_key(build_key, feeds, tensors)
            plan = self._cached_plan(key)
            if plan is None:
                _drop_eager_grads(opts)
            # a first trace that stops midway has run part of build: its buffer updates are undone
            buffers = [] if plan is not None else [(b, b.clone()) for m in self._modules.values() for b in m.buffers()]
            try:
                if plan is not None:
                    out = plan.run_flat(self._own_inputs(key, tensors), slots=self.config.slots,
                                        threads=self.config.threads)
                else:
                    args, versions = _input_copies(args)  # Note [A graph's inputs are its own]
                    def fn(a, f):
                        result = self._train_body(a)
                        for s, fd in zip(opts, f):
                            s.update(fd)
                        return result
                    out = self._compile(key, fn, (args, feeds)).example_outputs
                    self._note_written_inputs(key, args, versions)
                    # Note [Parameters that get no gradient in build] (optimizer_step.py)
                    learned = set().union(*(s.traced_ungraded for s in opts))
                    if learned - ungraded:
                        self._ungraded[build_key] = frozenset(ungraded | learned)
            except BaseException as e:
                for s in opts:
                    s.undo()
                if not self._runs_eagerly(build_key[0], e):
                    raise
                with no_grad():
                    for b, before in buffers:
                        b.copy_(before)
                for s in opts:
                    s.opt.zero_grad(set_to_none=True)
                out = self._eager_step(_input_copies(args)[0], build_key)
        return out

    def _log_train_step_lr(self):
        """OneFlow's debug mode (``ONEFLOW_DEBUG_MODE=True``): each training call appends ``step,lr`` (the
        learning rate this step used, the first optimizer's first parameter group) to
        ``log/<run>/<pid>-train_step2lr.csv`` under the working directory; a graph's first logged step
        starts the file afresh, as OneFlow's job does."""
        step = self.__dict__.get("_lr_log_step", 0)
        path = os.path.join("log", "monoflow_debug", f"{os.getpid()}-train_step2lr.csv")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w" if step == 0 else "a") as f:
            if step == 0:
                f.write("train_step,lr\n")
            f.write(f"{step},{self._optimizers[0][0].opt.param_groups[0]['lr']}\n")
        self.__dict__["_lr_log_step"] = step + 1

    def _train_body(self, args):
        """build on the call's batch, or on each of its micro-batches followed
        by the gradient scaling (Note [Gradient accumulation semantics])."""
        n = self.config.gradient_accumulation_steps
        with self._module_settings():
            if n == 1:
                return self._build(*args)
            where = f"{type(self).__name__}.__call__"
            outs = [self._build(*micro) for micro in split_micro_batches(where, args, n)]
        params = [p for s, _ in self._optimizers for g in s.opt.param_groups for p in g["params"]]
        average_accumulated_grads(params, n)
        return merge_micro_batch_outputs(where, outs)

    def _eager_step(self, args, build_key):
        # Creates the optimizer state the plan will update in place (see needs_warmup).
        if self._debug:
            print(f"{type(self).__name__}: first step runs eagerly to create the optimizer state")
        result = self._train_body(args)
        self._ungraded[build_key] = frozenset(id(p) for s, _ in self._optimizers for g in s.opt.param_groups
                                              for p in g["params"] if p.grad is None)
        for s, _ in self._optimizers:
            s.opt.clip_grad()
            s.eager_step()  # opt.step(), sharded under ZeRO (zero.py)
            s.opt.zero_grad(set_to_none=True)
        return result

    def _passes(self):
        """config.passes, less "cse" when a module is checkpointed: the
        recompute is the forward's kernels again on the same inputs, so CSE
        would merge it back into the forward and keep the activations alive
        through backward, undoing the checkpointing."""
        passes = self.config.passes
        if any(gm.activation_checkpointing for gm in self._graph_modules.values()):
            names = _C._graph_default_passes() if passes == "default" else list(passes or ())
            passes = [p for p in names if p != "cse"]
        return passes

    def _state_tensors(self):
        """What a replay changes besides the inputs: the modules' parameters and buffers and the
        optimizers' state. Build may not read their values; other tensors from outside are
        constants it may read (Note [Constants read while tracing] in graph/trace.h)."""
        state = [t for m in self._modules.values() for t in itertools.chain(m.parameters(), m.buffers())]
        for s, _ in self._optimizers:
            state += [v for per_param in s.opt.state.values() if isinstance(per_param, dict)
                      for v in per_param.values()]
        return state

    def _compile(self, key, fn, example):
        # whole-graph SBP (Note [Whole-graph SBP deduction] in _global/whole_graph.py)
        sbp_key = (key[0], key[2])
        forced = self._sbp_pending.pop(sbp_key, None)
        logging = whole_graph.recording(forced) if self.config.whole_graph_sbp else contextlib.nullcontext()
        with logging as recorder:
            try:
                ct = _graph.trace(fn, *example, passes=self._passes(), debug=self._debug,
                                  variables=self._state_tensors(), all_variables=True)
            except RuntimeError as e:
                err = build_error(self, e)
                if err is None:
                    raise
                raise err from e
        if recorder is None or not recorder.log.calls or not self._whole_graph_sbp(key, recorder, forced):
            self._plans[key] = ct
            self._evict_plans()
        if self._debug:
            print(f"{type(self).__name__}: compiled plan {len(self._plans)} for inputs "
                  f"{describe_signature(key[0])}" + (" (a new input signature)" if len(self._plans) > 1 else "") +
                  f"; runs with slots={self.config.slots}, threads={self.config.threads}")
            print(ct.describe(passes=True))  # the plan before and after each pass, then the final one
        return ct

    def _whole_graph_sbp(self, key, recorder, forced):
        """After a global graph's trace: solve its decision log (first trace)
        or report what the forced decisions gave. True when the plan just
        traced is to be re-traced on the next call with a cheaper solution
        (its results, this call's, are correct either way)."""
        name = type(self).__name__
        if forced is None:
            solution = whole_graph.solve(recorder.log)
            self._sbp_reports[key] = solution.summary()
            if self._debug:
                print(f"{name}: {solution.summary()} ({len(recorder.log)} global op calls)")
                for k, op, greedy, chosen in solution.changes():
                    print(f"  call {k} {op}: greedy {greedy}; whole-graph {chosen}")
            if solution.improves:
                self._sbp_pending[(key[0], key[2])] = solution
                if self._debug:
                    print(f"{name}: the next call re-traces the plan with the whole-graph signatures")
                return True
            return False
        report = f"sbp: greedy {forced.greedy_cost} bytes -> whole-graph {recorder.log.cost()} bytes per step"
        if recorder.diverged:
            report += f" (forced decisions stopped at {recorder.diverged})"
        self._sbp_reports[key] = report
        if self._debug:
            print(f"{name}: re-traced with the whole-graph signatures: {report}")
        return False

    # ------------------------------------------------------------ printing

    def __repr__(self):
        lines = [f"{type(self).__name__}("]
        for name, module in self._modules.items():
            body = repr(module).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        for s, sch in self._optimizers:
            lines.append(f"  (optimizer): {type(s.opt).__name__}" + (f", lr_sch={type(sch.scheduler).__name__}" if sch else ""))
        for gm in self._graph_modules.values():
            lines.append(f"  ({gm.name_prefix}{gm.name}): {gm!r}")
        lines.append(f"  (config): {self.config!r}")  # the runtime's slots and threads, the passes, ...
        if self.config.zero is not None:  # ZeRO (zero.py)
            what = "parameters, gradients and optimizer state" if self.config.zero.params_split else "optimizer state"
            lines.append(f"  (zero): {self.config.zero!r}: {what} split S(0) over the data-parallel ranks")
        if not self._plans:
            lines.append("  (not compiled yet)")
        for i, (key, ct) in enumerate(self._plans.items()):
            head = ct.describe().splitlines()
            summary = f"{head[0]}; {head[1].strip()}"  # counts, then the passes that ran
            lines.append(f"  (plan {i}): inputs {describe_signature(key[0])}: {summary}")
            if key in self._sbp_reports:  # whole-graph SBP (whole_graph.py)
                lines.append(f"    {self._sbp_reports[key]}")
        lines.append(")")
        return "\n".join(lines)
