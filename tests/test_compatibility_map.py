"""tools/compat_map.py: the compatibility map and the not-implemented placeholders."""

import importlib.util
import os

import pytest

import monoflow
import monoflow.nn.functional
from monoflow import _not_implemented

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_tool():
    spec = importlib.util.spec_from_file_location("compat_map", os.path.join(ROOT, "tools", "compat_map.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compat_map = _load_tool()


@pytest.fixture(scope="module")
def mapping():
    return compat_map.build_map()


def test_every_namespace_is_mapped_and_counts_add_up(mapping):
    expected = set(compat_map.TORCH_NAMESPACES) | {label for label, _ in compat_map.ONEFLOW_NAMESPACES}
    assert set(mapping) == expected
    for label, c in compat_map.counts(mapping).items():
        assert c["present"] + c["missing"] + c["differs"] == c["total"] > 0, label


@pytest.mark.parametrize("label,mono", [
    ("torch", monoflow), ("torch.Tensor", monoflow.Tensor), ("torch.nn", monoflow.nn),
    ("torch.nn.functional", monoflow.nn.functional),
])
def test_statuses_agree_with_hasattr_on_a_sample(mapping, label, mono):
    names = sorted(mapping[label]["names"])
    sample = names[:: max(1, len(names) // 60)]
    for name in sample:
        status, _ = mapping[label]["names"][name]
        reachable = hasattr(mono, name) and not compat_map.is_placeholder(getattr(mono, name))
        assert (status != "missing") == reachable, (label, name, status)


def test_known_names(mapping):
    # Names whose status does not depend on work in progress.
    assert mapping["torch"]["names"]["zeros"][0] == "present"
    assert mapping["torch.Tensor"]["names"]["backward"][0] == "present"
    assert mapping["torch"]["names"]["lobpcg"] == ("missing", "placeholder")
    assert "NoSuchName" not in mapping["torch"]["names"]
    assert "os" not in mapping["torch"]["names"]  # imported modules are not torch's API
    assert mapping["oneflow.nn"]["names"]["Module.state_dict"][0] == "present"


def test_every_present_name_is_reachable(mapping):
    for label, entry in mapping.items():
        namespace = compat_map._resolve(entry["monoflow"])
        for name, (status, _) in entry["names"].items():
            if status != "missing":
                obj = compat_map._lookup(namespace, name)
                assert not compat_map.is_placeholder(obj), (label, name)


def test_differs_detects_missing_parameters_and_kwargs():
    def reference(a, b, *, c=1):
        pass

    def lacking(a, b):
        pass

    def takes_kwargs(a, **kwargs):
        pass

    assert compat_map.lacking_parameters(reference, lacking) == ["c"]
    assert compat_map.lacking_parameters(reference, takes_kwargs) == []
    assert compat_map._signature(torch.zeros) is None  # a C builtin: not inspectable ...
    assert compat_map.lacking_parameters(torch.zeros, lacking) == []  # ... so never 'differs'


def _all_placeholders():
    for module_name, names in _not_implemented.MODULE_PLACEHOLDERS.items():
        module = importlib.import_module(module_name)
        for name in names:
            yield module, module_name, name
    for name in _not_implemented.TENSOR_PLACEHOLDERS:
        yield monoflow.Tensor, "monoflow.Tensor", name


@pytest.mark.parametrize("owner,owner_name,name", list(_all_placeholders()))
def test_placeholder_raises_not_implemented_naming_itself(owner, owner_name, name):
    assert hasattr(owner, name)  # must not raise, and scripts see the name
    obj = getattr(owner, name)
    if not compat_map.is_placeholder(obj):
        pytest.skip(f"{owner_name}.{name} is implemented now")
    with pytest.raises(NotImplementedError, match=f"{owner_name}.{name}"):
        obj(1, key=2)
    torch_owner = compat_map._resolve("torch" + owner_name[len("monoflow"):])
    assert hasattr(torch_owner, name), "a placeholder stands only for a real PyTorch name"


def test_unknown_names_still_raise_attribute_error():
    assert not hasattr(monoflow, "no_such_name_anywhere")
    with pytest.raises(AttributeError, match="no_such_name_anywhere"):
        monoflow.nn.functional.no_such_name_anywhere


def test_placeholder_on_a_tensor_instance():
    if not compat_map.is_placeholder(getattr(monoflow.Tensor, "istft", None)):
        pytest.skip("Tensor.istft is implemented now")
    with pytest.raises(NotImplementedError, match="Tensor.istft"):
        monoflow.ones(8).istft(4)


def test_render_writes_rules_counts_and_before_column(mapping, tmp_path):
    before = {label: {"present": 0, "missing": c["total"], "differs": 0, "total": c["total"]}
              for label, c in compat_map.counts(mapping).items()}
    text = compat_map.render(mapping, before, "test")
    assert "Status rules" in text and "before: present / missing / differs" in text
    for label, c in compat_map.counts(mapping).items():
        assert f"| `{label}` |" in text
        assert f"0 / {c['total']} / 0" in text


def test_committed_doc_exists_and_has_every_namespace():
    with open(os.path.join(ROOT, "docs", "compatibility.md")) as f:
        text = f.read()
    for label in compat_map.TORCH_NAMESPACES:
        assert f"## `{label}`" in text


def test_compile_is_an_eager_pass_through(monkeypatch):
    from monoflow import _compile

    monkeypatch.setattr(_compile, "_warned", False)
    model = monoflow.nn.Linear(3, 2)
    with pytest.warns(UserWarning, match="eagerly"):
        compiled = monoflow.compile(model)
    assert compiled is model
    x = monoflow.ones(4, 3)
    assert monoflow.equal(compiled(x), model(x))

    @monoflow.compile(fullgraph=True, mode="max-autotune")
    def double(t):
        return t * 2

    assert monoflow.equal(double(x), x * 2)
    assert monoflow.compile(model, backend="inductor", dynamic=None, disable=True) is model
    with pytest.raises(TypeError, match="compile"):
        monoflow.compile(3)
    # accepts every keyword torch.compile has
    import inspect
    for name, p in inspect.signature(torch.compile).parameters.items():
        if p.kind == p.KEYWORD_ONLY:
            assert monoflow.compile(model, **{name: p.default}) is model

