// sort and topk over rows (the op's dim is every operand's last dim):
// outputs (values, int64 indices). Keys compare in the compute type with
// NaN above every number, ties broken by index: a total order, so the
// result is the stable one whatever algorithm runs, and values are copied
// from x's own elements (no rounding through the compute type).
#include <numeric>
#include <utility>

#include "kernels_reduce.h"

namespace mfcpu {
namespace {

template <class C>
struct Keyed {
  C key;
  int64_t index;
};

// Whether a comes before b: ascending (or descending) by key, NaN largest,
// then by index.
template <class C, bool kDescending>
inline bool before(const Keyed<C>& a, const Keyed<C>& b) {
  const bool a_nan = a.key != a.key, b_nan = b.key != b.key;
  if (a_nan || b_nan) {
    if (a_nan != b_nan) return kDescending ? a_nan : b_nan;
  } else if (a.key != b.key) {
    return kDescending ? a.key > b.key : a.key < b.key;
  }
  return a.index < b.index;
}

// Rows of x (ops[2]) -> values (ops[0]) and indices (ops[1]); the first
// len(out) entries of each row's order. `descending` picks the order.
template <class S>
void run_rows(Task& task, bool descending, bool partial) {
  using C = compute_t<S>;
  const size_t sizes[3] = {sizeof(S), sizeof(int64_t), sizeof(S)};
  const red::Rows<3> rows(task.ops, sizes);
  const int64_t n = rows.len[2], k = rows.len[0];
  const int64_t vs = rows.stride[0], is = rows.stride[1], xs = rows.stride[2];
  int64_t log_n = 1;
  while ((int64_t(1) << log_n) < n) ++log_n;
  parallel_range(rows.count, n * log_n, [&](int64_t lo, int64_t hi) {
    std::vector<Keyed<C>> buf(static_cast<size_t>(n));
    rows.for_rows(lo, hi, [&](char* const* p) {
      const S* x = reinterpret_cast<const S*>(p[2]);
      for (int64_t i = 0; i < n; ++i) buf[size_t(i)] = Keyed<C>{C(load(x[i * xs])), i};
      auto first = buf.begin(), mid = buf.begin() + k, last = buf.end();
      auto sort = [&](auto cmp) {
        // Heap selection wins when k is small; otherwise a full sort.
        if (partial && k < n / 8) std::partial_sort(first, mid, last, cmp);
        else std::sort(first, last, cmp);
      };
      if (descending) sort([](const Keyed<C>& a, const Keyed<C>& b) { return before<C, true>(a, b); });
      else sort([](const Keyed<C>& a, const Keyed<C>& b) { return before<C, false>(a, b); });
      S* v = reinterpret_cast<S*>(p[0]);
      int64_t* ix = reinterpret_cast<int64_t*>(p[1]);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t j = buf[size_t(i)].index;
        v[i * vs] = x[j * xs];
        ix[i * is] = j;
      }
    });
  });
}

template <class S>
void run_sort(Task& task) {
  run_rows<S>(task, task.ival[0] != 0, false);
}

// topk: the k largest (smallest) in descending (ascending) order; an
// "unsorted" request gets the sorted order too.
template <class S>
void run_topk(Task& task) {
  run_rows<S>(task, task.ival[0] != 0, true);
}

template <class S>
MFStatus launch(const MFKernelCall* call, const char* op, const char* attr0, const char* attr1, bool same_last,
                Task::Fn fn) {
  return guarded([&] {
    const LaunchSpec spec{1, 2, dtype_of<S>, MF_DTYPE_ANY, {attr0, attr1}};
    red::check_rows_call(op, call, spec, same_last);
    if (call->outputs[0].dtype != dtype_of<S> || call->outputs[1].dtype != MF_INT64)
      invalid(op, "outputs must be (values of x's dtype, int64 indices)");
    if (!same_shape(call->outputs[0], call->outputs[1])) invalid(op, "values and indices differ in shape");
    enqueue_call(op, call, spec, fn);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_sort(const MFKernelCall* call) {
  return launch<S>(call, "sort", "descending", nullptr, true, &run_sort<S>);
}
template <class S>
MFStatus launch_topk(const MFKernelCall* call) {
  return launch<S>(call, "topk", "largest", "sorted", false, &run_topk<S>);
}

}  // namespace

void register_sort_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("sort", dtype_of<S>, dtype_of<S>, &launch_sort<S>);
    if constexpr (!std::is_same<S, boolean>::value) r.add("topk", dtype_of<S>, dtype_of<S>, &launch_topk<S>);
  });
}

}  // namespace mfcpu
