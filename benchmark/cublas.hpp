// SPDX-License-Identifier: MIT
#pragma once

// cuBLAS for the benchmarks' vendor rows, through dlopen (no CUDA headers or link): handle,
// stream, math mode, cublasGemmEx. Used by gemm_runtime_bench.cpp and fusion_bench.cpp.

#include <rocmtpl/ir/dtype.hpp>

#include <dlfcn.h>

#include <string>

namespace rocmtpl::bench {

/// cuBLAS through dlopen: one handle (default math mode: no TF32 for fp32), its stream, cublasGemmEx.
class cublas {
 public:
  static cublas& instance() {
    static cublas c;
    return c;
  }
  [[nodiscard]] bool available() const noexcept { return handle_ != nullptr; }
  [[nodiscard]] const std::string& status() const noexcept { return status_; }
  void set_stream(void* s) const { set_stream_(handle_, s); }
  // Row-major Y [M, N] = X [M, K] W [K, N] as column-major Y^T = W^T X^T.
  int gemm(int m, int n, int k, const void* x, const void* w, void* y, int type) const {
    const float one = 1.0F;
    const float zero = 0.0F;
    return gemm_(handle_, 0, 0, n, m, k, &one, w, type, n, x, type, k, &zero, y, type, n, 68 /*COMPUTE_32F*/,
                 -1 /*DEFAULT*/);
  }

 private:
  using gemm_fn = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                          const void*, void*, int, int, int, int);
  cublas() {
    for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/usr/local/cuda/lib64/libcublas.so"}) {
      lib_ = ::dlopen(n, RTLD_NOW | RTLD_LOCAL);
      if (lib_ != nullptr) break;
    }
    if (lib_ == nullptr) {
      status_ = "libcublas not found";
      return;
    }
    auto create = reinterpret_cast<int (*)(void**)>(::dlsym(lib_, "cublasCreate_v2"));
    auto math = reinterpret_cast<int (*)(void*, int)>(::dlsym(lib_, "cublasSetMathMode"));
    set_stream_ = reinterpret_cast<int (*)(void*, void*)>(::dlsym(lib_, "cublasSetStream_v2"));
    gemm_ = reinterpret_cast<gemm_fn>(::dlsym(lib_, "cublasGemmEx"));
    void* h = nullptr;
    if (!create || !math || !set_stream_ || !gemm_ || create(&h) != 0) {
      status_ = "cuBLAS did not start";
      return;
    }
    math(h, 0);  // CUBLAS_DEFAULT_MATH: no TF32 for fp32
    handle_ = h;
    status_ = "cuBLAS";
  }
  void* lib_ = nullptr;
  void* handle_ = nullptr;
  int (*set_stream_)(void*, void*) = nullptr;
  gemm_fn gemm_ = nullptr;
  std::string status_;
};

/// cublasGemmEx's data type of a rocmtpl dtype (CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF).
inline int cuda_type(rocmtpl::dtype t) { return t == rocmtpl::dtype::f32 ? 0 : (t == rocmtpl::dtype::f16 ? 2 : 14); }

}  // namespace rocmtpl::bench
