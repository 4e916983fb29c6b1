// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief What the two skinny paths (skinny: fp32 FMAs, skinny_mma: mma.sync) share: the skinny
/// view of a problem (Q, P and the large operand), its K slices, and the rendering of the
/// matrix-vector kernels of skinny/device_code.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/render.hpp>
#include <rocmtpl/templates/gemm/skinny/config.hpp>

namespace rocmtpl::templates::detail {

// A skinny problem's sizes and its large operand (W for few rows, X for few columns), as the
// skinny spaces read them.
struct skinny_problem {
  std::int64_t m, n, k, b, small;
  bool q_is_m;
  const gemm_operand* large;
  gemm_copy_facts facts;  // the large operand's
  int vec;                // its widest vector (at most 8 elements, 16 bytes)
};

// The skinny view of a problem, or nothing when neither M nor N is at most gemm_skinny_max_small.
[[nodiscard]] std::optional<skinny_problem> make_skinny_problem(const gemm_view& v, const size_hints& hints);

// The K slices of a skinny configuration: 1 to 32 while each slice keeps at least two block steps.
[[nodiscard]] std::vector<int> skinny_splits(std::int64_t k, std::int64_t block_step);

// What the skinny writers need of a configuration of either skinny path.
struct skinny_shape {
  bool q_is_m = true;
  bool mma = false;   // the matrix-core kernel
  int rows = 1;       // rows of Q per block
  int k_threads = 1;  // threads (mma: warps) along K
  int p_threads = 1;  // threads (mma: warps) along P
  int p_units = 1;    // units along P per thread (mma: 1)
  int k_step = 8;     // K elements per thread (mma: lane) and step
  int split_k = 1;    // static K slices
  int threads = 0;    // threads per block
  int units = 0;      // units of P per block (dot: rows, streaming: vectors, mma: elements)
  int vector = 8;     // the configuration's vector width
};

// The large operand of a skinny configuration: W for side m, X for side n; its name, operand,
// copy facts, vector width (capped at the configuration's) and kernel (dot: contiguous along K or
// along neither axis; else streaming).
struct skinny_large {
  std::string name;
  const gemm_operand* op = nullptr;
  gemm_copy_facts facts;
  bool is_x = false;
  int vec = 1;
  bool dot = true;
  bool mma = false;  // the matrix-core kernel
};

[[nodiscard]] skinny_large skinny_large_of(const gemm_plan& plan, const skinny_shape& c);

// The small operand of a matrix-core skinny configuration (X for side m, W for side n): loaded
// k_step elements at a time in the vectorised kernel when contiguous along K and (statically or at
// run time) aligned to them, else element by element.
struct skinny_small {
  std::string name;
  const gemm_operand* op = nullptr;
  gemm_copy_facts facts;
  bool is_x = true;
  int vec = 1;
};

[[nodiscard]] skinny_small skinny_small_of(const gemm_plan& plan, const skinny_shape& c);

// The launches: the main kernel (vectorised when the large operand's requirements hold, else
// scalar; parameters plan.params: the tensors, the partials when K is split, the sizes), then with
// split_k above 1 the shared split-K reduction; a static workspace of split_k slices.
[[nodiscard]] launch_description skinny_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan,
                                                           const skinny_shape& c);

// Constants, device code (the shared split-K reduction's body when K is split), the launcher
// helpers and the described kernels of a skinny configuration.
void write_skinny_code(indented_buffer& src, const gemm_plan& plan, const skinny_shape& c, const launch_description& d);

// The skinny translation unit; the entry of a matrix-core configuration (NVIDIA's mma.sync)
// answers the workspace query on AMD and refuses every launch there.
void render_skinny(rendered_source& out, rocm_template_kernel& kernel, const gemm_plan& plan, const skinny_shape& c,
                   const launch_description& d);

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/skinny/render-inl.hpp>
#endif
