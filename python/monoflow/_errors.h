// Turns core exceptions into Python exceptions at the binding boundary, and
// core warnings into Python warnings.
#pragma once
#include <Python.h>

#include <cstring>
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

// The Python classes of the core's RuntimeError subclasses, registered by _C
// at import (RuntimeError until then).
enum ErrorClass {
  kOutOfMemoryError = 0,
  kDynamicShapeError = 1,
  kIndexRuntimeError = 2,
  kValueRuntimeError = 3,
  kZeroDivisionRuntimeError = 4,
  kErrorClasses = 5
};
inline PyObject*& error_class(int which) {
  static PyObject* classes[kErrorClasses] = {};
  return classes[which];
}
inline void set_error_class(int which, PyObject* t) {
  Py_XINCREF(t);
  error_class(which) = t;
}

// Note [Naming the op in progress] (python/monoflow/_args.pxi): _C installs
// a hook that, on the error path only, prefixes a core error's message with
// the public op written in Python that was running ("addmm(): mul: shapes
// ... cannot be broadcast"). It returns a new reference, or nullptr to keep
// the message as it is.
using MessageHook = PyObject* (*)(PyObject* message);
inline MessageHook& message_hook() {
  static MessageHook h = nullptr;
  return h;
}
inline void set_message_hook(MessageHook h) { message_hook() = h; }

inline void set_error(PyObject* type, const char* what) {
  PyObject* msg = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "replace");
  if (!msg) return;  // (the decoding error stands)
  if (message_hook()) {
    if (PyObject* named = message_hook()(msg)) {
      Py_DECREF(msg);
      msg = named;
    }
  }
  PyErr_SetObject(type, msg);
  Py_DECREF(msg);
}

inline void set_runtime_error(int which, const char* message, PyObject* fallback = PyExc_RuntimeError) {
  set_error(error_class(which) ? error_class(which) : fallback, message);
}

inline void translate_exception() {
  try {
    throw;
  } catch (PythonErrorAlreadySet& e) {
    PyErr_Restore(e.type, e.value, e.tb);
  } catch (const monoflow::OutOfMemoryError& e) {
    set_runtime_error(kOutOfMemoryError, e.what());
  } catch (const monoflow::DynamicShapeError& e) {
    set_runtime_error(kDynamicShapeError, e.what());
  } catch (const monoflow::IndexRuntimeError& e) {
    set_runtime_error(kIndexRuntimeError, e.what(), PyExc_IndexError);
  } catch (const monoflow::ValueRuntimeError& e) {
    set_runtime_error(kValueRuntimeError, e.what(), PyExc_ValueError);
  } catch (const monoflow::TypeError& e) {
    set_error(PyExc_TypeError, e.what());
  } catch (const monoflow::ValueError& e) {
    set_error(PyExc_ValueError, e.what());
  } catch (const monoflow::IndexError& e) {
    set_error(PyExc_IndexError, e.what());
  } catch (const monoflow::ZeroDivisionError& e) {
    set_runtime_error(kZeroDivisionRuntimeError, e.what(), PyExc_ZeroDivisionError);
  } catch (const monoflow::NotImplementedError& e) {
    set_error(PyExc_NotImplementedError, e.what());
  } catch (const std::bad_alloc&) {
    set_error(PyExc_MemoryError, "out of host memory");
  } catch (const std::exception& e) {
    set_error(PyExc_RuntimeError, e.what());
  } catch (...) {
    set_error(PyExc_RuntimeError, "unknown C++ exception in monoflow");
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
