// SPDX-License-Identifier: MIT
// 01_render_only: describe a GEMM problem, render one kernel for it and print the HIP source.
//
// Rendering is pure C++: no compiler, no GPU and no GPU header are needed (link rocmtpl::rocmtpl).
// Sizes are either static (baked into the source as constants) or symbolic (named sizes that
// become `int64_t` arguments of the kernel's entry point, so one compiled kernel serves every value).
//
// The typed route comes first: the problem's buffers are types, so the entry point's signature is
// a type too (checked at compile time, and kept by compile/autotune in the runtime layer: see
// 02_compile_and_run and 03_autotune_gemm). The runtime-value route, for shapes learned at run
// time, follows; it renders the same source.
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/rocm_template.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <type_traits>

namespace {
using namespace rocmtpl;

// Y[M, 128] = relu(X[M, 256] @ W[256, 128]) in fp16. `sym<"M">` is a symbolic size, `ext<256>` a
// static extent, `dims<...>` a shape. Buffer names are the GEMM's parameter names (X, W, Y).
using x_buffer = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<256>>>>;
using w_buffer = static_buffer<"W", row_major_layout<f16_t, dims<ext<256>, ext<128>>>>;
using y_buffer = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<128>>>>;

// A fully static problem: every size is baked in, so the entry point takes no size argument.
using sx_buffer = static_buffer<"X", row_major_layout<f32_t, dims<ext<128>, ext<64>>>>;
using sw_buffer = static_buffer<"W", row_major_layout<f32_t, dims<ext<64>, ext<32>>>>;
using sy_buffer = static_buffer<"Y", row_major_layout<f32_t, dims<ext<128>, ext<32>>>>;
}  // namespace

int main() {
  using templates::activation;
  using templates::gemm_options;
  using templates::gemm_policy;

  // 1. The typed route: buffer types -> make_template -> generate. The signature is known at
  //    compile time: its declaration, and the C++ type a compiled entry point is called through.
  const auto gemm = make_template(gemm_policy(gemm_options{activation::relu, 1.0F}), inputs<x_buffer, w_buffer>{},
                                  outputs<y_buffer>{});
  using sig = decltype(gemm)::signature;
  static_assert(std::is_same_v<sig::function_type, int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                                                       std::int64_t, std::size_t*, std::uint8_t*, void*)>);
  // The policy lists its candidate configurations (the autotuner's search space); render the first.
  // The hint gives M a value for benchmarking; the source itself keeps M symbolic.
  const auto configs = gemm.policy().configs();
  const auto caller = gemm.generate(configs.front(), hints<"M">{1024});  // checked against the signature
  std::cout << "// " << caller.untyped().to_string() << "\n// one of " << configs.size() << " configurations\n"
            << caller.source() << '\n';

  // The static problem: its declaration is a compile-time constant.
  const auto fixed = make_template(gemm_policy{}, inputs<sx_buffer, sw_buffer>{}, outputs<sy_buffer>{});
  using fixed_sig = decltype(fixed)::signature;
  constexpr std::string_view fixed_entry = fixed_sig::declaration_text<"rocm_gemm">.view();
  static_assert(fixed_entry.find("int64_t") == std::string_view::npos);
  std::cout << "// static problem:\n//   " << fixed_entry << '\n';

  // 2. The runtime-value route, for a program that learns shapes at run time (the CLI, a
  //    framework): the same problem as runtime buffers renders the same source.
  const auto m = sym_expr::symbol("M");
  const rocm_template<gemm_policy> untyped(
      gemm_policy(gemm_options{activation::relu, 1.0F}),
      {buffer("X", layout::row_major(dtype::f16, {m, 256})), buffer("W", layout::row_major(dtype::f16, {256, 128}))},
      layout::row_major(dtype::f16, {m, 128}));
  const rocm_template_caller untyped_caller = untyped.generate(configs.front(), {{"M", 1024}});
  // Every compile-time type has a runtime value (to_value()), which is how the typed route renders.
  std::cout << "// runtime-value route, X: " << x_buffer::to_value().get_layout() << '\n';

  // What the steps above promise, checked (an example that silently printed nonsense would teach nothing).
  const bool ok = caller.source().find(caller.declaration()) != std::string::npos &&
                  caller.declaration().find("int64_t u_M") != std::string::npos &&
                  untyped_caller.source() == caller.source() &&
                  fixed.generate(fixed.policy().configs().front()).source().find(fixed_entry) != std::string::npos;
  if (!ok) {
    std::cerr << "01_render_only: the rendered entry points are not the expected ones\n";
    return 1;
  }
  return 0;
}
