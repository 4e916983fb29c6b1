// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Compiling, caching, saving and loading modules (rocmtpl/module.hpp), calling their entry point,
/// and building their standalone runner.
///
/// A module is compiled once per (source, compiler, options) through code_cache. save() writes an
/// ahead-of-time artifact: `<name>.so` and a JSON manifest `<name>.json` that describes the entry
/// point's arguments, so that a program can load and call it without the library that generated it:
/// @code{.json}
/// {
///   "format": 1, "kind": "rocmtpl.module", "name": "mlp", "library": "mlp.so",
///   "signature": "extern \"C\" PT_EXPORT int mlp(const float* x, ..., int64_t M, size_t* workspace_size, ...)",
///   "platform": "amd", "archs": ["gfx90a"],
///   "inputs":  [{"name": "x", "dtype": "float32", "sizes": ["M", "256"], "strides": ["256", "1"], "offset": "0"}],
///   "outputs": [{"name": "y", "dtype": "float32", "sizes": ["M", "128"], "strides": ["128", "1"], "offset": "0"}],
///   "size_args": ["M"], "workspace_alignment": 256,
///   "kernels": [{"name": "rocm_fused_gemm_0", "source_hash": "...", "origins": [{"node": "h", "op": "gemm"}]}],
///   "source_hash": "...", "rocmtpl_version": "0.1.0"
/// }
/// @endcode
/// Sizes, strides and offsets are C expressions over the size arguments (`+ - *`, parentheses,
/// `rocmtpl_floordiv(a, b)` and `rocmtpl_mod(a, b)` with Python semantics).
///
/// @code{.cpp}
/// using namespace rocmtpl::runtime;
/// code_cache cache;
/// auto cc = compiler::find(platform::amd);
/// auto mod = loaded_module::compile(rocmtpl::emit_module(graph), cc, amd_compile_options({"gfx90a"}), cache);
/// auto manifest = mod.save("artifacts");            // artifacts/mlp.so + artifacts/mlp.json
/// auto again = loaded_module::load(manifest);       // in another program
/// std::size_t bytes = again.workspace_size({{"M", 1000}});   // no GPU needed
/// @endcode

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/module/emitter.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <unistd.h>

namespace rocmtpl::runtime {

/// @brief A module artifact cannot be used: a manifest that is missing, not JSON, of another
/// format, or with a bad field. The message names the file and the field.
class module_error : public error {
 public:
  using error::error;
};

namespace detail::module_loader_impl {

// Reads the expressions sym_expr::to_string() prints back into sym_expr:
//   expr := term (('+' | '-') term)*      term := unary ('*' unary)*      unary := '-' unary | primary
//   primary := integer ['LL'] | name | ('rocmtpl_floordiv' | 'rocmtpl_mod') '(' expr ',' expr ')' | '(' expr ')'
class expr_parser {
 public:
  explicit expr_parser(std::string_view text) : text_(text) {}

  sym_expr parse() {
    auto e = expr();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    return e;
  }

 private:
  sym_expr expr() {
    auto e = term();
    for (;;) {
      skip_space();
      if (accept('+')) {
        e = e + term();
      } else if (accept('-')) {
        e = e - term();
      } else {
        return e;
      }
    }
  }
  sym_expr term() {
    auto e = unary();
    for (;;) {
      skip_space();
      if (!accept('*')) return e;
      e = e * unary();
    }
  }
  sym_expr unary() {
    skip_space();
    if (accept('-')) return -unary();
    return primary();
  }
  sym_expr primary() {
    skip_space();
    if (accept('(')) {
      auto e = expr();
      skip_space();
      if (!accept(')')) fail("expected ')'");
      return e;
    }
    if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      std::int64_t v = 0;
      const auto* first = text_.data() + pos_;
      const auto [ptr, ec] = std::from_chars(first, text_.data() + text_.size(), v);
      if (ec != std::errc()) fail("integer out of range");
      pos_ += static_cast<std::size_t>(ptr - first);
      if (text_.substr(pos_, 2) == "LL") pos_ += 2;
      return v;
    }
    const auto start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_'))
      ++pos_;
    if (pos_ == start) fail("expected a number, a name or '('");
    const auto name = text_.substr(start, pos_ - start);
    if (name == "rocmtpl_floordiv" || name == "rocmtpl_mod") {
      skip_space();
      if (!accept('(')) fail("expected '(' after " + std::string(name));
      auto a = expr();
      skip_space();
      if (!accept(',')) fail("expected ','");
      auto b = expr();
      skip_space();
      if (!accept(')')) fail("expected ')'");
      return name == "rocmtpl_mod" ? mod(a, b) : floor_div(a, b);
    }
    return sym_expr::symbol(name);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool accept(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw module_error("rocmtpl: module manifest: cannot read the expression '" + std::string(text_) + "' at column " +
                       std::to_string(pos_ + 1) + ": " + what);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

inline nlohmann::ordered_json buffer_to_json(const buffer& b) {
  const auto& l = b.get_layout();
  std::vector<std::string> sizes;
  std::vector<std::string> strides;
  for (const auto& s : l.sizes()) sizes.push_back(s.to_string());
  for (const auto& s : l.strides()) strides.push_back(s.to_string());
  return {{"name", b.name()},
          {"dtype", std::string(rocmtpl::name(l.type()))},
          {"sizes", sizes},
          {"strides", strides},
          {"offset", l.offset().to_string()}};
}

inline buffer buffer_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    std::vector<sym_expr> sizes;
    std::vector<sym_expr> strides;
    for (const auto& s : j.at("sizes")) sizes.push_back(expr_parser(s.get<std::string>()).parse());
    for (const auto& s : j.at("strides")) strides.push_back(expr_parser(s.get<std::string>()).parse());
    const auto offset = expr_parser(j.at("offset").get<std::string>()).parse();
    return {j.at("name").get<std::string>(),
            layout(parse_dtype(j.at("dtype").get<std::string>()), std::move(sizes), std::move(strides), offset)};
  } catch (const nlohmann::json::exception& e) {
    throw module_error("rocmtpl: module manifest: " + where + ": " + e.what());
  } catch (const module_error& e) {
    throw module_error(std::string(e.what()) + " (in " + where + ")");
  } catch (const error& e) {
    throw module_error("rocmtpl: module manifest: " + where + ": " + e.what());
  }
}

}  // namespace detail::module_loader_impl

/// @brief What a module's manifest says: the entry point's arguments, where it was built for and
/// what it contains.
struct module_manifest {
  /// @brief The manifest format this library reads and writes.
  static constexpr int current_format = 1;

  std::string name;                        ///< module and entry-point name
  std::string library;                     ///< the shared library's file name, next to the manifest
  std::string signature;                   ///< the entry point's declaration (for people and other languages)
  std::string platform;                    ///< "amd" or "nvidia"
  std::vector<std::string> archs;          ///< the archs it was compiled for
  std::vector<buffer> inputs;              ///< tensor parameters read, in order
  std::vector<buffer> outputs;             ///< tensor parameters written, in order
  std::vector<std::string> size_args;      ///< `int64_t` size parameters, in order
  std::size_t workspace_alignment = 256;   ///< alignment of the workspace regions
  std::vector<kernel_definition> kernels;  ///< kernel names, hashes and origins (no sources)
  std::string source_hash;                 ///< xxh3-64 of the module source
  std::string rocmtpl_version;             ///< the library version that generated it

  /// @brief The manifest of an emitted module compiled with `options`.
  [[nodiscard]] static module_manifest from_source(const module_source& m, const compile_options& options) {
    module_manifest r;
    r.name = m.name;
    r.library = m.name + ".so";
    r.signature = m.signature;
    r.platform = std::string(to_string(options.platform));
    r.archs = compiler::resolved_archs(options);
    r.inputs = m.inputs;
    r.outputs = m.outputs;
    r.size_args = m.size_args;
    r.workspace_alignment = m.workspace_alignment;
    for (const auto& k : m.kernels) r.kernels.push_back({k.name, {}, k.source_hash, k.origins});
    r.source_hash = m.source_hash();
    r.rocmtpl_version = version_string;
    return r;
  }

  /// @brief The manifest as JSON (keys in the documented order).
  [[nodiscard]] nlohmann::ordered_json to_json() const {
    namespace impl = detail::module_loader_impl;
    using ojson = nlohmann::ordered_json;
    ojson ins = ojson::array();
    ojson outs = ojson::array();
    ojson ks = ojson::array();
    for (const auto& b : inputs) ins.push_back(impl::buffer_to_json(b));
    for (const auto& b : outputs) outs.push_back(impl::buffer_to_json(b));
    for (const auto& k : kernels) {
      ojson origins = ojson::array();
      for (const auto& o : k.origins) origins.push_back({{"node", o.node}, {"op", o.op}});
      ks.push_back({{"name", k.name}, {"source_hash", k.source_hash}, {"origins", origins}});
    }
    return {{"format", current_format},
            {"kind", "rocmtpl.module"},
            {"name", name},
            {"library", library},
            {"signature", signature},
            {"platform", platform},
            {"archs", archs},
            {"inputs", ins},
            {"outputs", outs},
            {"size_args", size_args},
            {"workspace_alignment", workspace_alignment},
            {"kernels", ks},
            {"source_hash", source_hash},
            {"rocmtpl_version", rocmtpl_version}};
  }

  /// @brief Reads a manifest.
  /// @param j the parsed JSON
  /// @param where the file it came from (for messages)
  /// @throws module_error naming the field that is missing or wrong
  [[nodiscard]] static module_manifest from_json(const nlohmann::json& j, const std::string& where = "manifest") {
    namespace impl = detail::module_loader_impl;
    auto bad = [&](const std::string& what) { return module_error("rocmtpl: module manifest " + where + ": " + what); };
    if (!j.is_object()) throw bad("not a JSON object");
    if (j.value("kind", "") != "rocmtpl.module") throw bad("'kind' is not \"rocmtpl.module\"");
    if (j.value("format", 0) != current_format) {
      throw bad("format " + j.value("format", nlohmann::json()).dump() + " is not " + std::to_string(current_format) +
                " (written by another rocmtpl version; rebuild the module)");
    }
    module_manifest r;
    try {
      r.name = j.at("name").get<std::string>();
      r.library = j.at("library").get<std::string>();
      r.signature = j.value("signature", "");
      r.platform = j.at("platform").get<std::string>();
      r.archs = j.at("archs").get<std::vector<std::string>>();
      r.size_args = j.at("size_args").get<std::vector<std::string>>();
      r.workspace_alignment = j.value("workspace_alignment", std::size_t{256});
      r.source_hash = j.value("source_hash", "");
      r.rocmtpl_version = j.value("rocmtpl_version", "");
      for (const auto& k : j.value("kernels", nlohmann::json::array())) {
        kernel_definition d;
        d.name = k.at("name").get<std::string>();
        d.source_hash = k.value("source_hash", "");
        for (const auto& o : k.value("origins", nlohmann::json::array())) {
          d.origins.push_back({o.at("node").get<std::string>(), o.at("op").get<std::string>()});
        }
        r.kernels.push_back(std::move(d));
      }
      std::size_t i = 0;
      for (const auto& b : j.at("inputs"))
        r.inputs.push_back(impl::buffer_from_json(b, where + " inputs[" + std::to_string(i++) + "]"));
      i = 0;
      for (const auto& b : j.at("outputs"))
        r.outputs.push_back(impl::buffer_from_json(b, where + " outputs[" + std::to_string(i++) + "]"));
    } catch (const nlohmann::json::exception& e) {
      throw bad(e.what());
    }
    if (!is_identifier(r.name)) throw bad("name '" + r.name + "' is not a C identifier");
    if (r.library.empty() || r.library.find('/') != std::string::npos || r.library == "." || r.library == "..") {
      throw bad("library '" + r.library + "' must be a file name next to the manifest");
    }
    for (const auto& s : r.size_args) {
      if (!is_identifier(s)) throw bad("size argument '" + s + "' is not a C identifier");
    }
    if (r.platform != "amd" && r.platform != "nvidia") throw bad("platform '" + r.platform + "' is not amd or nvidia");
    return r;
  }
};

/// @brief A compiled module, loaded: its manifest, its library and its entry point.
class loaded_module {
 public:
  /// @brief Compiles a module (once per source, compiler and options: code_cache) and loads it.
  /// @throws compile_error, compile_timeout_error, compiler_not_found_error, code_cache_error,
  /// library_load_error, symbol_not_found_error, signature_mismatch_error
  [[nodiscard]] static loaded_module compile(const module_source& m, const compiler& cc, const compile_options& options,
                                             code_cache& cache) {
    auto built = cache.get_or_compile(cc, m.source, options);
    auto manifest = module_manifest::from_source(m, options);
    auto path = built.library;
    return loaded_module(std::move(manifest), std::move(path), std::move(built));
  }

  /// @brief Loads an ahead-of-time artifact written by save(): the manifest (`<name>.json`) or the
  /// library next to it (`<name>.so`).
  /// The library's entry is checked against the manifest: its `<name>_signature()` must declare the
  /// inputs, outputs and size arguments the manifest lists (module_entry_signature()).
  /// @throws module_error for a missing or invalid manifest; library_load_error,
  /// symbol_not_found_error for the library; signature_mismatch_error (naming both declarations)
  /// when the library's entry is not the one the manifest describes
  [[nodiscard]] static loaded_module load(const std::filesystem::path& path) {
    auto manifest_path = path;
    if (path.extension() != ".json") manifest_path.replace_extension(".json");
    std::ifstream in(manifest_path, std::ios::binary);
    if (!in) throw module_error("rocmtpl: module: cannot read the manifest " + manifest_path.string());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw module_error("rocmtpl: module manifest " + manifest_path.string() + ": not valid JSON");
    auto manifest = module_manifest::from_json(j, manifest_path.string());
    auto library = manifest_path.parent_path() / manifest.library;
    return loaded_module(std::move(manifest), std::move(library), std::nullopt);
  }

  /// @brief Writes the artifact into `dir` (created): `<name>.so` and `<name>.json`, each through a
  /// temporary name and rename(), so a reader never sees half a file.
  /// @return the manifest's path
  /// @throws module_error when the folder cannot be created or the library read; file_write_error when a file cannot be
  /// written
  std::filesystem::path save(const std::filesystem::path& dir) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw module_error("rocmtpl: module: cannot create " + dir.string() + ": " + ec.message());
    const auto library = dir / manifest_.library;
    if (fs::absolute(library).lexically_normal() != fs::absolute(library_path_).lexically_normal()) {
      std::ifstream in(library_path_, std::ios::binary);
      if (!in) throw module_error("rocmtpl: module: cannot read " + library_path_.string());
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      detail::write_file_atomic(library, bytes, detail::file_sync::durable);
    }
    const auto manifest = dir / (manifest_.name + ".json");
    detail::write_file_atomic(manifest, manifest_.to_json().dump(2) + "\n", detail::file_sync::durable);
    return manifest;
  }

  /// @brief The manifest.
  [[nodiscard]] const module_manifest& manifest() const noexcept { return manifest_; }
  /// @brief The library loaded.
  [[nodiscard]] const std::filesystem::path& library_path() const noexcept { return library_path_; }
  /// @brief The open library.
  [[nodiscard]] const std::shared_ptr<shared_library>& library() const noexcept { return library_; }
  /// @brief The compile record when compile() made this object (nullopt after load()).
  [[nodiscard]] const std::optional<compile_result>& build_record() const noexcept { return build_; }

  /// @brief The size arguments in entry-point order.
  /// @throws invalid_argument_error naming a size argument without a value
  [[nodiscard]] std::vector<std::int64_t> size_values(const size_hints& sizes) const {
    std::vector<std::int64_t> out;
    for (const auto& s : manifest_.size_args) {
      const auto it = sizes.find(s);
      if (it == sizes.end()) {
        throw invalid_argument_error("rocmtpl: module " + manifest_.name + ": no value for the size argument '" + s +
                                     "'");
      }
      out.push_back(it->second);
    }
    return out;
  }

  /// @brief Concrete layout of input `i` for these sizes (what to allocate).
  /// @throws out_of_range_error for a bad index; evaluation_error for a missing size
  [[nodiscard]] tensor_meta input_meta(std::size_t i, const size_hints& sizes) const {
    return tensor_meta::from_buffer(at(manifest_.inputs, i, "input"), sizes);
  }
  /// @brief Concrete layout of output `i` for these sizes.
  /// @throws out_of_range_error for a bad index; evaluation_error for a missing size
  [[nodiscard]] tensor_meta output_meta(std::size_t i, const size_hints& sizes) const {
    return tensor_meta::from_buffer(at(manifest_.outputs, i, "output"), sizes);
  }

  /// @brief The workspace query (null tensors): bytes the module needs for these sizes. No GPU needed.
  /// @throws invalid_argument_error for a missing size; kernel_status_error for a non-zero status
  [[nodiscard]] std::size_t workspace_size(const size_hints& sizes) const {
    return entry_->workspace_size(size_values(sizes));
  }

  /// @brief Calls the entry point and returns its status (no exception for a non-zero status).
  /// @throws invalid_argument_error for wrong tensor counts or a missing size
  [[nodiscard]] kernel_status call(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                                   const size_hints& sizes, std::size_t* workspace_size, void* workspace,
                                   void* stream) const {
    if (inputs.size() != manifest_.inputs.size() || outputs.size() != manifest_.outputs.size()) {
      throw invalid_argument_error("rocmtpl: module " + manifest_.name + " takes " +
                                   std::to_string(manifest_.inputs.size()) + " inputs and " +
                                   std::to_string(manifest_.outputs.size()) + " outputs, got " +
                                   std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
    }
    std::vector<const void*> tensors(inputs.begin(), inputs.end());
    tensors.insert(tensors.end(), outputs.begin(), outputs.end());
    return entry_->call(tensors, size_values(sizes), workspace_size, workspace, stream);
  }

  /// @brief Runs the module on `stream` with a workspace of at least workspace_size(sizes) bytes.
  /// @throws kernel_status_error for a non-zero status; invalid_argument_error as call()
  void run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs, const size_hints& sizes,
           void* workspace, void* stream) const {
    check_status(manifest_.name, call(inputs, outputs, sizes, nullptr, workspace, stream));
  }

 private:
  loaded_module(module_manifest manifest, std::filesystem::path library, std::optional<compile_result> build)
      : manifest_(std::move(manifest)),
        library_path_(std::move(library)),
        build_(std::move(build)),
        library_(std::make_shared<shared_library>(library_path_)),
        entry_(std::make_shared<kernel_entry>(
            library_, manifest_.name,
            module_entry_signature(manifest_.inputs, manifest_.outputs, manifest_.size_args))) {}

  const buffer& at(const std::vector<buffer>& list, std::size_t i, const char* what) const {
    if (i >= list.size()) {
      throw out_of_range_error("rocmtpl: module " + manifest_.name + " has " + std::to_string(list.size()) + " " +
                               what + "s; index " + std::to_string(i) + " is out of range");
    }
    return list[i];
  }

  module_manifest manifest_;
  std::filesystem::path library_path_;
  std::optional<compile_result> build_;
  std::shared_ptr<shared_library> library_;
  std::shared_ptr<kernel_entry> entry_;
};

/// @brief Builds a module's standalone runner: the module source compiled as an executable with
/// `-DROCMTPL_STANDALONE_RUNNER` (the compile command of `options` without `-shared`). The source is
/// written next to the executable as `<executable>.hip`.
/// @param m a module emitted with module_options::standalone_runner
/// @param cc the compiler (hipcc or nvcc)
/// @param options archs, include dirs (the device header's), flags
/// @param executable the program to write
/// @return the executable
/// @throws invalid_argument_error when the module has no runner; compile_error or
/// compile_timeout_error when the build fails
inline std::filesystem::path build_standalone_runner(const module_source& m, const compiler& cc,
                                                     compile_options options, const std::filesystem::path& executable) {
  namespace fs = std::filesystem;
  if (m.source.find("#ifdef ROCMTPL_STANDALONE_RUNNER") == std::string::npos) {
    throw invalid_argument_error("rocmtpl: build_standalone_runner: module " + m.name +
                                 " has no runner; emit it with module_options::standalone_runner");
  }
  const auto exe = fs::absolute(executable).lexically_normal();
  std::error_code ec;
  fs::create_directories(exe.parent_path(), ec);
  const auto source = fs::path(exe.string() + ".hip");
  detail::write_file_atomic(source, m.source);
  options.resource_usage = false;
  options.dependency_file.clear();
  options.defines.emplace_back("ROCMTPL_STANDALONE_RUNNER");
  auto argv = cc.command(options, source, exe);
  argv.erase(std::remove(argv.begin(), argv.end(), "-shared"), argv.end());
  process_options po;
  po.working_dir = exe.parent_path();
  po.env = cc.environment();
  po.timeout = options.timeout;
  const auto r = run_process(argv, po);
  if (r.timed_out) {
    throw compile_timeout_error(argv, r.output, m.source,
                                std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout), source);
  }
  if (!r.ok()) throw compile_error(argv, r.output, m.source, r.exit_code, source);
  return exe;
}

}  // namespace rocmtpl::runtime
