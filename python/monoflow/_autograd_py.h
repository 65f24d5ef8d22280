// Python callables inside the autograd engine: tensor hooks and the backward
// of custom functions. The engine runs with the GIL held by the caller of
// backward(), but graphs can be freed from any thread, so references are
// released under PyGILState.
#pragma once
#include <Python.h>

#include <memory>

#include "_errors.h"
#include "monoflow/autograd.h"

namespace monoflow_py {

struct PyRef {
  PyObject* obj;
  explicit PyRef(PyObject* o) : obj(o) { Py_INCREF(o); }
  ~PyRef() {
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    PyGILState_STATE s = PyGILState_Ensure();
    Py_DECREF(obj);
    PyGILState_Release(s);
  }
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
};

// The Cython side calls the Python function; on an exception it leaves the
// Python error indicator set, which becomes a PythonErrorAlreadySet here.
using HookCall = monoflow::Tensor (*)(PyObject* fn, const monoflow::Tensor& grad);
using BackwardCall = std::vector<monoflow::Tensor> (*)(PyObject* fn, const std::vector<monoflow::Tensor>& grads);

inline void throw_if_python_error(PyGILState_STATE s) {
  if (!PyErr_Occurred()) {
    PyGILState_Release(s);
    return;
  }
  PythonErrorAlreadySet e;
  PyErr_Fetch(&e.type, &e.value, &e.tb);
  PyGILState_Release(s);
  throw e;
}

inline monoflow::autograd::GradHook make_hook(PyObject* fn, HookCall call) {
  auto ref = std::make_shared<PyRef>(fn);
  return [ref, call](const monoflow::Tensor& g) {
    PyGILState_STATE s = PyGILState_Ensure();
    monoflow::Tensor r = call(ref->obj, g);
    throw_if_python_error(s);
    return r;
  };
}

inline monoflow::autograd::BackwardFn make_backward(PyObject* fn, BackwardCall call) {
  auto ref = std::make_shared<PyRef>(fn);
  return [ref, call](const std::vector<monoflow::Tensor>& grads, monoflow::autograd::NeedsGrad) {
    PyGILState_STATE s = PyGILState_Ensure();
    std::vector<monoflow::Tensor> r = call(ref->obj, grads);
    throw_if_python_error(s);
    return r;
  };
}

// autograd.graph.saved_tensors_hooks (Note [Saved-tensor hooks]): `pack` gets a
// new reference to what the Python pack hook returned (or NULL with the error
// set); the packed object lives in a PyRef, released under the GIL.
using PackCall = PyObject* (*)(PyObject* fn, const monoflow::Tensor& t);
using UnpackCall = monoflow::Tensor (*)(PyObject* fn, PyObject* packed);

inline std::shared_ptr<monoflow::autograd::SavedTensorHooks> make_saved_hooks(PyObject* pack_fn, PyObject* unpack_fn,
                                                                           PackCall pack, UnpackCall unpack) {
  auto p = std::make_shared<PyRef>(pack_fn);
  auto u = std::make_shared<PyRef>(unpack_fn);
  auto hooks = std::make_shared<monoflow::autograd::SavedTensorHooks>();
  hooks->pack = [p, pack](const monoflow::Tensor& t) -> std::shared_ptr<void> {
    PyGILState_STATE s = PyGILState_Ensure();
    PyObject* obj = pack(p->obj, t);
    if (!obj) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "saved_tensors_hooks: pack_hook failed");
      throw_if_python_error(s);  // throws: the error indicator is set
    }
    auto held = std::make_shared<PyRef>(obj);  // takes its own reference
    Py_DECREF(obj);
    PyGILState_Release(s);
    return held;
  };
  hooks->unpack = [u, unpack](const std::shared_ptr<void>& packed) {
    PyGILState_STATE s = PyGILState_Ensure();
    monoflow::Tensor r = unpack(u->obj, static_cast<PyRef*>(packed.get())->obj);
    throw_if_python_error(s);
    return r;
  };
  return hooks;
}

}  // namespace monoflow_py
