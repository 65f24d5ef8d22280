// cuBLAS, opened at run time like the driver (Note [The CUDA driver, opened
// at run time] in driver.h): "libcublas.so.13", then ".12", found by the
// dynamic linker (python/monoflow/_plugins.py preloads the nvidia-cublas
// wheel's copy when it is installed). No toolkit header is needed: the few
// types and enum values below are cuBLAS's stable C ABI (cublas_api.h,
// library_types.h). Without cuBLAS, matmul still runs, on the plugin's naive
// kernel (slow but correct), and says so once on stderr.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace mfcuda {

typedef struct cublasContext* cublasHandle_t;
typedef int cublasStatus_t;  // 0: CUBLAS_STATUS_SUCCESS
enum { MFC_CUBLAS_OP_N = 0, MFC_CUBLAS_OP_T = 1 };
enum { MFC_CUDA_R_32F = 0, MFC_CUDA_R_64F = 1, MFC_CUDA_R_16F = 2, MFC_CUDA_R_16BF = 14 };
enum { MFC_CUBLAS_COMPUTE_32F = 68, MFC_CUBLAS_COMPUTE_64F = 70 };
enum { MFC_CUBLAS_GEMM_DEFAULT = -1 };

struct Cublas {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;                   // cublasCreate_v2
  cublasStatus_t (*set_stream)(cublasHandle_t, CUstream) = nullptr;      // cublasSetStream_v2
  // cublasGemmStridedBatchedEx (cuBLAS >= 11: computeType is cublasComputeType_t)
  cublasStatus_t (*gemm_strided_batched)(cublasHandle_t, int transa, int transb, int m, int n, int k,
                                         const void* alpha, const void* A, int Atype, int lda,
                                         long long strideA, const void* B, int Btype, int ldb,
                                         long long strideB, const void* beta, void* C, int Ctype, int ldc,
                                         long long strideC, int batchCount, int computeType,
                                         int algo) = nullptr;
  bool available = false;
};

// Opened once; never throws.
const Cublas& cublas();

}  // namespace mfcuda
