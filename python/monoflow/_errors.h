// Turns core exceptions into Python exceptions at the binding boundary, and
// core warnings into Python warnings.
#pragma once
#include <Python.h>

#include <new>
#include <string>

#include "monoflow/dispatch.h"
#include "monoflow/error.h"

namespace monoflow_py {

// Thrown by C++ code after a Python call failed inside the core (e.g. a
// warning filter turned into an error): the Python error is kept aside and
// restored when the exception reaches the binding.
struct PythonErrorAlreadySet {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
};

inline PyObject*& oom_type() {
  static PyObject* t = nullptr;
  return t;
}
inline void set_oom_type(PyObject* t) {
  Py_XINCREF(t);
  oom_type() = t;
}

inline void translate_exception() {
  try {
    throw;
  } catch (PythonErrorAlreadySet& e) {
    PyErr_Restore(e.type, e.value, e.tb);
  } catch (const monoflow::OutOfMemoryError& e) {
    PyErr_SetString(oom_type() ? oom_type() : PyExc_RuntimeError, e.what());
  } catch (const monoflow::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const monoflow::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const monoflow::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const monoflow::ZeroDivisionError& e) {
    PyErr_SetString(PyExc_ZeroDivisionError, e.what());
  } catch (const monoflow::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "out of host memory");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception in monoflow");
  }
}

// Core warnings go to `callable(message)` (monoflow's warnings.warn wrapper).
inline void install_warning_handler(PyObject* callable) {
  Py_INCREF(callable);
  monoflow::set_warning_handler([callable](const std::string& msg) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject* r = PyObject_CallFunction(callable, "s", msg.c_str());
    if (!r) {
      PythonErrorAlreadySet e;
      PyErr_Fetch(&e.type, &e.value, &e.tb);
      PyGILState_Release(g);
      throw e;
    }
    Py_DECREF(r);
    PyGILState_Release(g);
  });
}

// Release hook for memory borrowed from a Python object (numpy arrays).
inline void release_pyobject(void* obj) {
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(obj));
  PyGILState_Release(g);
}

}  // namespace monoflow_py
