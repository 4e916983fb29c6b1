// SPDX-License-Identifier: MIT
// 01_render_only: describe a GEMM problem, render one kernel for it and print the HIP source.
//
// Rendering is pure C++: no compiler, no GPU and no GPU header are needed (link rocmtpl::rocmtpl).
// Sizes are either static (baked into the source as constants) or symbolic (named sizes that
// become `int64_t` arguments of the kernel's entry point, so one compiled kernel serves every value).
#include <rocmtpl/rocm_template.hpp>

#include <iostream>
#include <string>

namespace {

// The line that declares the kernel's C entry point.
std::string entry_point(const std::string& source) {
  const auto begin = source.find("extern \"C\"");
  return source.substr(begin, source.find('{', begin) - begin);
}

}  // namespace

int main() {
  using namespace rocmtpl;
  using templates::activation;
  using templates::gemm_options;
  using templates::gemm_policy;

  // 1. A problem described with runtime values: Y[M, 128] = relu(X[M, 256] @ W[256, 128]) in fp16,
  //    with M symbolic. This is how a program that learns shapes at run time describes them.
  const auto m = sym_expr::symbol("M");
  const rocm_template<gemm_policy> gemm(
      gemm_policy(gemm_options{activation::relu, 1.0F}),
      {buffer("x", layout::row_major(dtype::f16, {m, 256})), buffer("w", layout::row_major(dtype::f16, {256, 128}))},
      layout::row_major(dtype::f16, {m, 128}));

  // The policy lists its candidate configurations (the autotuner's search space); render the first.
  // The hint gives M a value for benchmarking; the source itself keeps M symbolic.
  const auto configs = gemm.policy().configs();
  const rocm_template_caller caller = gemm.generate(configs.front(), {{"M", 1024}});
  std::cout << "// " << caller.to_string() << "\n// one of " << configs.size() << " configurations\n"
            << caller.source() << '\n';

  // 2. The same kind of problem typed at compile time: `sym<"M">` is a symbolic size, `ext<64>` a
  //    static extent, `dims<...>` a shape. Every compile-time type has a runtime value (to_value()),
  //    so typed and runtime descriptions render through the same path.
  using x_shape = dims<sym<"M">, ext<64>>;
  static_assert(x_shape::rank == 2 && x_shape::symbolic_count == 1 && !is_static_v<x_shape>);
  using x_buffer = static_buffer<"x", static_layout<f32_t, x_shape>>;
  using w_buffer = static_buffer<"w", static_layout<f32_t, dims<ext<64>, ext<32>>>>;
  using y_layout = row_major_layout<f32_t, dims<sym<"M">, ext<32>>>;
  const rocm_template<gemm_policy> typed(gemm_policy{}, {x_buffer::to_value(), w_buffer::to_value()},
                                         y_layout::to_value());
  std::cout << "// typed problem, x: " << x_buffer::to_value().get_layout() << '\n'
            << "//   " << entry_point(typed.generate(configs.front(), {{"M", 100}}).source()) << '\n';

  // 3. A fully static problem: every size is baked in, so the entry point takes no size argument.
  using s_x = static_buffer<"x", static_layout<f32_t, dims<ext<128>, ext<64>>>>;
  using s_w = static_buffer<"w", static_layout<f32_t, dims<ext<64>, ext<32>>>>;
  using s_y = row_major_layout<f32_t, dims<ext<128>, ext<32>>>;
  static_assert(is_static_v<dims<ext<128>, ext<64>>> && static_product_v<dims<ext<128>, ext<64>>> == 8192);
  const rocm_template<gemm_policy> fixed(gemm_policy{}, {s_x::to_value(), s_w::to_value()}, s_y::to_value());
  const std::string fixed_entry = entry_point(fixed.generate(configs.front()).source());
  std::cout << "// static problem:\n//   " << fixed_entry << '\n';

  // What the steps above promise, checked (an example that silently printed nonsense would teach nothing).
  const bool ok = caller.source().find("int64_t u_M") != std::string::npos &&
                  fixed_entry.find("int64_t") == std::string::npos &&
                  fixed_entry.find("rocm_gemm(const float* X, const float* W, float* Y") != std::string::npos;
  if (!ok) {
    std::cerr << "01_render_only: the rendered entry points are not the expected ones\n";
    return 1;
  }
  return 0;
}
