// SPDX-License-Identifier: MIT
// 02_compile_and_run: render a GEMM, compile it into a shared library (cached on disk), load it,
// call its C entry point and, where a GPU exists, run it and check the result on the host.
//
// The typed path comes first: the problem is given as buffer types, so the compiled kernel is
// called with `const float* X, const float* W, float* Y, int64_t M, stream` (checked at compile
// time), with no function-pointer type, void* or argument count written here. The runtime-value
// path (shapes learned at run time) follows; it renders the same source.
//
// The program builds with a plain host compiler (link rocmtpl::runtime): the GPU runtime is loaded
// at run time. Without a GPU it still compiles (hipcc, for gfx90a), loads the library and queries
// the workspace; running needs a GPU and says so. The cache folder is ROCMTPL_CACHE_DIR, else
// ~/.cache/rocmtpl.
#include <rocmtpl/runtime.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <vector>

namespace {
// Y[M, N] = X[M, K] @ W[K, N] in fp32; M is symbolic (an argument of the entry point).
constexpr std::int64_t rows = 100;
constexpr std::int64_t k = 64;
constexpr std::int64_t n = 48;
using x_buffer = rocmtpl::static_buffer<
    "X", rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<k>>>>;
using w_buffer =
    rocmtpl::static_buffer<"W",
                           rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::ext<k>, rocmtpl::ext<n>>>>;
using y_buffer = rocmtpl::static_buffer<
    "Y", rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<n>>>>;
}  // namespace

int main() {
  using namespace rocmtpl;
  using namespace rocmtpl::runtime;
  try {
    // The typed template: buffer names are the GEMM's parameter names (X, W, Y), checked at compile
    // time; the hint is keyed by the signature's size symbol M (a misspelt one does not compile).
    const auto gemm = make_template(templates::gemm_policy{}, inputs<x_buffer, w_buffer>{}, outputs<y_buffer>{});
    const auto caller = gemm.generate(gemm.policy().configs().front(), hints<"M">{rows});
    std::cout << caller.declaration() << '\n';

    // 1. Compile for this machine's GPU, or (no GPU) for an AMD target to show the steps. The cache
    //    key covers the source, the command, the compiler version and the arch: a second run loads
    //    the library without compiling. compile() also loads the entry point with its exact type.
    const auto& gpu = gpu_runtime::instance();
    const compile_options options =
        gpu.available() ? compile_options_for(gpu.properties(gpu.current_device())) : amd_compile_options({"gfx90a"});
    const compiler cc = compiler::find(options.platform);
    code_cache cache;
    const auto kernel = compile(caller, cache, cc, options);
    std::cout << "entry point " << kernel.name() << ", workspace " << kernel.workspace_size(rows) << " bytes\n";

    // 2. The runtime-value route, for shapes learned at run time: runtime buffers, the same
    //    source; kernel_entry checks that the library declares the request's signature, then calls
    //    the entry's packed twin (X, W, Y, then M, workspace_size, workspace, stream).
    const auto m = sym_expr::symbol("M");
    const rocm_template<templates::gemm_policy> untyped(
        templates::gemm_policy{},
        {buffer("X", layout::row_major(dtype::f32, {m, k})), buffer("W", layout::row_major(dtype::f32, {k, n}))},
        layout::row_major(dtype::f32, {m, n}));
    const auto untyped_caller = untyped.generate(untyped.policy().configs().front(), {{"M", rows}});
    const compile_result built = cache.get_or_compile(cc, untyped_caller.source(), options);
    const kernel_entry entry(std::make_shared<shared_library>(built.library), untyped_caller.bmreq().kernel_name,
                             untyped_caller.bmreq().signature);
    std::cout << "runtime-value route: same source " << (untyped_caller.source() == caller.source() ? "yes" : "no")
              << ", workspace " << entry.workspace_size({rows}) << " bytes\n";

    if (!gpu.available()) {
      std::cout << "running needs a GPU: " << gpu.status() << '\n';
      return 0;
    }

    // 3. Run: inputs with small integer values (so fp32 sums are exact), copy in, launch, copy back.
    std::vector<float> x(rows * k);
    std::vector<float> w(k * n);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
    std::vector<float> y(rows * n, 0.0F);
    device_buffer dx(x.size() * sizeof(float));
    device_buffer dw(w.size() * sizeof(float));
    device_buffer dy(y.size() * sizeof(float));
    dx.copy_from_host(x.data());
    dw.copy_from_host(w.data());
    const stream s;
    kernel(static_cast<const float*>(dx.get()), static_cast<const float*>(dw.get()), static_cast<float*>(dy.get()),
           rows, s.get());
    s.synchronize();
    dy.copy_to_host(y.data());

    // 4. Check a few elements (corners and the middle) against the host.
    int wrong = 0;
    for (const auto& [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 0},
                               {0, n - 1},
                               {rows / 2, n / 2},
                               {rows - 1, 0},
                               {rows - 1, n - 1}}) {
      double expected = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) expected += static_cast<double>(x[i * k + kk]) * w[kk * n + j];
      const float got = y[i * n + j];
      std::printf("Y[%lld, %lld] = %g (host: %g)\n", static_cast<long long>(i), static_cast<long long>(j),
                  static_cast<double>(got), expected);
      if (std::abs(got - expected) > 1e-3) ++wrong;
    }
    if (wrong != 0) {
      std::cerr << "02_compile_and_run: " << wrong << " elements differ from the host result\n";
      return 1;
    }
    std::cout << "result matches the host on " << gpu.properties(gpu.current_device()).name << '\n';
  } catch (const compiler_not_found_error& e) {
    std::cout << "compiling needs hipcc or nvcc: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "02_compile_and_run: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
