"""torch.utils._pytree: nested containers (list, tuple, namedtuple, dict, OrderedDict, defaultdict,
deque, and types registered with register_pytree_node) flattened into their leaves and rebuilt.
Anything else, None included, is a leaf. Scripts use tree_map to move batches of nested tensors."""
from collections import OrderedDict, defaultdict, deque

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_map_only", "tree_all", "tree_any", "tree_all_only",
           "tree_any_only"]

# type -> (flatten(node) -> (children, context), unflatten(children, context) -> node)
_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Makes instances of ``cls`` containers: ``flatten_fn(node) -> (children, context)`` and
    ``unflatten_fn(children, context) -> node``."""
    if cls in _NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODES[cls] = (flatten_fn, lambda children, context: unflatten_fn(list(children), context))


def _is_namedtuple(node):
    return isinstance(node, tuple) and hasattr(type(node), "_fields")


def _node_type(node):
    t = type(node)
    if t in _NODES:
        return t
    if _is_namedtuple(node):
        return "namedtuple"
    return None


def _flatten_node(node):
    t = _node_type(node)
    if t == "namedtuple":
        return list(node), type(node)
    return _NODES[t][0](node)


def _unflatten_node(kind, children, context):
    if kind == "namedtuple":
        return context(*children)
    return _NODES[kind][1](children, context)


register_pytree_node(tuple, lambda t: (list(t), None), lambda c, _: tuple(c))
register_pytree_node(list, lambda t: (list(t), None), lambda c, _: list(c))
register_pytree_node(dict, lambda d: (list(d.values()), list(d.keys())), lambda c, k: dict(zip(k, c)))
register_pytree_node(OrderedDict, lambda d: (list(d.values()), list(d.keys())), lambda c, k: OrderedDict(zip(k, c)))
register_pytree_node(defaultdict, lambda d: (list(d.values()), (d.default_factory, list(d.keys()))),
                     lambda c, ctx: defaultdict(ctx[0], zip(ctx[1], c)))
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda c, maxlen: deque(c, maxlen=maxlen))


class TreeSpec:
    """The structure of a flattened tree: a node's kind and context, and its children's specs."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_children = len(self.children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self.children_specs)
        self.num_leaves = sum(c.num_leaves for c in self.children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.is_leaf() == other.is_leaf() and self.type == other.type
                and self.context == other.context and self.children_specs == other.children_specs)

    def __hash__(self):
        return id(self)

    def __repr__(self):
        name = getattr(self.type, "__name__", self.type)
        return f"TreeSpec({name}, {self.context!r}, {self.children_specs!r})"

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have this spec's nodes)."""
        if self.is_leaf():
            return [tree]
        kind = _node_type(tree)
        if kind != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type}, but got {type(tree)}.")
        children, context = _flatten_node(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if context != self.context:
            raise ValueError(f"Node context mismatch for custom node type {self.type}.")
        out = []
        for child, spec in zip(children, self.children_specs):
            out.extend(spec.flatten_up_to(child))
        return out

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


class LeafSpec(TreeSpec):
    def __init__(self):
        self.type, self.context, self.children_specs = None, None, []
        self.num_children, self.num_nodes, self.num_leaves = 0, 1, 1

    def is_leaf(self):
        return True

    def __repr__(self):
        return "*"


def _flatten(tree, leaves, is_leaf):
    if (is_leaf is not None and is_leaf(tree)) or _node_type(tree) is None:
        leaves.append(tree)
        return LeafSpec()
    children, context = _flatten_node(tree)
    return TreeSpec(_node_type(tree), context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_flatten(tree, is_leaf=None):
    """(leaves, TreeSpec) of ``tree``; ``is_leaf(node)`` True stops the descent at ``node``."""
    leaves = []
    return leaves, _flatten(tree, leaves, is_leaf)


def tree_unflatten(leaves, treespec):
    """The tree of ``treespec``'s structure holding ``leaves`` (as many as it has)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    it = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(it)
        return _unflatten_node(spec.type, [build(c) for c in spec.children_specs], spec.context)

    return build(treespec)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with each leaf replaced by ``func(leaf, *matching parts of rests)``; the rests must have
    ``tree``'s structure down to its leaves."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def _only(types, func):
    def fn(x):
        return func(x) if isinstance(x, types) else x
    return fn


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """tree_map applying ``func`` only to leaves of the given type(s)."""
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


