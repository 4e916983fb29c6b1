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

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/module/emitter.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

  sym_expr parse();

 private:
  sym_expr expr();
  sym_expr term();
  sym_expr unary();
  sym_expr primary();
  void skip_space();
  bool accept(char c);
  [[noreturn]] void fail(const std::string& what) const;

  std::string_view text_;
  std::size_t pos_ = 0;
};

nlohmann::ordered_json buffer_to_json(const buffer& b);

buffer buffer_from_json(const nlohmann::json& j, const std::string& where);

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
  [[nodiscard]] static module_manifest from_source(const module_source& m, const compile_options& options);

  /// @brief The manifest as JSON (keys in the documented order).
  [[nodiscard]] nlohmann::ordered_json to_json() const;

  /// @brief Reads a manifest.
  /// @param j the parsed JSON
  /// @param where the file it came from (for messages)
  /// @throws module_error naming the field that is missing or wrong
  [[nodiscard]] static module_manifest from_json(const nlohmann::json& j, const std::string& where = "manifest");
};

/// @brief A compiled module, loaded: its manifest, its library and its entry point.
class loaded_module {
 public:
  /// @brief Compiles a module (once per source, compiler and options: code_cache) and loads it.
  /// @throws compile_error, compile_timeout_error, compiler_not_found_error, code_cache_error,
  /// library_load_error, symbol_not_found_error, signature_mismatch_error
  [[nodiscard]] static loaded_module compile(const module_source& m, const compiler& cc, const compile_options& options,
                                             code_cache& cache);

  /// @brief Loads an ahead-of-time artifact written by save(): the manifest (`<name>.json`) or the
  /// library next to it (`<name>.so`).
  /// The library's entry is checked against the manifest: its `<name>_signature()` must declare the
  /// inputs, outputs and size arguments the manifest lists (module_entry_signature()).
  /// @throws module_error for a missing or invalid manifest; library_load_error,
  /// symbol_not_found_error for the library; signature_mismatch_error (naming both declarations)
  /// when the library's entry is not the one the manifest describes
  [[nodiscard]] static loaded_module load(const std::filesystem::path& path);

  /// @brief Writes the artifact into `dir` (created): `<name>.so` and `<name>.json`, each through a
  /// temporary name and rename(), so a reader never sees half a file.
  /// @return the manifest's path
  /// @throws module_error when the folder cannot be created or the library read; file_write_error when a file cannot be
  /// written
  std::filesystem::path save(const std::filesystem::path& dir) const;

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
  [[nodiscard]] std::vector<std::int64_t> size_values(const size_hints& sizes) const;

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
                                   void* stream) const;

  /// @brief Runs the module on `stream` with a workspace of at least workspace_size(sizes) bytes.
  /// @throws kernel_status_error for a non-zero status; invalid_argument_error as call()
  void run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs, const size_hints& sizes,
           void* workspace, void* stream) const {
    check_status(manifest_.name, call(inputs, outputs, sizes, nullptr, workspace, stream));
  }

 private:
  loaded_module(module_manifest manifest, std::filesystem::path library, std::optional<compile_result> build);

  const buffer& at(const std::vector<buffer>& list, std::size_t i, const char* what) const;

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
std::filesystem::path build_standalone_runner(const module_source& m, const compiler& cc, compile_options options,
                                              const std::filesystem::path& executable);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/aot/module_loader-inl.hpp>
#endif
