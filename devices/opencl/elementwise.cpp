#include "elementwise.h"

#include <cstring>

namespace mfocl {

namespace {

const char* unsigned_of(const DTypeInfo& t) {
  if (t.floating) return t.compute;
  switch (t.size) {
    case 8: return "ulong";
    default: return "uint";  // narrower integers compute promoted to int
  }
}

std::string kernel_source(const ElementwiseMember& m, int num_outputs) {
  const int n = int(m.dtypes.size());
  std::string s = "__kernel void " + m.name +
                  "(Geometry g, long si0, long si1, long si2, long si3, WIDE_T sf0, WIDE_T sf1, WIDE_T sf2, "
                  "WIDE_T sf3, __global int* err";
  for (int k = 0; k < n; ++k) s += ", __global uchar* b" + std::to_string(k) + ", ulong o" + std::to_string(k);
  s += ") {\n  long i = get_global_id(0);\n  if (i >= g.n) return;\n";
  for (int k = 0; k < n; ++k) s += "  long e" + std::to_string(k) + " = 0;\n";
  s += "  long r = i;\n  for (int d = (int)g.ndim - 1; d >= 0; --d) {\n    long sz = g.shape[d], c = r % sz;\n"
       "    r /= sz;\n";
  for (int k = 0; k < n; ++k) {
    const std::string K = std::to_string(k);
    s += "    e" + K + " += c * g.strides[" + K + "][d];\n";
  }
  s += "  }\n";
  std::string undef;
  for (int k = 0; k < n; ++k) {
    const std::string K = std::to_string(k);
    const DTypeInfo& t = dtype_info(m.dtypes[size_t(k)]);
    const std::string ptr = "p" + K;
    s += std::string("  __global ") + t.storage + "* " + ptr + " = (__global " + t.storage + "*)(b" + K + " + o" +
         K + ");\n";
    s += "#define X" + K + " (" + load_expr(m.dtypes[size_t(k)], ptr, "e" + K) + ")\n";
    s += "#define R" + K + " (" + ptr + "[e" + K + "])\n";
    undef += "#undef X" + K + "\n#undef R" + K + "\n";
    if (k < num_outputs) {
      s += "#define ST" + K + "(v) do { " + store_stmt(m.dtypes[size_t(k)], m.result, ptr, "e" + K, "(v)") +
           " } while (0)\n";
      undef += "#undef ST" + K + "\n";
    }
  }
  s += "  {\n" + m.body + "\n  }\n}\n" + undef;
  return s;
}

std::string source(const Device& d, const ElementwiseSpec& spec, const ElementwiseMember& launched) {
  const DTypeInfo& kt = dtype_info(spec.kernel_dtype);
  std::string s = prelude(d);
  s += std::string("#define C ") + kt.compute + "\n#define U " + unsigned_of(kt) + "\n";
  s += "#define FAIL(code) (*err = (code))\n#define SI0 si0\n#define SI1 si1\n#define SI2 si2\n#define SI3 si3\n"
       "#define SF0 sf0\n#define SF1 sf1\n#define SF2 sf2\n#define SF3 sf3\n";
  bool has_launched = false;
  for (const ElementwiseMember& m : spec.family) {
    has_launched |= m.name == launched.name;
    s += kernel_source(m, spec.num_outputs);
  }
  if (!has_launched) s += kernel_source(launched, spec.num_outputs);
  return s;
}

}  // namespace

void launch_elementwise(const MFKernelCall* call, Stream* s, const ElementwiseSpec& spec) {
  const int n = call->num_outputs + call->num_inputs;
  if (n != int(spec.dtypes.size()) || n > kMaxOperands) invalid(spec.op, "unexpected operand count");
  const MFTensorDesc& out = call->outputs[0];
  if (out.ndim > kMaxDims)
    raise(MF_ERR_UNSUPPORTED, std::string(spec.op) + ": opencl kernels take at most " + std::to_string(kMaxDims) +
                                  " dims after coalescing, got " + std::to_string(out.ndim));
  Geometry g{};
  g.ndim = out.ndim;
  g.n = numel(out);
  for (int32_t d = 0; d < out.ndim; ++d) g.shape[d] = out.shape[d];
  std::vector<Resolved> res;
  for (int k = 0; k < n; ++k) {
    const bool is_out = k < call->num_outputs;
    const MFTensorDesc& t = is_out ? call->outputs[k] : call->inputs[k - call->num_outputs];
    const std::string role = (is_out ? "output " : "input ") + std::to_string(is_out ? k : k - call->num_outputs);
    if (t.dtype != spec.dtypes[size_t(k)])
      invalid(spec.op, role + " has dtype " + dtype_name(t.dtype) + ", kernel expects " +
                           dtype_name(spec.dtypes[size_t(k)]));
    if (!same_shape(t, out)) invalid(spec.op, role + " does not have the output's shape");
    res.push_back(resolve_desc(t, call->device, spec.op, role.c_str()));
    for (int32_t d = 0; d < t.ndim; ++d) g.strides[k][d] = t.strides[d];
  }
  if (g.n == 0) return;
  const Device& dev = device(call->device);
  std::string key = spec.key + ":" + std::to_string(spec.kernel_dtype);
  for (int32_t dt : spec.dtypes) key += "," + std::to_string(dt);
  const ElementwiseMember launched{"k_" + spec.key, spec.dtypes, spec.result, spec.body};
  if (!spec.family.empty()) key = spec.family_key;
  CachedKernel& k = cached_kernel(call->device, key, launched.name.c_str(), [&] { return source(dev, spec, launched); });
  Launch l(k, s);
  l.arg(g);
  for (int64_t v : spec.si) l.arg(cl_long(v));
  for (double f : spec.sf) {
    if (dev.fp64) l.arg(cl_double(f));
    else l.arg(cl_float(float(f)));
  }
  l.error_flag();
  for (const Resolved& r : res) l.buffer(r);
  l.run(g.n);
}

}  // namespace mfocl
