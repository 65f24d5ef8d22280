"""The docstrings of the tensor ops, one text per op.

Each module of this package documents a family of ops with :func:`add_doc`.
:func:`apply`, run once at the end of ``import monoflow``, attaches every text
to the function (``monoflow.add``), its aliases, and the Tensor method of the
same name, so that ``help()`` shows one source on both. It is needed because
most Tensor methods are defined by the compiled bindings, whose docstrings
Python cannot assign (``_C.set_builtin_doc`` writes them).

Texts are Google style (a summary line, ``Args:``, ``Returns:``, ``Example::``
with ``>>>`` lines); tests/test_docs.py runs every example and checks that
every public name has a text that names its arguments.
"""
import importlib
import inspect
import textwrap

from monoflow import _C, _tensor_type

# (namespace, name, signature, text, method, aliases), in registration order.
_ENTRIES = []
_KEYS = set()
# (namespace, in-place method name) documented by add_inplace_docs.
_INPLACE = []

# The modules of this package, one per family of ops.
_FAMILIES = (
    "math", "reduce", "compare", "linalg", "shape", "indexing", "creation",
    "random", "tensor", "misc", "complex",
)


def add_doc(name, signature, text, *, namespace="monoflow", method=True, aliases=()):
    """Records the docstring of op `name`.

    Args:
        name: the op's name in `namespace` (``"add"``), or a Tensor attribute
            when `signature` starts with ``"Tensor."`` (``"backward"``).
        signature: how it is called, function form: ``"add(input, other, *,
            alpha=1) -> Tensor"``. The method form is derived from it by
            dropping the first parameter.
        text: the docstring body (dedented here).
        namespace: the module that holds the function.
        method: whether ``Tensor.<name>`` (and ``Tensor.<alias>``) get the text too.
        aliases: other names of the same op in `namespace` and on Tensor.
    """
    key = (namespace if not signature.startswith("Tensor.") else "Tensor", name)
    if key in _KEYS:
        raise ValueError(f"monoflow._docs: {key[0]}.{name} is documented twice")
    _KEYS.add(key)
    _ENTRIES.append((namespace, name, signature, textwrap.dedent(text).strip(), method, tuple(aliases)))


def add_inplace_docs(*names, namespace="monoflow"):
    """Documents in-place methods (``"add_"``) from their out-of-place op's
    entry (``add``): its signature, and a pointer to its text."""
    _INPLACE.extend((namespace, name) for name in names)


def _inplace_entries():
    # an alias's in-place form (absolute_ of abs's alias absolute) points at the alias
    by_name = {(ns, each): (sig, aliases) for ns, name, sig, _, _, aliases in _ENTRIES for each in (name, *aliases)}
    for namespace, name in _INPLACE:
        base = name[:-1]
        entry = by_name.get((namespace, base))
        if entry is None:
            raise ValueError(f"monoflow._docs: Tensor.{name} needs the entry of {namespace}.{base} first")
        sig = _method_signature(name, entry[0])
        yield ("Tensor", name, f"Tensor.{sig}",
               f"In-place version of :meth:`Tensor.{base}`: writes the result into this tensor "
               f"and returns it.", True, ())


def _method_signature(name, signature):
    """``add(input, other, *, alpha=1) -> Tensor`` -> ``add(other, *, alpha=1) -> Tensor``."""
    if signature.startswith("Tensor."):
        return signature[len("Tensor."):]
    _, _, rest = signature.partition("(")
    params, _, tail = rest.partition(")")
    _, comma, others = params.partition(",")
    return f"{name}({others.strip() if comma else ''}){tail}"


def _text_signature(method_sig):
    """The ``name($self, ...)`` line CPython reads as a builtin's signature, or
    None when the signature is not plain Python (``*size``, ``->``)."""
    call = method_sig.split(" -> ")[0]
    name, _, params = call.partition("(")
    params = params[:-1].strip()
    try:
        compile(f"def f({params}): pass", "<signature>", "exec")
    except SyntaxError:
        return None
    return f"{name}($self{', ' if params else ''}{params})"


def _set_doc(obj, doc, text_signature=None):
    if isinstance(obj, property) or inspect.isfunction(obj) or inspect.isclass(obj):
        try:
            obj.__doc__ = doc
        except (AttributeError, TypeError):
            pass
        return
    if inspect.ismethod(obj):
        obj = obj.__func__
        obj.__doc__ = doc
        return
    if type(obj).__name__ == "cython_function_or_method":
        obj.__doc__ = doc  # a module-level function of _C: its __doc__ is writable
        return
    if text_signature is not None and inspect.ismethoddescriptor(obj) and not inspect.isdatadescriptor(obj):
        doc = f"{text_signature}\n--\n\n{doc}"
    _C.set_builtin_doc(obj, doc)


def _tensor_attribute(tensor_cls, name):
    """The attribute as stored on the class (a descriptor), not as looked up."""
    for klass in tensor_cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def apply(tensor_cls):
    """Attaches every recorded text; called once by ``monoflow/__init__.py``."""
    for family in _FAMILIES:
        importlib.import_module(f"{__name__}.{family}")
    for namespace, name, signature, text, method, aliases in (*_ENTRIES, *_inplace_entries()):
        module = None if signature.startswith("Tensor.") else importlib.import_module(namespace)
        method_only = signature.startswith("Tensor.")
        # the name last: where an alias is the same object (Tensor.absolute is
        # Tensor.abs), the text shows the name's own signature
        for each in (*aliases, name):
            if not method_only:
                obj = getattr(module, each, None)
                if obj is None:
                    raise AttributeError(f"monoflow._docs: {namespace}.{each} is documented but does not exist")
                own_signature = each + signature[len(name):] if signature.startswith(name + "(") else signature
                _set_doc(obj, f"{own_signature}\n\n{text}")
            if method or method_only:
                attr = _tensor_attribute(tensor_cls, each)
                if attr is None:
                    if method_only:
                        raise AttributeError(f"monoflow._docs: Tensor.{each} is documented but does not exist")
                    continue
                msig = _method_signature(each, signature)
                body = text if method_only else f"{text}\n\nSee :func:`{namespace}.{name}`."
                is_property = inspect.isdatadescriptor(attr) or isinstance(attr, property)
                doc = body if is_property else f"Tensor.{msig}\n\n{body}"
                _set_doc(attr, doc, None if is_property else _text_signature(msig))
    # Tensor's metaclass hands out its Python methods wrapped (functools.wraps
    # copied their docstrings then) and caches the wrappers; those made during
    # the import, before the texts above, are dropped, so that help(Tensor.abs)
    # shows the text too
    _tensor_type._CHECKED.clear()
