// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Modules: a small graph of chosen template nodes emitted as one HIP translation unit with
/// one exported C entry point that runs the nodes in order on a stream (pure layer: the source;
/// runtime/module_loader.hpp compiles, caches, saves and loads it).
///
/// The entry point has the kernels' ABI shape (ARCHITECTURE.md):
/// @code{.unparsed}
/// extern "C" PT_EXPORT int <module>(const T* input..., T* output..., int64_t size..., size_t* workspace_size,
///                                   uint8_t* workspace, hipStream_t stream);
/// @endcode
/// Intermediate buffers live in the workspace (a slot is reused once the buffer in it is dead),
/// followed by a scratch region the kernels' own workspaces are allocated from; the workspace query
/// returns the total. Kernels keep internal linkage: each is a `static` function in its own
/// namespace, so only the module's entry point is exported. Under `#ifdef ROCMTPL_STANDALONE_RUNNER`
/// the source also has a `main()` (the reference's test-runner mode) that fills the inputs with
/// seeded random values, runs the module and prints the time per run.
///
/// The kernels share one translation unit: each kernel's file-scope `#include`s move to the top of
/// the module and the rest goes into the kernel's namespace, so a template's source must not
/// `#define` a macro that another template defines differently.
///
/// @code{.cpp}
/// rocmtpl::module_graph g("mlp");
/// g.add_input(x).add_input(w1).add_input(b1).add_input(w2);
/// g.add_node("h", gemm1.generate(cfg, hints).output_node());
/// g.add_node("a", bias_gelu.generate({}, hints).output_node());
/// g.add_node("y", gemm2.generate(cfg, hints).output_node());
/// g.add_output("y");
/// rocmtpl::module_source m = rocmtpl::emit_module(g);   // m.source: one HIP translation unit
/// @endcode

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/rocm_cpp_scheduling.hpp>
#include <rocmtpl/rocm_kernel.hpp>
#include <rocmtpl/rocm_template_buffer.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/version.hpp>

namespace rocmtpl {

/// @brief A graph of chosen template nodes with named inputs and outputs; the nodes run in the
/// order they were added (each may use graph inputs and the outputs of earlier nodes).
class module_graph {
 public:
  /// @param name the module's entry point, a C identifier (not `main`, not starting with `rocmtpl_`)
  /// @throws invalid_argument_error for a bad name
  explicit module_graph(std::string name) : name_(std::move(name)) {
    if (!is_identifier(name_) || name_ == "main" || name_.starts_with("rocmtpl_")) {
      throw invalid_argument_error("rocmtpl: module_graph: module name '" + name_ +
                                   "' must be a C identifier other than 'main' that does not start with 'rocmtpl_'");
    }
  }

  /// @brief Adds a graph input; inputs are the entry point's first parameters, in this order.
  /// @throws invalid_argument_error for a reserved or repeated name
  module_graph& add_input(buffer input) {
    check_new_name(input.name(), "input");
    inputs_.push_back(std::move(input));
    return *this;
  }

  /// @brief Adds a node computing the graph buffer `name`.
  /// @param name graph name of the node's output
  /// @param node the chosen template (e.g. `caller.output_node()`)
  /// @param input_names graph names of the template's inputs, in the order of node.inputs(); empty:
  /// the template's input buffers are named as in the graph
  /// @throws invalid_argument_error for a reserved or repeated name, a wrong number of input names,
  /// an unknown input, or an input whose layout differs from the graph buffer's
  module_graph& add_node(std::string name, rocm_template_buffer node, std::vector<std::string> input_names = {}) {
    check_new_name(name, "node output");
    scheduler_node sn{name, std::move(node), {}};
    const auto& template_inputs = sn.node.inputs();
    if (!input_names.empty() && input_names.size() != template_inputs.size()) {
      throw invalid_argument_error("rocmtpl: module_graph: node '" + name + "' has " +
                                   std::to_string(template_inputs.size()) + " inputs but " +
                                   std::to_string(input_names.size()) + " input names were given");
    }
    for (std::size_t i = 0; i < template_inputs.size(); ++i) {
      const auto& tb = template_inputs[i];
      const std::string graph = input_names.empty() ? tb.name() : input_names[i];
      const auto found = find(graph);
      if (!found) {
        throw invalid_argument_error("rocmtpl: module_graph: node '" + name + "' reads '" + graph +
                                     "', which is neither a graph input nor the output of an earlier node");
      }
      if (!(found->get_layout() == tb.get_layout())) {
        throw invalid_argument_error("rocmtpl: module_graph: node '" + name + "' reads '" + graph + "' as " +
                                     tb.get_layout().to_string() + " but the graph buffer is " +
                                     found->get_layout().to_string());
      }
      if (graph != tb.name()) sn.input_names.emplace(tb.name(), graph);
    }
    nodes_.push_back(std::move(sn));
    return *this;
  }

  /// @brief Marks a node's output as a module output; outputs follow the inputs in the entry
  /// point, in this order.
  /// @throws invalid_argument_error when `name` is not a node output or is already an output
  module_graph& add_output(const std::string& name) {
    const bool is_node =
        std::any_of(nodes_.begin(), nodes_.end(), [&](const scheduler_node& n) { return n.name == name; });
    if (!is_node) {
      throw invalid_argument_error("rocmtpl: module_graph: output '" + name + "' is not the output of a node");
    }
    if (std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end()) {
      throw invalid_argument_error("rocmtpl: module_graph: '" + name + "' is already an output");
    }
    outputs_.push_back(name);
    return *this;
  }

  /// @brief The module (and entry point) name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// @brief Graph inputs, in entry-point order.
  [[nodiscard]] const std::vector<buffer>& inputs() const noexcept { return inputs_; }
  /// @brief Nodes, in execution order.
  [[nodiscard]] const std::vector<scheduler_node>& nodes() const noexcept { return nodes_; }
  /// @brief Graph names of the outputs, in entry-point order.
  [[nodiscard]] const std::vector<std::string>& outputs() const noexcept { return outputs_; }
  /// @brief True when `name` is a module output.
  [[nodiscard]] bool is_output(std::string_view name) const {
    return std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end();
  }

  /// @brief The graph buffer `name` (an input, or a node output under its graph name), if any.
  [[nodiscard]] std::optional<buffer> find(std::string_view name) const {
    for (const auto& b : inputs_) {
      if (b.name() == name) return b;
    }
    for (const auto& n : nodes_) {
      if (n.name == name) return buffer(n.name, n.node.get_layout());
    }
    return std::nullopt;
  }

  /// @brief True for names the generated entry point reserves: its parameters `workspace_size`,
  /// `workspace` and `stream`, and everything starting with `rocmtpl_`.
  [[nodiscard]] static bool is_reserved(std::string_view name) noexcept {
    return name == "workspace_size" || name == "workspace" || name == "stream" || name.starts_with("rocmtpl_");
  }

 private:
  void check_new_name(const std::string& name, const char* what) const {
    if (!is_identifier(name) || is_reserved(name) || name == name_) {
      throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name +
                                   "' is reserved or not a C identifier (reserved: workspace_size, workspace, stream, "
                                   "rocmtpl_*, the module name)");
    }
    if (find(name)) {
      throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name +
                                   "' is already used in module '" + name_ + "'");
    }
  }

  std::string name_;
  std::vector<buffer> inputs_;
  std::vector<scheduler_node> nodes_;
  std::vector<std::string> outputs_;
};

/// @brief Settings of emit_module().
struct module_options {
  /// @brief Offer each elementwise node to the template node before it as an epilogue (when that
  /// node's output feeds only the elementwise node and is no module output); a refusal keeps two
  /// kernels and is noted in the source.
  bool fuse_epilogues = true;
  /// @brief Emit the `main()` of the standalone runner under `#ifdef ROCMTPL_STANDALONE_RUNNER`.
  bool standalone_runner = true;
  /// @brief Alignment (bytes, a power of two) of every region of the workspace.
  std::size_t workspace_alignment = 256;
  /// @brief Default values of the size symbols in the runner (`NAME=value` arguments override them);
  /// a symbol without a default must be given on the runner's command line.
  size_hints runner_sizes{};
  /// @brief Default number of timed runs of the runner (`--iters=N` overrides it).
  int runner_iterations = 20;
};

/// @brief An emitted module: the source and the description of its entry point.
struct module_source {
  std::string name;                        ///< module and entry-point name
  std::string source;                      ///< the translation unit
  std::string signature;                   ///< the entry point's declaration
  std::vector<buffer> inputs;              ///< tensor parameters read, in order
  std::vector<buffer> outputs;             ///< tensor parameters written, in order
  std::vector<std::string> size_args;      ///< `int64_t` size parameters, in order
  std::vector<kernel_definition> kernels;  ///< the kernels, deduplicated
  std::vector<kernel_call> calls;          ///< the calls, in execution order
  std::vector<std::string> intermediates;  ///< graph buffers that live in the workspace
  std::vector<std::string> notes;          ///< fusion decisions, also written into the source
  std::size_t workspace_alignment = 256;   ///< alignment of the workspace regions

  /// @brief xxh3-64 of the source, 16 hex digits.
  [[nodiscard]] std::string source_hash() const { return detail::hash_hex(source); }
};

namespace detail::module_impl {

// The macros and helpers every generated source has (rocm_template::globals()), once at file scope
// so that each kernel's copy (guarded, or an identical redefinition) adds nothing.
using ::rocmtpl::pt_export_block;

struct split_source {
  std::vector<std::string> includes;  // #include lines outside any #if block
  std::string body;                   // everything else
};

// Takes the #include lines that are outside conditional blocks out of a kernel source: they must
// stay at file scope when the rest is wrapped in a namespace. Includes inside #if blocks stay.
inline split_source split_includes(std::string_view src) {
  split_source out;
  out.body.reserve(src.size());
  int depth = 0;
  std::size_t start = 0;
  while (start < src.size()) {
    const auto nl = src.find('\n', start);
    const auto line = src.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? src.size() : nl + 1;
    auto text = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    if (text.starts_with("#")) {
      auto directive = text.substr(1);
      directive = directive.substr(std::min(directive.size(), directive.find_first_not_of(" \t")));
      if (directive.starts_with("if")) {
        ++depth;
      } else if (directive.starts_with("endif")) {
        --depth;
      } else if (directive.starts_with("include") && depth == 0) {
        out.includes.emplace_back(text);
        continue;
      }
    }
    out.body.append(line);
    out.body += '\n';
  }
  return out;
}

inline std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ") {
  std::string s;
  for (const auto& p : parts) {
    if (!s.empty()) s += sep;
    s += p;
  }
  return s;
}

// rocmtpl_module_bytes(numel, storage elements, element bytes) for a buffer's layout.
inline std::string bytes_expr(const buffer& b) {
  const auto& l = b.get_layout();
  return "rocmtpl_module_bytes(" + l.numel().to_cpp() + ", " + l.storage_size().to_cpp() + ", " +
         std::to_string(element_size(l.type())) + ")";
}

inline void add_symbols(std::vector<std::string>& symbols, const buffer& b) {
  for (const auto& s : b.get_layout().free_symbols()) {
    if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
  }
}

inline void write_runner(indented_buffer& out, const module_source& m, const module_options& options) {
  const auto& syms = m.size_args;
  out.splice(R"(
      #ifdef ROCMTPL_STANDALONE_RUNNER
      // Standalone runner (the reference's test-runner mode): build this file as an executable with
      // -DROCMTPL_STANDALONE_RUNNER. It fills the inputs with seeded random values in [-1, 1), runs the
      // module and prints the time per run and a checksum of each output.
      #include <cstdio>
      #include <cstdlib>
      #include <cstring>
      #include <random>
      #include <vector>

      namespace rocmtpl_runner {
      #if defined(ROCMTPL_PLATFORM_NVIDIA)
      inline hipError_t event_create(hipEvent_t* e) { return cudaEventCreate(e); }
      inline hipError_t event_record(hipEvent_t e, hipStream_t s) { return cudaEventRecord(e, s); }
      inline hipError_t event_synchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
      inline hipError_t event_elapsed_ms(float* ms, hipEvent_t a, hipEvent_t b) { return cudaEventElapsedTime(ms, a, b); }
      inline hipError_t event_destroy(hipEvent_t e) { return cudaEventDestroy(e); }
      #else
      inline hipError_t event_create(hipEvent_t* e) { return hipEventCreate(e); }
      inline hipError_t event_record(hipEvent_t e, hipStream_t s) { return hipEventRecord(e, s); }
      inline hipError_t event_synchronize(hipEvent_t e) { return hipEventSynchronize(e); }
      inline hipError_t event_elapsed_ms(float* ms, hipEvent_t a, hipEvent_t b) { return hipEventElapsedTime(ms, a, b); }
      inline hipError_t event_destroy(hipEvent_t e) { return hipEventDestroy(e); }
      #endif

      // rocmtpl::dtype values.
      enum : int { f16 = 0, bf16 = 1, f32 = 2, f64 = 3, i8 = 4, u8 = 5, i32 = 6, i64 = 7, boolean = 8 };

      inline bool ok(hipError_t e, const char* what) {
          if (e == hipSuccess) return true;
          std::fprintf(stderr, "rocmtpl runner: %s failed: %s\n", what, hipGetErrorString(e));
          return false;
      }

      // A device tensor filled with uniform values in [-1, 1) (small integers for integer types).
      inline bool make_input(void** device, size_t bytes, int dtype, std::mt19937& rng) {
          *device = nullptr;
          if (bytes == 0) return true;
          std::vector<unsigned char> host(bytes);
          std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
          const size_t esize = dtype == f16 || dtype == bf16 ? 2 : dtype == f32 || dtype == i32 ? 4 : dtype == f64 || dtype == i64 ? 8 : 1;
          for (size_t i = 0; i < bytes / esize; ++i) {
              const float v = uniform(rng);
              unsigned char* p = host.data() + i * esize;
              switch (dtype) {
                  case f16: { const uint16_t b = rocmtpl_dev::float_to_half_bits(v); std::memcpy(p, &b, 2); break; }
                  case bf16: { const uint16_t b = rocmtpl_dev::float_to_bf16_bits(v); std::memcpy(p, &b, 2); break; }
                  case f32: std::memcpy(p, &v, 4); break;
                  case f64: { const double d = v; std::memcpy(p, &d, 8); break; }
                  case i32: { const int32_t n = static_cast<int32_t>(v * 8.0f); std::memcpy(p, &n, 4); break; }
                  case i64: { const int64_t n = static_cast<int64_t>(v * 8.0f); std::memcpy(p, &n, 8); break; }
                  case boolean: *p = v > 0.0f ? 1 : 0; break;
                  default: *p = static_cast<unsigned char>(static_cast<int>((v + 1.0f) * 8.0f)); break;
              }
          }
          return ok(hipMalloc(device, bytes), "hipMalloc") &&
                 ok(hipMemcpy(*device, host.data(), bytes, hipMemcpyHostToDevice), "hipMemcpy");
      }

      inline bool make_output(void** device, size_t bytes) {
          *device = nullptr;
          if (bytes == 0) return true;
          return ok(hipMalloc(device, bytes), "hipMalloc") && ok(hipMemsetAsync(*device, 0, bytes, 0), "hipMemsetAsync");
      }

      // Sum of a floating-point output's storage, as a rough fingerprint of the result.
      inline double checksum(const void* device, size_t bytes, int dtype) {
          if (bytes == 0) return 0.0;
          std::vector<unsigned char> host(bytes);
          if (!ok(hipMemcpy(host.data(), device, bytes, hipMemcpyDeviceToHost), "hipMemcpy")) return 0.0;
          double sum = 0.0;
          for (size_t i = 0; i < bytes;) {
              switch (dtype) {
                  case f16: { uint16_t b; std::memcpy(&b, &host[i], 2); sum += rocmtpl_dev::half_bits_to_float(b); i += 2; break; }
                  case bf16: { uint16_t b; std::memcpy(&b, &host[i], 2); sum += rocmtpl_dev::bf16_bits_to_float(b); i += 2; break; }
                  case f32: { float f; std::memcpy(&f, &host[i], 4); sum += f; i += 4; break; }
                  case f64: { double d; std::memcpy(&d, &host[i], 8); sum += d; i += 8; break; }
                  default: sum += host[i]; i += 1; break;
              }
          }
          return sum;
      }
      }  // namespace rocmtpl_runner
  )",
             true);
  out.writeline("");
  out.writeline("int main(int argc, char** argv) {");
  {
    auto body = out.indent();
    for (const auto& s : syms) {
      const auto it = options.runner_sizes.find(s);
      out.writeline("int64_t " + user_identifier(s) + " = " +
                    (it == options.runner_sizes.end() ? std::string("-1") : std::to_string(it->second)) + ";");
    }
    out.writeline("int rocmtpl_iters = " + std::to_string(options.runner_iterations) + ";");
    std::string usage = "usage: %s";
    for (const auto& s : syms) usage += " [" + s + "=<n>]";
    usage += " [--iters=<n>]\\n";
    out.writeline("for (int rocmtpl_i = 1; rocmtpl_i < argc; ++rocmtpl_i) {");
    {
      auto loop = out.indent();
      out.writeline("const char* rocmtpl_arg = argv[rocmtpl_i];");
      out.writeline("if (std::strcmp(rocmtpl_arg, \"--help\") == 0 || std::strcmp(rocmtpl_arg, \"-h\") == 0) {");
      {
        auto h = out.indent();
        out.writeline("std::printf(\"" + usage + "\", argv[0]);");
        out.writeline("std::printf(\"runs module " + m.name +
                      " on random inputs; sizes:" + (syms.empty() ? std::string(" none") : std::string()) + "\\n\");");
        for (const auto& s : syms)
          out.writeline("std::printf(\"  " + s + " = %lld\\n\", static_cast<long long>(" + user_identifier(s) + "));");
        out.writeline("return 0;");
      }
      out.writeline("}");
      out.writeline("if (std::strncmp(rocmtpl_arg, \"--iters=\", 8) == 0) {");
      {
        auto h = out.indent();
        out.writeline("rocmtpl_iters = std::atoi(rocmtpl_arg + 8);");
        out.writeline("continue;");
      }
      out.writeline("}");
      for (const auto& s : syms) {
        const auto n = std::to_string(s.size() + 1);
        out.writeline("if (std::strncmp(rocmtpl_arg, \"" + s + "=\", " + n + ") == 0) {");
        {
          auto h = out.indent();
          out.writeline(user_identifier(s) + " = std::atoll(rocmtpl_arg + " + n + ");");
          out.writeline("continue;");
        }
        out.writeline("}");
      }
      out.writeline("std::fprintf(stderr, \"rocmtpl runner: unknown argument '%s'; " +
                    usage.substr(0, usage.size() - 2) + "\\n\", rocmtpl_arg, argv[0]);");
      out.writeline("return 2;");
    }
    out.writeline("}");
    for (const auto& s : syms) {
      out.writeline("if (" + user_identifier(s) + " < 0) {");
      {
        auto h = out.indent();
        out.writeline("std::fprintf(stderr, \"rocmtpl runner: give the size " + s + " as " + s + "=<n>\\n\");");
        out.writeline("return 2;");
      }
      out.writeline("}");
    }
    out.writeline("if (rocmtpl_iters < 1) {");
    {
      auto h = out.indent();
      out.writeline("std::fprintf(stderr, \"rocmtpl runner: --iters must be at least 1\\n\");");
      out.writeline("return 2;");
    }
    out.writeline("}");
    out.writeline("std::mt19937 rocmtpl_rng(2024u);");
    std::string call_args;
    std::string query_args;
    auto add = [](std::string& s, const std::string& a) { s += (s.empty() ? "" : ", ") + a; };
    std::size_t index = 0;
    for (const auto* list : {&m.inputs, &m.outputs}) {
      const bool is_input = list == &m.inputs;
      for (const auto& b : *list) {
        const auto i = std::to_string(index++);
        const std::string dev = "rocmtpl_t" + i;
        const std::string bytes = "rocmtpl_t" + i + "_bytes";
        out.writeline("const size_t " + bytes + " = " + bytes_expr(b) + ";  // " + b.name());
        out.writeline("void* " + dev + " = nullptr;");
        if (is_input) {
          out.writeline("if (!rocmtpl_runner::make_input(&" + dev + ", " + bytes + ", " +
                        std::to_string(static_cast<int>(b.type())) + ", rocmtpl_rng)) return 1;");
        } else {
          out.writeline("if (!rocmtpl_runner::make_output(&" + dev + ", " + bytes + ")) return 1;");
        }
        const std::string type = std::string(storage_type(b.type())) + "*";
        add(call_args, "static_cast<" + (is_input ? "const " + type : type) + ">(" + dev + ")");
        add(query_args, "nullptr");
      }
    }
    for (const auto& s : syms) {
      add(call_args, user_identifier(s));
      add(query_args, user_identifier(s));
    }
    out.writeline("size_t rocmtpl_ws_bytes = 0;");
    out.writeline("int rocmtpl_status = " + m.name + "(" + query_args + (query_args.empty() ? "" : ", ") +
                  "&rocmtpl_ws_bytes, nullptr, 0);");
    out.splice(R"(
        if (rocmtpl_status != ROCMTPL_STATUS_OK) {
            std::fprintf(stderr, "rocmtpl runner: workspace query returned status %d\n", rocmtpl_status);
            return 3;
        }
        void* rocmtpl_ws = nullptr;
        if (rocmtpl_ws_bytes > 0 && !rocmtpl_runner::ok(hipMalloc(&rocmtpl_ws, rocmtpl_ws_bytes), "hipMalloc")) return 1;
        hipEvent_t rocmtpl_start = nullptr;
        hipEvent_t rocmtpl_stop = nullptr;
        if (!rocmtpl_runner::ok(rocmtpl_runner::event_create(&rocmtpl_start), "hipEventCreate") ||
            !rocmtpl_runner::ok(rocmtpl_runner::event_create(&rocmtpl_stop), "hipEventCreate")) return 1;
    )",
               true);
    const std::string run = "rocmtpl_status = " + m.name + "(" + call_args + (call_args.empty() ? "" : ", ") +
                            "nullptr, static_cast<uint8_t*>(rocmtpl_ws), 0);";
    out.writeline("for (int rocmtpl_i = 0; rocmtpl_i < 3 && rocmtpl_status == ROCMTPL_STATUS_OK; ++rocmtpl_i) " + run);
    out.writeline("if (!rocmtpl_runner::ok(hipDeviceSynchronize(), \"hipDeviceSynchronize\")) return 1;");
    out.writeline(
        "if (!rocmtpl_runner::ok(rocmtpl_runner::event_record(rocmtpl_start, 0), \"hipEventRecord\")) return 1;");
    out.writeline(
        "for (int rocmtpl_i = 0; rocmtpl_i < rocmtpl_iters && rocmtpl_status == ROCMTPL_STATUS_OK; ++rocmtpl_i) " +
        run);
    out.splice(R"(
        if (!rocmtpl_runner::ok(rocmtpl_runner::event_record(rocmtpl_stop, 0), "hipEventRecord") ||
            !rocmtpl_runner::ok(rocmtpl_runner::event_synchronize(rocmtpl_stop), "hipEventSynchronize")) return 1;
        if (rocmtpl_status != ROCMTPL_STATUS_OK) {
            std::fprintf(stderr, "rocmtpl runner: the module returned status %d\n", rocmtpl_status);
            return 3;
        }
        float rocmtpl_ms = 0.0f;
        if (!rocmtpl_runner::ok(rocmtpl_runner::event_elapsed_ms(&rocmtpl_ms, rocmtpl_start, rocmtpl_stop), "hipEventElapsedTime")) return 1;
    )",
               true);
    std::string fmt = m.name + ":";
    std::string fmt_args;
    for (const auto& s : syms) {
      fmt += " " + s + "=%lld";
      fmt_args += ", static_cast<long long>(" + user_identifier(s) + ")";
    }
    out.writeline("std::printf(\"" + fmt + " %.4f ms per run (%d runs), workspace %zu bytes\\n\"" + fmt_args +
                  ", static_cast<double>(rocmtpl_ms) / rocmtpl_iters, rocmtpl_iters, rocmtpl_ws_bytes);");
    index = m.inputs.size();
    for (const auto& b : m.outputs) {
      const auto i = std::to_string(index++);
      out.writeline("std::printf(\"checksum(" + b.name() + ") = %.6e\\n\", rocmtpl_runner::checksum(rocmtpl_t" + i +
                    ", rocmtpl_t" + i + "_bytes, " + std::to_string(static_cast<int>(b.type())) + "));");
    }
    for (std::size_t i = 0; i < m.inputs.size() + m.outputs.size(); ++i) {
      out.writeline("(void)hipFree(rocmtpl_t" + std::to_string(i) + ");");
    }
    out.writeline("(void)hipFree(rocmtpl_ws);");
    out.writeline("(void)rocmtpl_runner::event_destroy(rocmtpl_start);");
    out.writeline("(void)rocmtpl_runner::event_destroy(rocmtpl_stop);");
    out.writeline("return 0;");
  }
  out.writeline("}");
  out.writeline("#endif  // ROCMTPL_STANDALONE_RUNNER");
}

}  // namespace detail::module_impl

/// @brief Emits a module: one translation unit with the deduplicated kernels (static, each in its
/// own namespace), one exported entry point that runs the nodes in order, and optionally the
/// standalone runner.
///
/// Scheduling: each node is rendered through rocm_cpp_scheduling::codegen_template(); with
/// module_options::fuse_epilogues, an elementwise node right after a template node that only it
/// reads is offered to that template as an epilogue first. Workspace: the intermediate buffers
/// that the calls use, each in a slot (slots are reused once the buffer in them is dead), then the
/// scratch region that each call's own workspace is allocated from (the largest of them).
/// @param graph the nodes, inputs and outputs
/// @param options fusion, runner and alignment settings
/// @return the source and the entry point's description
/// @throws invalid_argument_error for a graph without outputs, a size symbol named like a buffer or
/// reserved, a bad alignment, or what the templates throw while rendering
[[nodiscard]] inline module_source emit_module(const module_graph& graph, const module_options& options = {}) {
  namespace impl = detail::module_impl;
  const auto align = options.workspace_alignment;
  if (align == 0 || (align & (align - 1)) != 0) {
    throw invalid_argument_error("rocmtpl: emit_module: workspace_alignment " + std::to_string(align) +
                                 " is not a power of two");
  }
  if (graph.outputs().empty()) {
    throw invalid_argument_error("rocmtpl: emit_module: module '" + graph.name() +
                                 "' has no outputs; mark node outputs with add_output()");
  }
  module_source m;
  m.name = graph.name();
  m.workspace_alignment = align;
  m.inputs = graph.inputs();
  for (const auto& o : graph.outputs()) m.outputs.push_back(*graph.find(o));

  // Schedule: one codegen_template per node, epilogues offered to the node before them.
  rocm_cpp_scheduling sched({entry_linkage::internal, true});
  const auto& nodes = graph.nodes();
  auto readers = [&](const std::string& name) {
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < nodes.size(); ++j) {
      const auto& n = nodes[j];
      for (const auto& in : n.node.inputs()) {
        if (n.graph_name(in.name()) == name) {
          out.push_back(j);
          break;
        }
      }
    }
    return out;
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (options.fuse_epilogues && i + 1 < nodes.size()) {
      const auto& next = nodes[i + 1];
      const bool candidate = next.node.template_name() == templates::elementwise_policy::name() &&
                             !graph.is_output(node.name) && readers(node.name) == std::vector<std::size_t>{i + 1};
      if (candidate) {
        try {
          (void)sched.codegen_template(node, {next});
          m.notes.push_back(next.name + " (" + next.node.template_name() + ") fused into " + node.name + " (" +
                            node.node.template_name() + ")");
          ++i;
          continue;
        } catch (const fusion_error& e) {
          m.notes.push_back(next.name + " (" + next.node.template_name() + ") not fused into " + node.name + " (" +
                            node.node.template_name() + "): " + e.reason());
        }
      }
    }
    (void)sched.codegen_template(node);
  }
  m.kernels = sched.kernels();
  m.calls = sched.calls();

  // The entry point: tensors, then every size symbol (those of the intermediates too).
  rocm_template_kernel entry(m.name);
  {
    std::vector<const buffer*> ins;
    std::vector<const buffer*> outs;
    std::vector<std::string> names;
    // User names are parameters as user_identifier(name) (hygiene: ir/identifier.hpp).
    for (const auto& b : m.inputs) {
      ins.push_back(&b);
      names.push_back(user_identifier(b.name()));
    }
    for (const auto& b : m.outputs) {
      outs.push_back(&b);
      names.push_back(user_identifier(b.name()));
    }
    (void)entry.def_kernel(ins, outs, impl::join(names));
  }
  m.size_args = entry.args().size_symbols();
  std::vector<std::string> params = entry.args().cpp_argdefs();

  // Intermediates: node outputs that are no module output and that some call still uses.
  std::set<std::string> used;
  for (const auto& c : m.calls) {
    used.insert(c.input_buffers.begin(), c.input_buffers.end());
    used.insert(c.output_buffers.begin(), c.output_buffers.end());
  }
  std::vector<buffer> intermediates;
  for (const auto& n : nodes) {
    if (!graph.is_output(n.name) && used.contains(n.name)) {
      intermediates.push_back(*graph.find(n.name));
      m.intermediates.push_back(n.name);
    }
  }
  std::vector<std::string> symbols = m.size_args;
  for (const auto& b : intermediates) impl::add_symbols(symbols, b);
  for (const auto& c : m.calls) {
    for (const auto& s : c.size_args) {
      if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
    }
  }
  for (std::size_t i = m.size_args.size(); i < symbols.size(); ++i) params.push_back("int64_t " + user_identifier(symbols[i]));
  m.size_args = symbols;
  for (const auto& s : m.size_args) {
    if (module_graph::is_reserved(s) || graph.find(s) || s == m.name || s == "main") {
      throw invalid_argument_error("rocmtpl: emit_module: size symbol '" + s +
                                   "' is reserved or has the name of a buffer or of the module; rename it");
    }
  }
  m.signature = "extern \"C\" PT_EXPORT int " + m.name + "(" + impl::join(params) + ", " +
                std::string(rocm_template_kernel::extra_cpp_args) + ")";

  // Workspace slots: a buffer takes the first slot whose occupant's last use is an earlier call.
  struct slot {
    std::vector<std::string> buffers;
    std::size_t busy_until = 0;
  };
  std::vector<slot> slots;
  std::map<std::string, std::size_t> slot_of;
  for (std::size_t c = 0; c < m.calls.size(); ++c) {
    for (const auto& out : m.calls[c].output_buffers) {
      if (std::find(m.intermediates.begin(), m.intermediates.end(), out) == m.intermediates.end() ||
          slot_of.contains(out))
        continue;
      std::size_t last = c;
      for (std::size_t u = c + 1; u < m.calls.size(); ++u) {
        const auto& in = m.calls[u].input_buffers;
        if (std::find(in.begin(), in.end(), out) != in.end()) last = u;
      }
      std::size_t s = 0;
      while (s < slots.size() && slots[s].busy_until >= c) ++s;
      if (s == slots.size()) slots.emplace_back();
      slots[s].buffers.push_back(out);
      slots[s].busy_until = last;
      slot_of[out] = s;
    }
  }
  // An intermediate no call writes (a template that reads its own epilogue's input) gets a slot of its own.
  for (const auto& name : m.intermediates) {
    if (!slot_of.contains(name)) {
      slots.push_back({{name}, m.calls.size()});
      slot_of[name] = slots.size() - 1;
    }
  }

  indented_buffer out;
  out.reserve(64 * 1024);
  out.writeline("// rocmtpl module " + m.name + ": " + std::to_string(nodes.size()) + " nodes, " +
                std::to_string(m.kernels.size()) + " kernels, " + std::to_string(m.calls.size()) +
                " calls. Generated by rocmtpl " + version_string + "; do not edit.");
  out.writeline("// entry point: " + m.signature);
  for (const auto& n : m.notes) out.writeline("// " + n);
  std::vector<std::string> includes;
  std::vector<impl::split_source> bodies;
  // Each kernel repeats the globals the module writes once at file scope: drop that copy.
  const std::string globals = std::string(impl::pt_export_block) + std::string(bfloat16_alias) +
                              std::string(kernel_status_defines) + std::string(sym_expr_cpp_helpers);
  for (const auto& k : m.kernels) {
    auto split = impl::split_includes(k.source);
    if (const auto at = split.body.find(globals); at != std::string::npos) split.body.erase(at, globals.size());
    split.body.erase(0, std::min(split.body.size(), split.body.find_first_not_of('\n')));
    for (auto& inc : split.includes) {
      if (std::find(includes.begin(), includes.end(), inc) == includes.end()) includes.push_back(std::move(inc));
    }
    bodies.push_back(std::move(split));
  }
  for (std::string inc : {"#include \"" + std::string(device::portable_header_name) + "\"",
                          std::string("#include <cstddef>"), std::string("#include <cstdint>")}) {
    if (std::find(includes.begin(), includes.end(), inc) == includes.end()) includes.push_back(std::move(inc));
  }
  for (const auto& inc : includes) out.writeline(inc);
  out.writeline("");
  out.write_verbatim(impl::pt_export_block);
  out.writeline("using bfloat16 = hip_bfloat16;");
  out.write_verbatim(kernel_status_defines);
  out.write_verbatim(sym_expr_cpp_helpers);
  for (std::size_t k = 0; k < m.kernels.size(); ++k) {
    const auto& def = m.kernels[k];
    out.writeline("");
    out.writeline("// ------------------------------------------------------------------------------------------");
    out.write_verbatim(def.metadata_comment());
    out.writeline("namespace " + rocm_cpp_scheduling::kernel_namespace(def.name) + " {");
    out.write_verbatim(bodies[k].body);
    out.writeline("}  // namespace " + rocm_cpp_scheduling::kernel_namespace(def.name));
  }
  out.writeline("");
  out.writeline("// ------------------------------------------------------------------------------------------");
  out.writeline("// module " + m.name);
  out.writeline("namespace {");
  out.writeline("inline size_t rocmtpl_module_align(size_t bytes) { return (bytes + " + std::to_string(align - 1) +
                ") / " + std::to_string(align) + " * " + std::to_string(align) + "; }");
  out.writeline("inline size_t rocmtpl_module_max(size_t a, size_t b) { return a > b ? a : b; }");
  out.writeline("// Bytes of a tensor's storage; 0 when it has no element.");
  out.writeline("inline size_t rocmtpl_module_bytes(int64_t numel, int64_t storage_elements, size_t element_bytes) {");
  out.writeline(
      "    return numel > 0 && storage_elements > 0 ? static_cast<size_t>(storage_elements) * element_bytes : 0;");
  out.writeline("}");
  out.writeline("}  // namespace");
  out.writeline("");
  out.writeline(m.signature + " {");
  {
    auto body = out.indent();
    for (const auto& s : m.size_args) {
      out.writeline("if (" + user_identifier(s) + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    }
    for (const auto& b : m.inputs) out.write_lines(entry.check_sizes(&b));
    for (const auto& b : m.outputs) out.write_lines(entry.check_sizes(&b));
    out.writeline("// Workspace: the intermediate buffers in slots (a slot is reused once its buffer is dead), then");
    out.writeline("// the scratch region each call's own workspace is allocated from.");
    for (const auto& b : intermediates) {
      out.writeline("const size_t rocmtpl_bytes_" + b.name() + " = " + impl::bytes_expr(b) + ";");
    }
    std::string previous = "0";
    for (std::size_t s = 0; s < slots.size(); ++s) {
      const std::string id = "rocmtpl_slot" + std::to_string(s);
      std::string size;
      for (const auto& b : slots[s].buffers) {
        const std::string aligned = "rocmtpl_module_align(rocmtpl_bytes_" + b + ")";
        size = size.empty() ? aligned : "rocmtpl_module_max(" + size + ", " + aligned + ")";
      }
      out.writeline("const size_t " + id + "_offset = " + previous + ";");
      out.writeline("const size_t " + id + "_bytes = " + size + ";  // " + impl::join(slots[s].buffers));
      previous = id + "_offset + " + id + "_bytes";
    }
    out.writeline("const size_t rocmtpl_scratch_offset = " + previous + ";");
    out.writeline("size_t rocmtpl_scratch_bytes = 0;");
    out.splice(sched.query_code());
    out.writeline(
        "const size_t rocmtpl_total_bytes = rocmtpl_scratch_offset + rocmtpl_module_align(rocmtpl_scratch_bytes);");
    out.writeline("if (workspace_size) {");
    {
      auto q = out.indent();
      out.writeline("*workspace_size = rocmtpl_total_bytes;");
      out.writeline("return ROCMTPL_STATUS_OK;");
    }
    out.writeline("}");
    out.writeline("if (rocmtpl_total_bytes > 0 && !workspace) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;");
    for (const auto& b : m.inputs) out.write_lines(entry.check_not_null(&b));
    for (const auto& b : m.outputs) out.write_lines(entry.check_not_null(&b));
    for (const auto& b : intermediates) {
      const std::string type = std::string(storage_type(b.type()));
      out.writeline(type + "* " + user_identifier(b.name()) + " = reinterpret_cast<" + type + "*>(workspace + rocmtpl_slot" +
                    std::to_string(slot_of[b.name()]) + "_offset);");
    }
    out.splice(sched.wrapper_code());
    out.writeline("return ROCMTPL_STATUS_OK;");
  }
  out.writeline("}");
  if (options.standalone_runner) {
    out.writeline("");
    impl::write_runner(out, m, options);
  }
  m.source = std::move(out).str();
  return m;
}

}  // namespace rocmtpl
