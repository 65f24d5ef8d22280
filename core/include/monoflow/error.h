// Exceptions of the core. Each maps to one Python exception type in the
// bindings (see python/monoflow/_errors.h); messages always name the op.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace monoflow {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct TypeError : Error {
  using Error::Error;
};
struct ValueError : Error {
  using Error::Error;
};
struct IndexError : Error {
  using Error::Error;
};
struct RuntimeError : Error {
  using Error::Error;
};
struct OutOfMemoryError : RuntimeError {
  using RuntimeError::RuntimeError;
};
// An op whose output shape depends on tensor values, inside a graph trace.
struct DynamicShapeError : RuntimeError {
  using RuntimeError::RuntimeError;
};
// Note [Errors OneFlow raises as RuntimeError]: where PyTorch raises
// IndexError or ValueError and OneFlow RuntimeError for the same mistake, the
// core throws these; the bindings raise a Python class deriving from both
// (monoflow._C.IndexRuntimeError, ValueRuntimeError), so that a PyTorch
// user's `except IndexError` and a OneFlow user's `except RuntimeError` both
// catch it.
struct IndexRuntimeError : IndexError {
  using IndexError::IndexError;
};
struct ValueRuntimeError : ValueError {
  using ValueError::ValueError;
};
struct ZeroDivisionError : Error {
  using Error::Error;
};
struct NotImplementedError : Error {
  using Error::Error;
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  append(os, rest...);
}
}  // namespace detail

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

}  // namespace monoflow

// MF_CHECK(cond, ExcType, parts...) throws ExcType(str_cat(parts...)) when !cond.
#define MF_CHECK(cond, Exc, ...)                        \
  do {                                                  \
    if (!(cond)) throw ::monoflow::Exc(::monoflow::str_cat(__VA_ARGS__)); \
  } while (0)
