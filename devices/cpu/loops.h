// Inner loops handed to run_loop(): one per operand count. Each has a
// contiguous path written so -O3 vectorises it, a path for a stride-0
// (broadcast) input, and a generic strided path.
#pragma once

#include <cstdint>

#include "dtype.h"

namespace mfcpu {

template <class T>
inline T& at(char* base, int64_t byte_stride, int64_t i) {
  return *reinterpret_cast<T*>(base + i * byte_stride);
}

// out = value
template <class SO>
struct FillLoop {
  SO value;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    if (s[0] == int64_t(sizeof(SO))) {
      SO* o = reinterpret_cast<SO*>(p[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = value;
    } else {
      for (int64_t i = 0; i < n; ++i) at<SO>(p[0], s[0], i) = value;
    }
  }
};

// out = fn(x); fn maps storage to storage (casts, scalar ops, neg).
template <class SO, class SI, class Fn>
struct UnaryLoop {
  Fn fn;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t so = sizeof(SO), si = sizeof(SI);
    if (s[0] == so && s[1] == si) {
      SO* o = reinterpret_cast<SO*>(p[0]);
      const SI* x = reinterpret_cast<const SI*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i]);
    } else if (s[1] == 0) {  // broadcast input: one value for the whole run
      FillLoop<SO>{fn(*reinterpret_cast<const SI*>(p[1]))}(p, s, n);
    } else {
      for (int64_t i = 0; i < n; ++i) at<SO>(p[0], s[0], i) = fn(at<const SI>(p[1], s[1], i));
    }
  }
};

// out = store(op(load(a), load(b))); op works on compute types.
template <class SO, class S, class Op>
struct BinaryLoop {
  Op op;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t so = sizeof(SO), si = sizeof(S);
    SO* o = reinterpret_cast<SO*>(p[0]);
    const S* a = reinterpret_cast<const S*>(p[1]);
    const S* b = reinterpret_cast<const S*>(p[2]);
    if (s[0] == so && s[1] == si && s[2] == si) {
      for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(load(a[i]), load(b[i])));
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const auto bv = load(*b);
      for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(load(a[i]), bv));
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const auto av = load(*a);
      for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(av, load(b[i])));
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<SO>(p[0], s[0], i) =
            store<SO>(op(load(at<const S>(p[1], s[1], i)), load(at<const S>(p[2], s[2], i))));
    }
  }
};

}  // namespace mfcpu
