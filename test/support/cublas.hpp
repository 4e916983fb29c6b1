// SPDX-License-Identifier: MIT
#pragma once

// Test support: cuBLAS loaded at run time (libcublas.so.13 / .12 / libcublas.so, no headers), the
// vendor reference GPU tests compare against and the benchmarks' vendor rows. Two calls: a strided
// batched GEMM with fp32 output and fp32 (optionally pedantic) compute (the tests' reference), and
// a row-major GEMM with the inputs' type out on a stream (the benchmarks').

#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace rocmtpl::test {

class cublas {
 public:
  static cublas& instance() {
    static cublas c;
    return c;
  }
  [[nodiscard]] bool available() const noexcept { return handle_ != nullptr; }
  [[nodiscard]] const std::string& status() const noexcept { return status_; }

  // C[b] (N x M column-major, ldc = N: the row-major M x N product) = op(A[b]) op(B[b]).
  int gemm(int op_a, int op_b, int m, int n, int k, const void* a, int a_type, int lda, long long stride_a,
           const void* b, int b_type, int ldb, long long stride_b, float* c, long long stride_c, int batch,
           bool pedantic) const {
    const float one = 1.0F;
    const float zero = 0.0F;
    return gemm_(handle_, op_a, op_b, m, n, k, &one, a, a_type, lda, stride_a, b, b_type, ldb, stride_b, &zero, c,
                 cuda_r_32f, m, stride_c, batch, pedantic ? compute_32f_pedantic : compute_32f, gemm_default);
  }

  // Row-major Y [M, N] = X [M, K] W [K, N] (column-major Y^T = W^T X^T), Y in the inputs' type,
  // fp32 compute, on the stream of set_stream().
  int gemm_row_major(int m, int n, int k, const void* x, const void* w, void* y, int type) const {
    const float one = 1.0F;
    const float zero = 0.0F;
    return gemm_ex_(handle_, op_n, op_n, n, m, k, &one, w, type, n, x, type, k, &zero, y, type, n, compute_32f,
                    gemm_default);
  }
  void set_stream(void* stream) const { set_stream_(handle_, stream); }

  static constexpr int cuda_r_32f = 0;
  static constexpr int cuda_r_16f = 2;
  static constexpr int cuda_r_16bf = 14;
  static constexpr int op_n = 0;
  static constexpr int op_t = 1;

 private:
  static constexpr int compute_32f = 68;
  static constexpr int compute_32f_pedantic = 69;
  static constexpr int gemm_default = -1;
  using create_fn = int (*)(void**);
  using gemm_fn = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, long long, const void*,
                          int, int, long long, const void*, void*, int, int, long long, int, int, int);
  using gemm_ex_fn = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                             const void*, void*, int, int, int, int);
  using set_stream_fn = int (*)(void*, void*);

  cublas() {
    std::vector<std::string> names{"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    for (const char* root :
         std::vector<const char*>{std::getenv("CUDA_PATH"), std::getenv("CUDA_HOME"), "/usr/local/cuda"}) {
      if (root != nullptr) names.push_back(std::string(root) + "/lib64/libcublas.so");
    }
    for (const auto& n : names) {
      lib_ = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib_ != nullptr) break;
    }
    if (lib_ == nullptr) {
      status_ = "libcublas not found";
      return;
    }
    auto create = reinterpret_cast<create_fn>(::dlsym(lib_, "cublasCreate_v2"));
    gemm_ = reinterpret_cast<gemm_fn>(::dlsym(lib_, "cublasGemmStridedBatchedEx"));
    gemm_ex_ = reinterpret_cast<gemm_ex_fn>(::dlsym(lib_, "cublasGemmEx"));
    set_stream_ = reinterpret_cast<set_stream_fn>(::dlsym(lib_, "cublasSetStream_v2"));
    if (create == nullptr || gemm_ == nullptr || gemm_ex_ == nullptr || set_stream_ == nullptr) {
      status_ = "libcublas lacks cublasCreate_v2 / cublasGemmStridedBatchedEx / cublasGemmEx / cublasSetStream_v2";
      return;
    }
    void* h = nullptr;
    if (int rc = create(&h); rc != 0) {
      status_ = "cublasCreate_v2 failed with " + std::to_string(rc);
      return;
    }
    handle_ = h;
    status_ = "cuBLAS";
  }

  void* lib_ = nullptr;
  void* handle_ = nullptr;
  gemm_fn gemm_ = nullptr;
  gemm_ex_fn gemm_ex_ = nullptr;
  set_stream_fn set_stream_ = nullptr;
  std::string status_;
};

}  // namespace rocmtpl::test
