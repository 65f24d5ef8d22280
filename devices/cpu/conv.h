// The 2-D convolution loop of kernels_conv.cpp, shared with the graph's
// fused conv_epilogue kernel (kernels_graph_fused.cpp) so that both run the
// very same arithmetic (Note [Fused kernels are the unfused chain]).
#pragma once
#include <cstdint>

#include "launch.h"

namespace mfcpu {

// Task::ival carries 4 scalars; the kernels need 7, so pairs share a slot.
inline int64_t pack2(int64_t a, int64_t b) { return (a << 32) | (b & 0xffffffff); }
inline int64_t hi32(int64_t v) { return v >> 32; }
inline int64_t lo32(int64_t v) { return int64_t(int32_t(uint32_t(v & 0xffffffff))); }

// Geometry of a convolution seen from its "input" side x[N,C,H,W] and its
// "output" side y[N,O,OH,OW] with weight [O, C/groups, kh, kw].
struct ConvGeom {
  int64_t N, C, H, W, O, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  int64_t Cg() const { return C / groups; }
  int64_t Og() const { return O / groups; }
  int64_t Kg() const { return Cg() * kh * kw; }
  int64_t K() const { return C * kh * kw; }
  int64_t L() const { return OH * OW; }
  int64_t HW() const { return H * W; }
  // A 1x1 convolution whose image is its own column matrix (no im2col): the
  // spatial sizes must match too (conv_transpose2d's output_padding grows them).
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && OH == H && OW == W;
  }
};

// The stride/padding/dilation/groups attributes of a conv kernel call, checked.
struct ConvAttrs {
  int64_t stride[2], padding[2], dilation[2], groups;
};
ConvAttrs read_conv_attrs(const char* op, const MFKernelCall* call);

// Checks that contiguous 4-D x, y, w (and a 1-D bias of bias_len values,
// when given) line up for `attrs`, as every conv kernel needs to stay in
// bounds; throws Error naming `op`.
void check_conv_operands(const char* op, const ConvAttrs& attrs, const MFTensorDesc& x, const MFTensorDesc& y,
                         const MFTensorDesc& w, const MFTensorDesc* bias, int64_t bias_len);

// The geometry from x's and w's shapes and the attributes, y's spatial size
// being the full convolution's (conv2d's output).
ConvGeom forward_geom(const ConvAttrs& attrs, const int64_t* x_shape, const int64_t* w_shape);

// The geometry from the shapes of x, y and w (conv_transpose2d's output_padding makes
// x larger than the one whose full convolution y is).
ConvGeom conv_geom(const ConvAttrs& attrs, const int64_t* x_shape, const int64_t* y_shape, const int64_t* w_shape);

// Called once per finished block of output images [first, first + count):
// y holds their conv2d values (bias included) and nothing else writes them
// any more, so the block can be post-processed while it is in cache. May
// run on several threads at once (disjoint blocks), inside or outside an
// OpenMP parallel region; must not throw.
struct ConvEpilogue {
  void (*apply)(const void* ctx, int64_t first, int64_t count);
  const void* ctx;
};

// conv2d's forward: y[N,O,OH,OW] = conv(x[N,C,H,W], w[O,Cg,kh,kw]) (+ bias[O]),
// all contiguous; then `epilogue` (if any) per block of images.
template <class T>
void conv2d_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, const ConvEpilogue* epilogue);

// conv_transpose2d (conv2d's adjoint in x, its input gradient):
// x[N,C,H,W] = conv2d^T(y[N,O,OH,OW], w) (+ bias[C]), all contiguous; then
// `epilogue` (if any) per block of images of x.
template <class T>
void conv_transpose2d_forward(const ConvGeom& g, const T* y, const T* w, const T* bias, T* x,
                              const ConvEpilogue* epilogue);

extern template void conv_transpose2d_forward<float>(const ConvGeom&, const float*, const float*, const float*,
                                                     float*, const ConvEpilogue*);
extern template void conv_transpose2d_forward<double>(const ConvGeom&, const double*, const double*, const double*,
                                                      double*, const ConvEpilogue*);
extern template void conv2d_forward<float>(const ConvGeom&, const float*, const float*, const float*, float*,
                                           const ConvEpilogue*);
extern template void conv2d_forward<double>(const ConvGeom&, const double*, const double*, const double*, double*,
                                            const ConvEpilogue*);

}  // namespace mfcpu
