"""torch.utils._pytree against torch: flatten/unflatten of the built-in containers, tree_map with
several trees, the *_only forms, is_leaf, registered node types and the errors."""
import importlib
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import monoflow  # noqa: F401

torch = pytest.importorskip("torch")
P = namedtuple("P", "a b")


def _mods():
    return importlib.import_module("torch.utils._pytree"), importlib.import_module("monoflow.utils._pytree")


def _tree():
    return {"x": [1, (2, None)], "y": P(3, OrderedDict(z=4)), "w": {"b": 5, "a": 6},
            "d": defaultdict(int, {"q": 7}), "e": deque([8])}


def test_flatten_unflatten_round_trip_as_torch():
    for p in _mods():
        leaves, spec = p.tree_flatten(_tree())
        assert leaves == [1, 2, None, 3, 4, 5, 6, 7, 8] and spec.num_leaves == 9
        back = p.tree_unflatten([v if v is None else v * 10 for v in leaves], spec)
        assert back["y"] == P(30, OrderedDict(z=40)) and isinstance(back["d"], defaultdict)
        assert back["e"] == deque([80]) and list(back["w"]) == ["b", "a"]
        assert p.tree_structure([1, 2]) == p.tree_structure([3, 4]) and p.tree_structure([1]) != p.tree_structure((1,))
        with pytest.raises(ValueError):
            p.tree_unflatten([1], p.tree_structure([1, 2]))


def test_tree_map_and_predicates_as_torch():
    res = []
    for p in _mods():
        out = [p.tree_map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]),
               p.tree_map_only(int, lambda v: -v, [1, "a", 2.0]),
               p.tree_map_only((int, str), lambda v: v * 2, [1, "a", 2.0]),
               p.tree_leaves([1, None]), p.tree_all(lambda v: v > 0, [1, 2]), p.tree_any(lambda v: v > 1, (1, 2)),
               p.tree_leaves([1, [2]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1)]
        with pytest.raises(ValueError):
            p.tree_map(lambda a, b: a + b, [1, 2], (1, 2))
        res.append(out)
    assert res[0] == res[1]


def test_registered_node_and_tensors_as_torch():
    for T, p in zip((torch, monoflow), _mods()):
        class Box:
            def __init__(self, v):
                self.v = v

        p.register_pytree_node(Box, lambda b: ([b.v], None), lambda vals, ctx: Box(vals[0]))
        with pytest.raises(ValueError):
            p.register_pytree_node(Box, lambda b: ([b.v], None), lambda vals, ctx: Box(vals[0]))
        batch = {"img": T.ones(2, 3), "meta": [Box(T.zeros(1)), "id"]}
        moved = p.tree_map_only(T.Tensor, lambda t: t + 1, batch)
        assert moved["img"].sum().item() == 12 and moved["meta"][0].v.tolist() == [1.0] and moved["meta"][1] == "id"
