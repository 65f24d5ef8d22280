# Setting the docstring of a method the bindings define (Tensor.add,
# Tensor.shape). Their docs live in C structures Python gives no setter for;
# monoflow._docs keeps each op's text in one place and hands it here, so that
# help() shows the same text on monoflow.add and on Tensor.add.

cdef extern from "Python.h":
    ctypedef struct PyMethodDef:
        const char* ml_doc
    ctypedef struct PyMethodDescrObject:
        PyMethodDef* d_method
    ctypedef struct PyGetSetDef:
        const char* doc
    ctypedef struct PyGetSetDescrObject:
        PyGetSetDef* d_getset
    ctypedef struct PyCFunctionObject:
        PyMethodDef* m_ml

# The C structures keep a pointer, not a copy: the bytes must outlive them.
_kept_docs = {}

_method_descriptor = type(TensorBase.add)
_getset_descriptor = type(TensorBase.shape)
_builtin_function = type(len)


def set_builtin_doc(obj, str doc):
    """Sets `obj.__doc__` for a method descriptor, getset descriptor or
    builtin function of this module. A method doc may open with a text
    signature, ``name($self, ...)\\n--\\n\\n``, which inspect.signature reads."""
    cdef bytes data = doc.encode("utf-8")
    kind = type(obj)
    if kind is _method_descriptor:
        (<PyMethodDescrObject*>obj).d_method.ml_doc = data
    elif kind is _getset_descriptor:
        (<PyGetSetDescrObject*>obj).d_getset.doc = data
    elif kind is _builtin_function:
        (<PyCFunctionObject*>obj).m_ml.ml_doc = data
    else:
        raise TypeError(f"set_builtin_doc(): argument 'obj' must be a method, getset "
                        f"descriptor or builtin function, not {kind.__name__}")
    _kept_docs[id(obj)] = (obj, data)
