/* Fused elementwise programs: the instruction set shared by the graph's
 * fusion passes (core/src/graph/pass_fuse_*.cc) and the kernels that run
 * them (devices/<device>/kernels_graph_fused.cpp). Plain C, like plugin.h:
 * a device plugin includes it without linking the core.
 *
 * Note [Fused programs]
 *   A fused node (ops `fused_elementwise`, `matmul_epilogue` and `conv_epilogue`,
 *   ops/graph.def) computes a small straight-line program per element of
 *   one iteration shape; every operand arrives with that shape (broadcast
 *   inputs with stride 0). Its attributes:
 *     "program"   ints, MF_FUSED_WIDTH ints per instruction:
 *                 {opcode, dst, a, b, c} (registers; unused fields 0)
 *     "outputs"   ints, the register stored into each output, in order
 *     "constants" ints, doubles bit-cast to int64 (MF_FUSED_CONST* read them)
 *     "registers" scalar, how many registers the program uses
 *   Registers hold the kernel dtype's compute type (float for float16 and
 *   bfloat16); a bool value is 0 or 1. An op on floating values rounds its
 *   result to the kernel dtype (a no-op for float32/float64), exactly as the
 *   unfused kernel's store and the next kernel's load would, so the fused
 *   node is bit for bit the chain it replaces. Loads and constants never
 *   round twice. A bool input or output is converted as a bool tensor is
 *   (0/1 bytes). An instruction never writes a register it reads (the
 *   kernel's loops rely on it). An input may be the very same view as an
 *   output (an in-place op): each element is read before it is written, as
 *   in the unfused chain; other overlaps between operands are not allowed.
 *   matmul_epilogue: inputs 0 and 1 are the matrices; program input 0 is
 *   their product (for each element of output 0, which must have the
 *   kernel dtype), program input k >= 1 is the node's input k + 1.
 *   conv_epilogue: inputs 0 and 1 are x and w, then the bias if the
 *   "bias" attribute is 1; program input 0 is the convolution (output 0),
 *   program input k >= 1 is the node's input k + 1 (k + 2 with a bias).
 */
#ifndef MONOFLOW_FUSED_PROGRAM_H_
#define MONOFLOW_FUSED_PROGRAM_H_

#define MF_FUSED_WIDTH 5
#define MF_FUSED_MAX_REGISTERS 32

typedef enum MFFusedOpcode {
  /* dst = input[a] */
  MF_FUSED_LOAD = 0,
  /* dst = compute(constants[a]): a *_scalar op's Python number */
  MF_FUSED_CONST = 1,
  /* dst = load(store(constants[a])): a fill's value, as its tensor holds it */
  MF_FUSED_CONST_STORED = 2,
  /* dst = a (a same-dtype copy) */
  MF_FUSED_MOVE = 3,
  /* unary: dst = f(a) */
  MF_FUSED_NEG = 10,
  MF_FUSED_EXP = 11,
  MF_FUSED_LOG = 12,
  MF_FUSED_SQRT = 13,
  MF_FUSED_RSQRT = 14,
  MF_FUSED_TANH = 15,
  MF_FUSED_SIGMOID = 16,
  MF_FUSED_RELU = 17,
  MF_FUSED_GELU = 18,      /* b = 1: the tanh approximation */
  MF_FUSED_SILU = 19,
  MF_FUSED_ABS = 20,
  MF_FUSED_SQUARE = 21,
  MF_FUSED_RECIPROCAL = 22,
  MF_FUSED_ERF = 23,
  MF_FUSED_EXPM1 = 24,
  MF_FUSED_LOG1P = 25,
  /* binary: dst = a (op) b */
  MF_FUSED_ADD = 40,
  MF_FUSED_SUB = 41,
  MF_FUSED_MUL = 42,
  MF_FUSED_DIV = 43,
  MF_FUSED_MAXIMUM = 44,
  MF_FUSED_MINIMUM = 45,
  /* comparisons: dst = 0 or 1 */
  MF_FUSED_EQ = 50,
  MF_FUSED_NE = 51,
  MF_FUSED_LT = 52,
  MF_FUSED_LE = 53,
  MF_FUSED_GT = 54,
  MF_FUSED_GE = 55,
  /* dst = a != 0 ? b : c */
  MF_FUSED_WHERE = 60,
  /* dst = a + constants[c] * b (add_alpha) */
  MF_FUSED_AXPY = 61
} MFFusedOpcode;

#endif /* MONOFLOW_FUSED_PROGRAM_H_ */
