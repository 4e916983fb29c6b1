// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Rendering of the GEMM's translation unit for one configuration, in named steps: the
/// checks, a plan (vector widths, parameter lists), then the source head, the problem prelude, the
/// tile constants, the device code of templates/gemm/device_code.hpp, the kernels, the launcher
/// and the C entry point.

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

// Whether a configuration's split_k above 1 splits K without gemm_options::runtime_split_k (its own
// workspace and reduction): the skinny and SIMT paths; the mma and Hopper ones need the option.
[[nodiscard]] bool gemm_splits_k_statically(const gemm_config& c) noexcept;

// What one rendering needs beyond the configuration: the problem, the entry point's signature and
// size symbols, the copy facts and vector widths of X and W, and the kernels' parameter lists.
struct gemm_plan {
  gemm_view v;
  gemm_config config;
  gemm_options options;
  std::string signature;
  std::vector<std::string> symbols;
  bool mc = false;         // matrix cores
  bool split = false;      // runtime split-K (the entry takes split_k)
  bool partials = false;   // the kernels take the fp32 partials (runtime split-K, or static skinny K slices)
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

// Refuses a (valid) configuration this problem cannot use.
void check_gemm_renderable(const gemm_config& config, const gemm_view& v, const gemm_options& options);

// Vector width of an operand: the config's, capped at 16 bytes and at what the static layout allows.
[[nodiscard]] int render_vector(const gemm_config& config, const gemm_copy_facts& f, dtype t);

// Kernel parameters: the tensors, the split-K partials, every size symbol, split_k. The skinny
// kernels, and the SIMT ones without runtime split-K, take the partials when their configuration
// splits K (statically) and never split_k.
void plan_gemm_params(gemm_plan& plan);

// Binds the tensors in `kernel` and works out everything the writers below share.
[[nodiscard]] gemm_plan make_gemm_plan(rocm_template_kernel& kernel, const template_context& ctx,
                                       const gemm_config& config, const gemm_options& options, gemm_view v);

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

// Bytes of one split-K slice of fp32 partials: batch * M * N floats. The launch description's
// workspace (gemm_launch_description(), times split_k) and gemm_workspace_bytes() both use it.
[[nodiscard]] sym_expr split_k_slice_bytes(const gemm_view& v);

// The split-K reduction launch (split_k above 1 only: at run time when the kernels take split_k):
// sums the fp32 partials of every slice and applies the epilogue, one thread per output element
// (grid-stride beyond 65536 blocks). The mma, SIMT, Hopper and skinny entries share it.
[[nodiscard]] kernel_launch split_k_reduce_launch(const gemm_plan& plan, std::vector<launch_param> params);

// The launches of the mma/SIMT entry: the main kernel (the vectorised instantiation when its
// requirements hold, else the scalar one where one is rendered) and, with split_k above 1 (the
// runtime argument, or a SIMT configuration's static K slices), the reduction of the fp32
// partials; the workspace holds the partials.
[[nodiscard]] launch_description gemm_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan);

// What the Hopper path needs of a problem at run time (statically true conditions left out): a
// batch of one, or one that folds into M (wgmma_fold_conditions()), sizes that fit int32 (the
// folded rows batch * M too), N and the row pitches of X, W and Y multiples of 8 elements (TMA
// pitches of 16 bytes, 16-byte stores; a pitch never stepped is free), 16-byte aligned X, W, Y.
[[nodiscard]] std::vector<launch_requirement> sm90_requirements(const rocm_template_kernel& kernel, const gemm_view& v);

// The Hopper launch: tensor maps of X and W, the tensors, (the split-K partials,) the sizes, (split_k);
// a persistent grid of at most one block per SM over the (K slice, tile) units. With runtime split-K
// the workspace holds split_k slices of fp32 partials and, above one slice, the split-K reduction
// follows (as on the mma path).
[[nodiscard]] launch_description sm90_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan);

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

// The summary comments, the anonymous namespace and the problem prelude (the includes and globals
// are parts of their own: render_gemm()).
void write_source_head(indented_buffer& src, const gemm_plan& plan);

// Blocks per SM the register budget must allow on NVIDIA. Matrix cores: 1, so ptxas uses what the
// accumulators need (with the thread count alone it capped small tiles at 72 registers and
// spilled; CUDA 13.0, sm_90). SIMT: 2 when the estimate leaves room (ptxas then keeps 128x128 8x8
// tiles at 128 registers, two blocks per SM), else 1. AMD: the thread count only (a minimum there
// halves the VGPR budget of one-wave blocks).
[[nodiscard]] int gemm_min_blocks(const gemm_config& c);

// SIMT on NVIDIA: whether the main loop reads step kk + 1's operands while step kk computes (a
// second operand set of thread_m + thread_n registers): on tiles of 128 accumulators, and where the
// launch bounds leave room for it beside the estimate. 128x128 tiles of 8 x 8 at two blocks per SM
// spilled with it; 128x64 tiles of 8 x 16 and 16 x 8 (64 threads, 255 registers) spilled without
// it (16 and 92 bytes) and not with it (CUDA 13.0, sm_90a).
[[nodiscard]] bool gemm_simt_prefetch(const gemm_config& c);

// Tile constants and layout flags the device code reads.
void write_tile_constants(indented_buffer& src, const gemm_plan& plan);

// The shared device code and the main loop of the configuration's path.
void write_device_code(indented_buffer& src, const gemm_plan& plan);

// Split-K: the body of the kernel that sums the fp32 partials of every slice, in slice order
// (deterministic), and applies the epilogue (store_output()); the mma, SIMT, Hopper and skinny
// paths share it (the slice count: the runtime split_k, or a skinny configuration's constant).
void write_split_k_reduce_body(indented_buffer& src, const gemm_plan& plan);

// gemm_kernel_body<VecA, VecB> and, with split-K, the body of the kernel that reduces the
// partials (device functions; the extern "C" kernels that call them come after the namespace).
void write_kernels(indented_buffer& src, const gemm_plan& plan);

// The host helpers of the entry and the namespace's end.
void write_launcher(indented_buffer& src);

// The workspace the entry point's query answers for one configuration, as an expression of the size
// symbols: split_k slices of fp32 partials (split_k_slice_bytes(), the slice the launch
// description's workspace counts) when the configuration splits K, at run time (the mma, SIMT and
// Hopper paths with runtime split-K) or statically (a skinny or SIMT configuration without it);
// every other configuration needs none. A test compares this with the compiled query
// (test/runtime/caller_runtime_test.cpp).
[[nodiscard]] sym_expr gemm_workspace_bytes(const gemm_view& v, const gemm_config& config, const gemm_options& options);

// The split-K reduction as an `extern "C" __global__` kernel (the description's last launch, whose
// symbol suffix is `suffix`).
void write_split_k_reduce_kernel(indented_buffer& src, const gemm_plan& plan, const std::string& suffix);

// The described kernels as `extern "C" __global__` functions with unmangled names (looked up by
// name in a code object), each calling its body: variant 0 holds the vectorised instantiation when
// there is one, a later variant the scalar one; the split-K reduction follows the main kernel.
void write_global_kernels(indented_buffer& src, const gemm_plan& plan, const launch_description& d);

// Every entry point's first part (the mma/SIMT, Hopper and skinny entries): the size checks, the
// split_k check (without runtime split-K, split_k is the constant 1 on the mma/SIMT path; a skinny entry taking split_k
// refuses any but its configuration's static K slices), the problem and its element count (checked: refused when it
// does not fit, before anything sizes a workspace or a grid), the workspace query, the null checks and the early return
// of an empty problem.
void write_entry_prologue(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                          const launch_description& d);

// The entry point's body (its declaration, and the device-only guard, are rendered from the
// parts): the checks, then the launches of the description.
void write_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                 const launch_description& d);

// Hopper path: the tile constants, the epilogue's constants and the Hopper device and host code.
void write_sm90_code(indented_buffer& src, const gemm_plan& plan);

// The Hopper kernel, `extern "C"` with an unmangled name (parameters: the two tensor maps, then
// plan.params: the tensors, the split-K partials, the sizes, split_k); a trap on NVIDIA targets
// other than sm_90a (whose devices the entry refuses), absent from AMD builds. With runtime
// split-K the reduction kernel follows.
void write_sm90_kernel(indented_buffer& src, const gemm_plan& plan, const launch_description& d);

// The body of an entry point whose path exists on NVIDIA only (its declaration comes from the
// parts): the prologue (write_entry_prologue; the workspace query is answered on every platform),
// then the launches of the description (their requirements refuse what the path cannot serve); an
// AMD build refuses every call. `path` names the path in the refusal's comment.
void write_nvidia_only_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                             const launch_description& d, std::string_view path);

// ---- the skinny paths (gemm_math::skinny_m / skinny_n; templates/gemm/skinny_device_code.hpp) -----

// The large operand of a skinny configuration: W for skinny_m, X for skinny_n; its name, operand,
// copy facts, vector width (capped at the configuration's) and kernel (dot: contiguous along K or
// along neither axis; else streaming).
struct skinny_large {
  std::string name;
  const gemm_operand* op = nullptr;
  gemm_copy_facts facts;
  bool is_x = false;
  int vec = 1;
  bool dot = true;
  bool mma = false;  // the matrix-core kernel (is_skinny_mma())
};

[[nodiscard]] skinny_large skinny_large_of(const gemm_plan& plan);

// The small operand of a matrix-core skinny configuration (X for skinny_m, W for skinny_n): loaded
// block_k elements at a time in the vectorised kernel when contiguous along K and (statically or at
// run time) aligned to them, else element by element.
struct skinny_small {
  std::string name;
  const gemm_operand* op = nullptr;
  gemm_copy_facts facts;
  bool is_x = true;
  int vec = 1;
};

[[nodiscard]] skinny_small skinny_small_of(const gemm_plan& plan);

// The launches: the main kernel (vectorised when the large operand's requirements hold, else
// scalar; parameters plan.params: the tensors, the partials when K is split, the sizes), then with
// split_k above 1 the shared split-K reduction; a static workspace of split_k slices.
[[nodiscard]] launch_description skinny_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan);

// Constants, device code (the shared split-K reduction's body when K is split), the launcher
// helpers and the described kernels of a skinny configuration.
void write_skinny_code(indented_buffer& src, const gemm_plan& plan, const launch_description& d);

// The skinny entry point's body: the prologue, then the launches; an AMD build of a matrix-core
// configuration (NVIDIA's mma.sync) answers the workspace query and refuses every launch.
void write_skinny_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                        const launch_description& d);

// The launch description of a plan's path.
[[nodiscard]] launch_description describe_plan_launch(const rocm_template_kernel& kernel, const gemm_plan& plan);

/// @brief The launch description of a configuration's entry (see codegen/launch.hpp).
[[nodiscard]] launch_description describe_gemm_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                      const gemm_config& config, const gemm_options& options);

// Refuses a fused epilogue the configuration's path cannot apply: the Hopper path stages Y in its
// 16-bit type before the chain, so the chain must start from that type (the GEMM's own output dtype).
void check_gemm_fusable(const gemm_config& config, const template_context& ctx, const fused_epilogue& e);

// The complete translation unit of one configuration, as parts (see gemm_policy::render()); with
// `fused`, the kernel that applies that epilogue chain after its own (gemm_policy::render_epilogue()).
[[nodiscard]] rendered_source render_gemm(rocm_template_kernel& kernel, const template_context& ctx,
                                          const gemm_config& config, const gemm_options& options,
                                          const fused_epilogue* fused = nullptr);

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/render-inl.hpp>
#endif
