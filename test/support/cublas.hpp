// SPDX-License-Identifier: MIT
#pragma once

// Test support: cuBLAS loaded at run time (libcublas.so.13 / .12 / libcublas.so, no headers), the
// vendor reference GPU tests compare against. Only the one call they need: a strided batched GEMM
// with fp32 output and fp32 (optionally pedantic) compute.

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
    if (create == nullptr || gemm_ == nullptr) {
      status_ = "libcublas lacks cublasCreate_v2 / cublasGemmStridedBatchedEx";
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
  std::string status_;
};

}  // namespace rocmtpl::test
