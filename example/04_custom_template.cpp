// SPDX-License-Identifier: MIT
// 04_custom_template: write your own kernel template. A policy type tells rocmtpl how to render a
// kernel and which parameters its entry point has (its signature rule); make_template binds it to
// a problem given as buffer types, and the runtime compiles it, loads it as a typed kernel and runs
// it like the GEMM: the call takes (const float* X, const float* Bias, float* Y, int64_t R, stream),
// checked at compile time.
//
// The kernel here: Y[i, j] = relu(X[i, j] + bias[j]) over a 2-D tensor with any strides, rows
// symbolic. Its configuration (threads per block, elements per thread) is what a tuner would search.
#include <rocmtpl/runtime.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace rocmtpl;

// The tunables: a plain value, comparable and copyable.
struct bias_relu_config {
  int block_threads = 256;
  int items_per_thread = 4;
  friend bool operator==(const bias_relu_config&, const bias_relu_config&) = default;
};

// (field, value) pairs, found by argument-dependent lookup: reports and the tuning database show them.
std::vector<std::pair<std::string, std::string>> describe(const bias_relu_config& c) {
  return {{"block_threads", std::to_string(c.block_threads)}, {"items_per_thread", std::to_string(c.items_per_thread)}};
}

// The policy: the members the kernel_template concept asks for.
class bias_relu_policy {
 public:
  using policy_concept = kernel_template_tag;  // opt in
  using config_type = bias_relu_config;
  // Optional members are declared, never guessed: with `.reference = true` the policy must have
  // `render_reference(kernel, context) const` (a simple kernel the autotuner verifies every
  // candidate against), and a render_reference without the declaration does not compile either.
  // Here: no reference kernel, no runtime arguments, one search space for every problem, and a
  // signature rule for the typed route (typed_signature below).
  static constexpr kernel_capabilities capabilities{
      .reference = false, .runtime_args = false, .problem_configs = false, .typed_signature = true};

  static constexpr std::string_view name() { return "bias_relu"; }

  // The typed route's rule: the parameters' names, dtypes and ranks, from which make_template derives
  // the entry point's signature at compile time (a buffer named otherwise, or of another dtype or
  // rank, does not compile).
  static constexpr signature_rule typed_signature(std::size_t inputs) noexcept {
    signature_rule r;
    if (inputs != 2) return r.refuse("bias_relu takes X and Bias");
    r.inputs[0] = {.name = "X", .dtypes = dtype_set::of({dtype::f32}), .min_rank = 2, .max_rank = 2};
    r.inputs[1] = {.name = "Bias", .dtypes = dtype_set::of({dtype::f32}), .min_rank = 1, .max_rank = 1};
    r.output = {.name = "Y", .dtypes = dtype_set::of({dtype::f32}), .min_rank = 2, .max_rank = 2};
    return r;
  }

  // The search space.
  [[nodiscard]] std::vector<bias_relu_config> configs() const { return {{256, 4}, {128, 8}, {512, 1}}; }

  // One complete HIP translation unit. The inputs are X [rows, cols] and bias [cols].
  [[nodiscard]] rendered_source render(rocm_template_kernel& kernel, const template_context& ctx,
                                       const bias_relu_config& c) const {
    const buffer* x = ctx.input(0);
    const buffer* bias = ctx.input(1);
    const buffer& y = ctx.output_node();
    if (x == nullptr || bias == nullptr || x->get_layout().rank() != 2 || bias->get_layout().rank() != 1 ||
        x->type() != dtype::f32 || bias->type() != dtype::f32 || y.type() != dtype::f32) {
      throw invalid_argument_error("bias_relu: needs float32 X [rows, cols], bias [cols] and Y [rows, cols]");
    }
    // def_kernel binds the buffers to parameter names (the entry point's signature); the symbolic
    // sizes of the layouts become its int64_t size arguments.
    (void)kernel.def_kernel({x, bias}, {&y}, "X, Bias, Y");
    std::string params = "const float* __restrict__ X, const float* __restrict__ Bias, float* __restrict__ Y";
    std::string args = "X, Bias, Y";
    for (const auto& s : kernel.args().size_params()) {  // u_<symbol>: user names are prefixed
      params += ", int64_t " + s;
      args += ", " + s;
    }
    // Sizes, strides and offsets as C++ expressions: constants where static, symbols where not.
    auto constant = [](const std::string& name, const std::string& expr) {
      return "    const int64_t " + name + " = " + expr + ";\n";
    };
    const std::string problem =
        constant("rows", kernel.size(x, 0)) + constant("cols", kernel.size(x, 1)) +
        constant("x_stride_r", kernel.stride(x, 0)) + constant("x_stride_c", kernel.stride(x, 1)) +
        constant("x_offset", kernel.offset(x)) + constant("b_stride", kernel.stride(bias, 0)) +
        constant("b_offset", kernel.offset(bias)) + constant("y_stride_r", kernel.stride(&y, 0)) +
        constant("y_stride_c", kernel.stride(&y, 1)) + constant("y_offset", kernel.offset(&y));

    // The translation unit is parts: start_source() fills the includes (the portability header: HIP
    // on AMD, CUDA on NVIDIA), the globals (PT_EXPORT, status codes) and the entry's name and
    // signature; the template writes the device code and the entry's body. The library declares the
    // entry and its exported twins (NAME_packed, NAME_signature) from the signature.
    rendered_source out = kernel.start_source(ctx);
    indented_buffer src;
    src.writeline("namespace {");
    src.writeline("constexpr int block_threads = " + std::to_string(c.block_threads) + ";");
    src.writeline("constexpr int items_per_thread = " + std::to_string(c.items_per_thread) + ";");
    src.writeline("__global__ void __launch_bounds__(block_threads) bias_relu_kernel(" + params + ") {");
    src.write_verbatim(problem);
    src.write_verbatim(
        R"(    const int64_t first = (static_cast<int64_t>(blockIdx.x) * block_threads + threadIdx.x) * items_per_thread;
    for (int item = 0; item < items_per_thread; ++item) {
        const int64_t idx = first + item;
        if (idx >= rows * cols) return;
        const int64_t r = idx / cols, c = idx % cols;
        const float v = X[x_offset + r * x_stride_r + c * x_stride_c] + Bias[b_offset + c * b_stride];
        Y[y_offset + r * y_stride_r + c * y_stride_c] = v > 0.0f ? v : 0.0f;
    }
}
}  // namespace
)");
    // The entry point follows the library's C ABI: answer the workspace query, refuse null
    // tensors with a status code (nothing is ever thrown across it), launch on the stream.
    indented_buffer entry;
    {
      auto body = entry.indent();
      auto& src = entry;
      src.writeline("if (workspace_size) { *workspace_size = 0; return ROCMTPL_STATUS_OK; }");
      src.writeline("(void)workspace;");
      for (const buffer* node : {x, bias, &y}) src.write_lines(kernel.check_not_null(node));
      src.writeline("const int64_t total = (" + kernel.size(x, 0) + ") * (" + kernel.size(x, 1) + ");");
      src.writeline("if (total == 0) return ROCMTPL_STATUS_OK;");
      src.writeline("const int64_t per_block = static_cast<int64_t>(block_threads) * items_per_thread;");
      src.writeline(
          "bias_relu_kernel<<<dim3(static_cast<unsigned>((total + per_block - 1) / per_block)), "
          "dim3(block_threads), 0, stream>>>(" +
          args + ");");
      src.writeline("return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
    }
    out.device_code = std::move(src).str();
    out.entry_body = std::move(entry).str();
    return out;
  }
};

// Say it: the library's check, with a message per missing member.
static_assert(kernel_template<bias_relu_policy>);

// What the compiler says when a member is missing. rocm_template requires kernel_template<Policy>;
// without render(), g++ 12 names the requirement and the expression that failed:
//
//   error: template constraint failure for 'template<class Policy> requires kernel_template<Policy>
//     class rocmtpl::rocm_template'
//   rocmtpl/codegen/concepts.hpp:   required for the satisfaction of 'has_render<P>'
//   rocmtpl/codegen/concepts.hpp: note: the required expression 'p.render(k, ctx, c)' is invalid
//
// A misspelt optional member that is declared (`render_referense` with `.reference = true`) fails
// the same way at 'declared_reference_has_member_render_reference<P>'; an undeclared one at
// 'member_render_reference_is_declared<P>'. For a sentence per requirement, ask for the check
// itself: `static_assert(rocmtpl::check_kernel_template<bias_relu_policy>());` says, for example,
// "policy has no member render(kernel, context, config); add it" or "capabilities declare
// reference but the policy has no member render_reference(kernel, context) const; add it or fix
// its spelling".
static_assert(check_kernel_template<bias_relu_policy>());

}  // namespace

// X [R, 96] with R symbolic, Bias [96], Y [R, 96]; the test problem has R = 37 rows.
constexpr std::int64_t rows = 37;
constexpr std::int64_t cols = 96;
using x_buffer = static_buffer<"X", row_major_layout<f32_t, dims<sym<"R">, ext<cols>>>>;
using bias_buffer = static_buffer<"Bias", row_major_layout<f32_t, dims<ext<cols>>>>;
using y_buffer = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"R">, ext<cols>>>>;

int main() {
  using namespace rocmtpl::runtime;
  try {
    const auto tpl = make_template(bias_relu_policy{}, inputs<x_buffer, bias_buffer>{}, outputs<y_buffer>{});
    const auto caller = tpl.generate(tpl.policy().configs().front(), hints<"R">{rows});
    std::cout << caller.untyped().to_string() << '\n' << caller.declaration() << '\n';

    // Compile for this machine's GPU, or for gfx90a without one; load the entry point through its
    // exact function type; query the workspace.
    const auto& gpu = gpu_runtime::instance();
    const compile_options options =
        gpu.available() ? compile_options_for(gpu.properties(gpu.current_device())) : amd_compile_options({"gfx90a"});
    code_cache cache;
    const auto kernel = compile(caller, cache, compiler::find(options.platform), options);
    std::cout << "entry point " << kernel.name() << ", workspace " << kernel.workspace_size(rows) << " bytes\n";
    // A null tensor comes back as a status code, turned into an exception on the host side.
    try {
      kernel(nullptr, nullptr, nullptr, rows, nullptr);
      std::cerr << "04_custom_template: null tensors were not refused\n";
      return 1;
    } catch (const kernel_status_error& e) {
      std::cout << "null tensors refused: " << e.what() << '\n';
    }

    if (!gpu.available()) {
      std::cout << "running needs a GPU: " << gpu.status() << '\n';
      return 0;
    }

    std::vector<float> x(rows * cols);
    std::vector<float> bias(cols);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.5F;
    for (std::size_t j = 0; j < bias.size(); ++j) bias[j] = static_cast<float>(static_cast<int>(j % 3) - 1);
    device_buffer dx(x.size() * sizeof(float));
    device_buffer db(bias.size() * sizeof(float));
    device_buffer dy(x.size() * sizeof(float));
    dx.copy_from_host(x.data());
    db.copy_from_host(bias.data());
    const stream s;
    kernel(dx.as<const float>(), db.as<const float>(), dy.as<float>(), rows, s.get());
    s.synchronize();
    std::vector<float> y(x.size());
    dy.copy_to_host(y.data());
    std::size_t wrong = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        const float expected = std::max(x[i * cols + j] + bias[j], 0.0F);
        if (y[i * cols + j] != expected) ++wrong;
      }
    }
    if (wrong != 0) {
      std::cerr << "04_custom_template: " << wrong << " of " << y.size() << " elements differ from the host\n";
      return 1;
    }
    std::cout << "all " << y.size() << " elements match the host\n";
  } catch (const compiler_not_found_error& e) {
    std::cout << "compiling needs hipcc or nvcc: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "04_custom_template: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
