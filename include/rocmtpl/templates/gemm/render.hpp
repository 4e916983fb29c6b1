// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Rendering of the GEMM's translation unit for one configuration, in named steps: the
/// checks, a plan (vector widths, parameter lists), then the source head, the problem prelude, the
/// tile constants, the device code of templates/gemm/device_code.hpp, the kernels, the launcher
/// and the C entry point.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates::detail {

// What a plan needs of a configuration: its name (the source's first line), K slices, vector
// width, and whether a split_k above 1 splits K without gemm_options::runtime_split_k (its own
// workspace and reduction: the skinny and SIMT paths; the mma and Hopper ones need the option).
struct gemm_plan_config {
  std::string name;
  int split_k = 1;
  int vector = 1;
  bool splits_k_statically = false;
  bool static_slices =
      false;         // K slices are static even with runtime split-K (skinny): split_k is not a kernel argument
  int stream_k = 0;  // Hopper stream-K: fp32 partial tiles and counters in the workspace, no reduction kernel
};

// What one rendering needs beyond the configuration: the problem, the entry point's signature and
// size symbols, the copy facts and vector widths of X and W, and the kernels' parameter lists.
struct gemm_plan {
  gemm_view v;
  gemm_plan_config config;
  gemm_options options;
  std::string signature;
  std::vector<std::string> symbols;
  bool split = false;      // runtime split-K (the entry takes split_k)
  bool partials = false;   // the kernels take the fp32 partials (runtime split-K, or static K slices)
  bool split_arg = false;  // the kernels take split_k (runtime split-K on the tiled paths)
  gemm_copy_facts fx;
  gemm_copy_facts fw;
  int va = 1;                   // vector width of X
  int vb = 1;                   // vector width of W
  bool fast = false;            // a vectorised instantiation exists
  bool needs_fallback = false;  // alignment depends on size symbols: checked at run time
  std::string params;           // kernel parameters: tensors, Partial, sizes, split_k
  std::string args;             // the matching arguments
  std::string sym_args;         // the size symbols, comma-separated
  std::string pointers;         // gemm_pointers initializer
};

// Vector width of an operand: `vector`, capped at 16 bytes and at what the static layout allows.
[[nodiscard]] int render_vector(int vector, const gemm_copy_facts& f, dtype t);

// Kernel parameters: the tensors, the split-K partials, every size symbol, split_k. The skinny
// kernels, and the SIMT ones without runtime split-K, take the partials when their configuration
// splits K (statically) and never split_k.
void plan_gemm_params(gemm_plan& plan);

// Binds the tensors in `kernel` and works out everything the writers share.
[[nodiscard]] gemm_plan make_gemm_plan(rocm_template_kernel& kernel, const template_context& ctx,
                                       gemm_plan_config config, const gemm_options& options, gemm_view v);

// ---- the launch description (codegen/launch.hpp): one source of truth for the entry's launch
// lines and the autotuner's module-API launches ----------------------------------------------------

// The kernels' parameters (plan.params): X, W, Bias, Residual, Y, the split-K partials, the sizes,
// split_k.
[[nodiscard]] std::vector<launch_param> gemm_launch_params(const rocm_template_kernel& kernel, const gemm_plan& plan);

// What the vectorised instantiation needs of one operand: its pointer aligned to the vector, its
// offset and its strides other than the contiguous one multiples of the vector width. Statically
// true conditions are left out.
void add_vector_requirements(std::vector<launch_requirement>& req, const rocm_template_kernel& kernel,
                             const std::string& name, const gemm_operand& op, const gemm_copy_facts& f, int vec,
                             bool is_x);

// Bytes of one split-K slice of fp32 partials: batch * M * N floats.
[[nodiscard]] sym_expr split_k_slice_bytes(const gemm_view& v);

// The split-K reduction launch (split_k above 1 only: at run time when the kernels take split_k):
// sums the fp32 partials of every slice and applies the epilogue, one thread per output element
// (grid-stride beyond 65536 blocks). Every path's entry shares it.
[[nodiscard]] kernel_launch split_k_reduce_launch(const gemm_plan& plan, std::vector<launch_param> params);

// The operands in prelude order, with the names of their fields.
[[nodiscard]] std::vector<std::pair<std::string, const gemm_operand*>> prelude_operands(const gemm_view& v);

// Axis names of an operand's rows and columns in gemm_problem: x (m, k), w (k, n), others (m, n).
[[nodiscard]] std::pair<std::string, std::string> operand_axes(const std::string& n);

// gemm_dtype and the specialisations in use, gemm_vector, the operand types, the activation.
void write_operand_types(indented_buffer& src, const gemm_view& v, activation act);

// struct gemm_problem and make_problem(size symbols...).
void write_problem_struct(indented_buffer& src, const gemm_view& v, const std::vector<std::string>& symbols);

// struct gemm_pointers and the fused epilogue store_output() (not with `with_store_output` false:
// the Hopper path has its own epilogue).
void write_pointers_and_epilogue(indented_buffer& src, const gemm_view& v, const gemm_options& options,
                                 bool with_store_output = true);

// The first lines of the translation unit: comments, the operand types, the problem struct, the
// fused chain's device code, and the pointers with store_output() (`store_output`: the path stores
// through it; the Hopper path has its own epilogue and needs it only for split-K's reduction).
void write_source_head(indented_buffer& src, const gemm_plan& plan, bool store_output);

void write_split_k_reduce_body(indented_buffer& src, const gemm_plan& plan);

void write_launcher(indented_buffer& src);

void write_split_k_reduce_kernel(indented_buffer& src, const gemm_plan& plan, const std::string& suffix);

// How the entry's prologue treats split_k: a compile-time constant the kernels use (SIMT, matrix
// cores without runtime split-K), static slices the runtime argument must equal (skinny), or
// nothing (Hopper).
enum class entry_split_k : std::uint8_t { constant, static_slices, none };

void write_entry_prologue(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                          const launch_description& d, entry_split_k split);

void write_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan, const launch_description& d,
                 entry_split_k split);

void write_nvidia_only_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                             const launch_description& d, std::string_view path, entry_split_k split);

// ---- the block-tiled SIMT and matrix-core paths (templates/gemm/device_code.hpp) -----------------

// What the block-tiled kernels' launch and source need of their configuration.
struct gemm_block_tile {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int group_m = 0;
  int stages = 0;
  int threads = 0;
  int shared_bytes = 0;
  int min_blocks = 1;                                  // __launch_bounds__'s minimum resident blocks on NVIDIA
  bool matrix_cores = false;                           // mma.sync / MFMA (64-thread waves on AMD, static LDS)
  int amd_threads = 0;                                 // threads per block on AMD (matrix cores)
  std::vector<std::pair<std::string, int>> constants;  // the path's own tile constants (warp or thread tile)
  bool simt_prefetch = false;
  const std::string* main_loop = nullptr;  // the path's main loop text (simt/ or mma/device_code.hpp)
};

// The tile constants (block, warp or thread tile, group, stages, the operands' copy facts).
void write_tile_constants(indented_buffer& src, const gemm_plan& plan, const gemm_block_tile& t);

// The shared device code and the path's main loop (SIMT or matrix cores).
void write_device_code(indented_buffer& src, const gemm_block_tile& t);

// gemm_kernel_body<VecA, VecB>() (and the split-K reduction's body).
void write_kernels(indented_buffer& src, const gemm_plan& plan, const gemm_block_tile& t);

// The __global__ kernels of the launch description's variants (and the split-K reduction).
void write_global_kernels(indented_buffer& src, const gemm_plan& plan, const launch_description& d);

// The launches of the block-tiled entry: the main kernel (the vectorised instantiation when its
// requirements hold, else the scalar one where one is rendered) and, with split_k above 1 (the
// runtime argument, or a SIMT configuration's static K slices), the reduction of the fp32
// partials; the workspace holds the partials.
[[nodiscard]] launch_description block_tiled_launch_description(const rocm_template_kernel& kernel,
                                                                const gemm_plan& plan, const gemm_block_tile& t);

// The block-tiled translation unit: head, tile constants, device code, kernels, launcher, entry.
void render_block_tiled(rendered_source& out, rocm_template_kernel& kernel, const gemm_plan& plan,
                        const gemm_block_tile& t, const launch_description& d);

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/render-inl.hpp>
#endif
