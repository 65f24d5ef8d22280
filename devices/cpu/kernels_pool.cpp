// 2-D pooling kernels (conventions: docs/kernels/nn.md) for float32/float64
// on contiguous [P, H, W] planes (P = N*C): max_pool2d (values + flat int64
// indices into the plane), avg_pool2d, the adaptive variants, and their
// backward kernels. Planes are split over OpenMP threads; every backward
// kernel writes only its own planes, so none needs atomics.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "dtype.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {
namespace {

inline int64_t pack2(int64_t a, int64_t b) { return (a << 32) | (b & 0xffffffff); }
inline int64_t hi32(int64_t v) { return v >> 32; }
inline int64_t lo32(int64_t v) { return int64_t(int32_t(uint32_t(v & 0xffffffff))); }

// A [.., H, W] operand as planes.
struct Planes {
  int64_t P, H, W;
};
Planes planes_of(const Operand& o) {
  int64_t P = 1;
  for (int d = 0; d < o.ndim - 2; ++d) P *= o.shape[d];
  return {P, o.shape[o.ndim - 2], o.shape[o.ndim - 1]};
}

struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};
Window window_of(const Task& t) {
  return {hi32(t.ival[0]), lo32(t.ival[0]), hi32(t.ival[1]), lo32(t.ival[1]),
          hi32(t.ival[2]), lo32(t.ival[2]), hi32(t.ival[3]), lo32(t.ival[3])};
}

// Taps [lo, hi) of a window starting at `start` (tap t at start + t * dil)
// that fall inside [0, in).
inline void window_taps(int64_t start, int64_t dil, int64_t taps, int64_t in, int64_t* lo, int64_t* hi) {
  *lo = start >= 0 ? 0 : std::min(taps, (-start + dil - 1) / dil);
  *hi = in - start <= 0 ? 0 : std::min(taps, (in - start + dil - 1) / dil);
  if (*hi < *lo) *hi = *lo;
}

// take ? a : b through the bits, which compilers keep free of branches.
template <class T>
inline T select_if(bool take, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  U ua, ub;
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  const U r = ub ^ ((ua ^ ub) & (U(0) - U(take)));
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}

// Note [Branch-free max pooling]
//   Whether a window's next element beats the running maximum is a coin
//   toss on real data, so a branch per element mispredicts about once per
//   window (~18 ns per 2x2 window, 4x the arithmetic). The taps therefore
//   run over precomputed in-bounds ranges (no per-element bounds tests) and
//   each one is a select: it takes v when v > best, or when v is the
//   window's first NaN (best not NaN yet), as the branchy loop did and the
//   CUDA and OpenCL plugins do (PyTorch's CPU kernel keeps the last NaN).

// ops: out y[P,OH,OW], idx[P,OH,OW] (int64); x[P,H,W]. NaN counts as the maximum
// (Note [Branch-free max pooling]).
template <class T>
void run_max_pool2d(Task& t) {
  const Planes in = planes_of(t.ops[2]), out = planes_of(t.ops[0]);
  const Window k = window_of(t);
  const T* x = reinterpret_cast<const T*>(t.ops[2].data);
  T* y = reinterpret_cast<T*>(t.ops[0].data);
  int64_t* idx = reinterpret_cast<int64_t*>(t.ops[1].data);
  const int64_t OL = out.H * out.W;
  parallel_range(in.P, OL * k.kh * k.kw, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const T* xp = x + p * in.H * in.W;
      T* yp = y + p * OL;
      int64_t* ip = idx + p * OL;
      for (int64_t oy = 0; oy < out.H; ++oy) {
        const int64_t y0 = oy * k.sh - k.ph;
        int64_t i0, i1;
        window_taps(y0, k.dh, k.kh, in.H, &i0, &i1);
        for (int64_t ox = 0; ox < out.W; ++ox) {
          const int64_t x0 = ox * k.sw - k.pw;
          int64_t j0, j1;
          window_taps(x0, k.dw, k.kw, in.W, &j0, &j1);
          T best = -std::numeric_limits<T>::infinity();
          int64_t arg = 0;  // an empty window (all padding): -inf at index 0
          if (i0 < i1 && j0 < j1) {
            arg = (y0 + i0 * k.dh) * in.W + x0 + j0 * k.dw;
            best = xp[arg];
            for (int64_t i = i0; i < i1; ++i) {
              const int64_t row = (y0 + i * k.dh) * in.W + x0;
              for (int64_t j = i == i0 ? j0 + 1 : j0; j < j1; ++j) {
                const int64_t at = row + j * k.dw;
                const T v = xp[at];
                // (& and | rather than && and ||: no branch to mispredict)
                const bool take = (v > best) | ((v != v) & (best == best));
                best = select_if(take, v, best);
                arg ^= (arg ^ at) & -int64_t(take);
              }
            }
          }
          yp[oy * out.W + ox] = best;
          ip[oy * out.W + ox] = arg;
        }
      }
    }
  });
}

// ops: out gx[P,H,W]; gy[P,OH,OW], idx[P,OH,OW]: gx[p, idx] += gy (also for adaptive max).
template <class T>
void run_max_pool2d_backward(Task& t) {
  const Planes in = planes_of(t.ops[0]), out = planes_of(t.ops[1]);
  T* gx = reinterpret_cast<T*>(t.ops[0].data);
  const T* gy = reinterpret_cast<const T*>(t.ops[1].data);
  const int64_t* idx = reinterpret_cast<const int64_t*>(t.ops[2].data);
  const int64_t IL = in.H * in.W, OL = out.H * out.W;
  parallel_range(in.P, IL + OL, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      T* g = gx + p * IL;
      std::fill(g, g + IL, T(0));
      for (int64_t o = 0; o < OL; ++o) {
        const int64_t i = idx[p * OL + o];
        if (i >= 0 && i < IL) g[i] += gy[p * OL + o];  // (indices come from the forward kernel)
      }
    }
  });
}

// The divisor of avg pooling window (oy, ox) and its clipped bounds.
struct AvgCell {
  int64_t y0, y1, x0, x1;
  double div;
};
inline AvgCell avg_cell(const Window& k, const Planes& in, int64_t oy, int64_t ox, bool include_pad,
                        int64_t divisor) {
  int64_t y0 = oy * k.sh - k.ph, x0 = ox * k.sw - k.pw;
  int64_t y1 = std::min(y0 + k.kh, in.H + k.ph), x1 = std::min(x0 + k.kw, in.W + k.pw);
  const int64_t padded = (y1 - y0) * (x1 - x0);
  y0 = std::max<int64_t>(y0, 0), x0 = std::max<int64_t>(x0, 0);
  y1 = std::min(y1, in.H), x1 = std::min(x1, in.W);
  double div = divisor ? double(divisor) : include_pad ? double(padded) : double((y1 - y0) * (x1 - x0));
  return {y0, y1, x0, x1, div};
}

// ops: out y[P,OH,OW]; x[P,H,W]. ival[3]: count_include_pad, divisor_override (0: none).
template <class T>
void run_avg_pool2d(Task& t) {
  const Planes in = planes_of(t.ops[1]), out = planes_of(t.ops[0]);
  Window k = window_of(t);
  const bool include_pad = hi32(t.ival[3]) != 0;
  const int64_t divisor = lo32(t.ival[3]);
  const T* x = reinterpret_cast<const T*>(t.ops[1].data);
  T* y = reinterpret_cast<T*>(t.ops[0].data);
  parallel_range(in.P, out.H * out.W * k.kh * k.kw, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const T* xp = x + p * in.H * in.W;
      for (int64_t oy = 0; oy < out.H; ++oy)
        for (int64_t ox = 0; ox < out.W; ++ox) {
          const AvgCell c = avg_cell(k, in, oy, ox, include_pad, divisor);
          T s = 0;
          for (int64_t iy = c.y0; iy < c.y1; ++iy)
            for (int64_t ix = c.x0; ix < c.x1; ++ix) s += xp[iy * in.W + ix];
          y[(p * out.H + oy) * out.W + ox] = c.div > 0 ? T(s / c.div) : T(NAN);
        }
    }
  });
}

// ops: out gx[P,H,W]; gy[P,OH,OW]; same attributes as avg_pool2d.
template <class T>
void run_avg_pool2d_backward(Task& t) {
  const Planes in = planes_of(t.ops[0]), out = planes_of(t.ops[1]);
  Window k = window_of(t);
  const bool include_pad = hi32(t.ival[3]) != 0;
  const int64_t divisor = lo32(t.ival[3]);
  T* gx = reinterpret_cast<T*>(t.ops[0].data);
  const T* gy = reinterpret_cast<const T*>(t.ops[1].data);
  parallel_range(in.P, out.H * out.W * k.kh * k.kw, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      T* g = gx + p * in.H * in.W;
      std::fill(g, g + in.H * in.W, T(0));
      for (int64_t oy = 0; oy < out.H; ++oy)
        for (int64_t ox = 0; ox < out.W; ++ox) {
          const AvgCell c = avg_cell(k, in, oy, ox, include_pad, divisor);
          const T v = T(gy[(p * out.H + oy) * out.W + ox] / c.div);
          for (int64_t iy = c.y0; iy < c.y1; ++iy)
            for (int64_t ix = c.x0; ix < c.x1; ++ix) g[iy * in.W + ix] += v;
        }
    }
  });
}

// Adaptive windows: [floor(o*in/out), ceil((o+1)*in/out)).
inline int64_t ad_lo(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
inline int64_t ad_hi(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

// ops: out y[P,OH,OW]; x[P,H,W]
template <class T>
void run_adaptive_avg_pool2d(Task& t) {
  const Planes in = planes_of(t.ops[1]), out = planes_of(t.ops[0]);
  const T* x = reinterpret_cast<const T*>(t.ops[1].data);
  T* y = reinterpret_cast<T*>(t.ops[0].data);
  parallel_range(in.P, in.H * in.W + out.H * out.W, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const T* xp = x + p * in.H * in.W;
      for (int64_t oy = 0; oy < out.H; ++oy) {
        const int64_t y0 = ad_lo(oy, in.H, out.H), y1 = ad_hi(oy, in.H, out.H);
        for (int64_t ox = 0; ox < out.W; ++ox) {
          const int64_t x0 = ad_lo(ox, in.W, out.W), x1 = ad_hi(ox, in.W, out.W);
          T s = 0;
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) s += xp[iy * in.W + ix];
          y[(p * out.H + oy) * out.W + ox] = s / T((y1 - y0) * (x1 - x0));
        }
      }
    }
  });
}

// ops: out gx[P,H,W]; gy[P,OH,OW]
template <class T>
void run_adaptive_avg_pool2d_backward(Task& t) {
  const Planes in = planes_of(t.ops[0]), out = planes_of(t.ops[1]);
  T* gx = reinterpret_cast<T*>(t.ops[0].data);
  const T* gy = reinterpret_cast<const T*>(t.ops[1].data);
  parallel_range(in.P, in.H * in.W + out.H * out.W, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      T* g = gx + p * in.H * in.W;
      std::fill(g, g + in.H * in.W, T(0));
      for (int64_t oy = 0; oy < out.H; ++oy) {
        const int64_t y0 = ad_lo(oy, in.H, out.H), y1 = ad_hi(oy, in.H, out.H);
        for (int64_t ox = 0; ox < out.W; ++ox) {
          const int64_t x0 = ad_lo(ox, in.W, out.W), x1 = ad_hi(ox, in.W, out.W);
          const T v = gy[(p * out.H + oy) * out.W + ox] / T((y1 - y0) * (x1 - x0));
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) g[iy * in.W + ix] += v;
        }
      }
    }
  });
}

// ops: out y[P,OH,OW], idx[P,OH,OW]; x[P,H,W]
template <class T>
void run_adaptive_max_pool2d(Task& t) {
  const Planes in = planes_of(t.ops[2]), out = planes_of(t.ops[0]);
  const T* x = reinterpret_cast<const T*>(t.ops[2].data);
  T* y = reinterpret_cast<T*>(t.ops[0].data);
  int64_t* idx = reinterpret_cast<int64_t*>(t.ops[1].data);
  parallel_range(in.P, in.H * in.W + out.H * out.W, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const T* xp = x + p * in.H * in.W;
      for (int64_t oy = 0; oy < out.H; ++oy) {
        const int64_t y0 = ad_lo(oy, in.H, out.H), y1 = ad_hi(oy, in.H, out.H);
        for (int64_t ox = 0; ox < out.W; ++ox) {
          const int64_t x0 = ad_lo(ox, in.W, out.W), x1 = ad_hi(ox, in.W, out.W);
          T best = xp[y0 * in.W + x0];
          int64_t arg = y0 * in.W + x0;
          for (int64_t iy = y0; iy < y1 && !std::isnan(best); ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              const T v = xp[iy * in.W + ix];
              if (v > best || std::isnan(v)) {
                best = v, arg = iy * in.W + ix;
                if (std::isnan(v)) break;
              }
            }
          y[(p * out.H + oy) * out.W + ox] = best;
          idx[(p * out.H + oy) * out.W + ox] = arg;
        }
      }
    }
  });
}



enum class Kind { Max, MaxBack, Avg, AvgBack, AdAvg, AdAvgBack, AdMax };
constexpr const char* kNames[] = {"max_pool2d", "max_pool2d_backward", "avg_pool2d", "avg_pool2d_backward",
                                  "adaptive_avg_pool2d", "adaptive_avg_pool2d_backward", "adaptive_max_pool2d"};

// Operands with [P, H, W] views: all of one rank >= 2 and the same leading dims.
void check_planes(const char* op, const MFTensorDesc& a, const MFTensorDesc& b) {
  if (a.ndim < 2 || a.ndim != b.ndim) invalid(op, "operands must share a rank >= 2");
  for (int32_t d = 0; d < a.ndim - 2; ++d)
    if (a.shape[d] != b.shape[d]) invalid(op, "leading dims differ");
}

template <class T, Kind K>
MFStatus launch_pool(const MFKernelCall* call) {
  const char* op = kNames[int(K)];
  return guarded([&] {
    if (!call || call->struct_size < sizeof(MFKernelCall)) invalid(op, "bad MFKernelCall");
    const bool two_out = K == Kind::Max || K == Kind::AdMax;
    const int nin = K == Kind::MaxBack ? 2 : 1;
    if (call->num_inputs != nin || call->num_outputs != (two_out ? 2 : 1)) invalid(op, "wrong number of operands");
    if (call->inputs[0].dtype != dtype_of<T> || call->outputs[0].dtype != dtype_of<T>) invalid(op, "bad dtype");
    const MFTensorDesc* idx = two_out ? &call->outputs[1] : K == Kind::MaxBack ? &call->inputs[1] : nullptr;
    if (idx && (idx->dtype != MF_INT64 || !same_shape(*idx, two_out ? call->outputs[0] : call->inputs[0])))
      invalid(op, "indices must be int64 of the output's shape");
    for (int i = 0; i < call->num_inputs; ++i)
      if (!contiguous(call->inputs[i])) invalid(op, "operands must be contiguous");
    for (int i = 0; i < call->num_outputs; ++i)
      if (!contiguous(call->outputs[i])) invalid(op, "operands must be contiguous");
    check_planes(op, call->inputs[0], call->outputs[0]);
    int64_t ival[4] = {0, 0, 0, 0};
    if (K == Kind::Max || K == Kind::Avg || K == Kind::AvgBack) {
      int64_t ks[2], st[2], pd[2], dl[2] = {1, 1};
      read_ints(op, call, "kernel_size", 2, ks);
      read_ints(op, call, "stride", 2, st);
      read_ints(op, call, "padding", 2, pd);
      if (K == Kind::Max) read_ints(op, call, "dilation", 2, dl);
      // The windows of the smaller (output) side must stay near the input:
      // every window then starts at most `pad` before it, as the core ensures.
      const MFTensorDesc& xin = K == Kind::AvgBack ? call->outputs[0] : call->inputs[0];
      const MFTensorDesc& yout = K == Kind::AvgBack ? call->inputs[0] : call->outputs[0];
      for (int k = 0; k < 2; ++k) {
        if (ks[k] < 1 || st[k] < 1 || dl[k] < 1 || pd[k] < 0 || ks[k] > INT_MAX || st[k] > INT_MAX ||
            pd[k] > INT_MAX || dl[k] > INT_MAX)
          invalid(op, "bad window");
        if (yout.shape[xin.ndim - 2 + k] > 0 &&
            (yout.shape[xin.ndim - 2 + k] - 1) * st[k] - pd[k] >= xin.shape[xin.ndim - 2 + k] + pd[k])
          invalid(op, "output larger than the padded input allows");
      }
      ival[0] = pack2(ks[0], ks[1]);
      ival[1] = pack2(st[0], st[1]);
      ival[2] = pack2(pd[0], pd[1]);
      ival[3] = pack2(dl[0], dl[1]);
      if (K != Kind::Max) {
        int64_t inc, div;
        read_ints(op, call, "count_include_pad", 1, &inc);
        read_ints(op, call, "divisor_override", 1, &div);
        if (div < 0 || div > INT_MAX) invalid(op, "bad divisor_override");
        ival[3] = pack2(inc != 0, div);
      }
    }
    if (K == Kind::MaxBack) {
      if (call->num_outputs != 1) invalid(op, "wrong number of operands");
    }
    Task::Fn fn = nullptr;
    switch (K) {
      case Kind::Max: fn = &run_max_pool2d<T>; break;
      case Kind::MaxBack: fn = &run_max_pool2d_backward<T>; break;
      case Kind::Avg: fn = &run_avg_pool2d<T>; break;
      case Kind::AvgBack: fn = &run_avg_pool2d_backward<T>; break;
      case Kind::AdAvg: fn = &run_adaptive_avg_pool2d<T>; break;
      case Kind::AdAvgBack: fn = &run_adaptive_avg_pool2d_backward<T>; break;
      case Kind::AdMax: fn = &run_adaptive_max_pool2d<T>; break;
    }
    if ((K == Kind::AdAvg || K == Kind::AdMax) &&
        (call->inputs[0].shape[call->inputs[0].ndim - 1] == 0 || call->inputs[0].shape[call->inputs[0].ndim - 2] == 0))
      invalid(op, "empty input planes");
    stream_from_handle(call->stream)->enqueue([&](Task& task) {
      task.fn = fn;
      task.set_kernel_call(call);
      for (int k = 0; k < 4; ++k) task.ival[k] = ival[k];
    });
    return MF_OK;
  });
}

template <class T>
void add_all(Registrar& r) {
  r.add("max_pool2d", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::Max>);
  r.add("max_pool2d_backward", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::MaxBack>);
  r.add("avg_pool2d", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::Avg>);
  r.add("avg_pool2d_backward", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::AvgBack>);
  r.add("adaptive_avg_pool2d", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::AdAvg>);
  r.add("adaptive_avg_pool2d_backward", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::AdAvgBack>);
  r.add("adaptive_max_pool2d", dtype_of<T>, dtype_of<T>, &launch_pool<T, Kind::AdMax>);
}

}  // namespace

void register_pool_kernels(Registrar& r) {
  add_all<float>(r);
  add_all<double>(r);
}

}  // namespace mfcpu
