// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rendered_source: a generated translation unit as parts (includes, globals, device code,
/// entry declaration, entry body), and the entry's exported twins rendered from its signature: the
/// uniform `NAME_packed` entry and `NAME_signature`. Whoever assembles translation units (a kernel
/// library, a module, the scheduler) works on these parts, never by searching the text: the
/// kernel's device symbols are spelt through a macro (device_symbol_ref()) that kernel_text()
/// defines from the entry's name, so the generated text never holds the kernel's own name.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/core/config.hpp>

namespace rocmtpl {

namespace detail::entry_text {

// The fixed text around a rendered entry point: the one spelling that entry(), packed_entry_text() and
// the constant-evaluation renderer (templates/static_source.hpp) write.
inline constexpr std::string_view host_guard_open = "#if !defined(ROCMTPL_DEVICE_ONLY)\n";
inline constexpr std::string_view host_guard_close = "#endif  // !ROCMTPL_DEVICE_ONLY\n";
inline constexpr std::string_view exported_linkage = "extern \"C\" PT_EXPORT ";
inline constexpr std::string_view packed_suffix = "_packed";
inline constexpr std::string_view signature_suffix = "_signature";

// Appends the decimal digits of `v` to `out` (a std::string or a constant-evaluation writer).
template <class Out>
constexpr void append_decimal(Out& out, std::uint64_t v) {
  char digits[20]{};
  std::size_t n = 0;
  do {
    digits[19 - n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out += std::string_view(digits + (20 - n), n);
}

// The packed twin and the signature function of entry `name` (see packed_entry_text()), appended to
// `out`: a std::string at run time, a counter or a fixed-size writer in constant evaluation. The
// entry has `count` parameters before the fixed tail; `is_tensor(i)` says whether parameter i is a
// tensor, `write_type(out, i)` appends its C type as declared, `write_declaration(out)` appends
// `int NAME(...)` (entry_signature::declaration()).
template <class Out, class IsTensor, class WriteType, class WriteDeclaration>
constexpr void write_packed_entry(Out& out, std::string_view name, std::size_t count, IsTensor&& is_tensor,
                                  WriteType&& write_type, WriteDeclaration&& write_declaration) {
  out += "// The uniform entry: args[i] points to parameter i's value (a tensor's address as a void*).\n";
  out += exported_linkage;
  out += "int ";
  out += name;
  out += packed_suffix;
  out += "(void* const* args, size_t* workspace_size, uint8_t* workspace, void* stream) {\n";
  if (count == 0) out += "    (void)args;\n";
  out += "    return ";
  out += name;
  out += "(";
  for (std::size_t i = 0; i < count; ++i) {
    if (is_tensor(i)) {
      out += "static_cast<";
      write_type(out, i);
      out += ">(*static_cast<void* const*>(args[";
      append_decimal(out, i);
      out += "]))";
    } else {
      out += "*static_cast<const ";
      write_type(out, i);
      out += "*>(args[";
      append_decimal(out, i);
      out += "])";
    }
    out += ",\n        ";
  }
  out += "workspace_size, workspace, static_cast<hipStream_t>(stream));\n}\n";
  out += "// The entry's declaration, for loaders that check a library they did not render.\n";
  out += exported_linkage;
  out += "const char* ";
  out += name;
  out += signature_suffix;
  out += "(void) { return \"";
  write_declaration(out);
  out += "\"; }\n";
}

}  // namespace detail::entry_text

/// @brief How a rendered entry point is declared.
enum class entry_linkage {
  exported,  ///< `extern "C" PT_EXPORT int name(...)`, with its packed twin and signature: one kernel per library
  internal   ///< `static int name(...)`: one of several kernels in a module (inside its own namespace)
};

/// @brief The exported name of an entry's packed twin: `NAME_packed`.
[[nodiscard]] std::string packed_entry_name(std::string_view name);

/// @brief The exported name of the function that returns an entry's declaration: `NAME_signature`.
[[nodiscard]] std::string signature_function_name(std::string_view name);

/// @brief The entry's declaration with its linkage: `extern "C" PT_EXPORT int NAME(...)` or
/// `static int NAME(...)`.
[[nodiscard]] std::string entry_declaration(std::string_view name, const entry_signature& signature,
                                            entry_linkage linkage = entry_linkage::exported);

/// @brief The exported twins of an entry point NAME, rendered from its signature (the one place they
/// are written; templates never write them):
/// @code{.unparsed}
/// extern "C" PT_EXPORT int NAME_packed(void* const* args, size_t* workspace_size, uint8_t* workspace,
///                                      void* stream);
/// extern "C" PT_EXPORT const char* NAME_signature(void);   // returns signature.declaration(NAME)
/// @endcode
/// `args[i]` points to parameter i's value: a `void*` holding a tensor's address, an `int64_t` for a
/// size, a value of the runtime argument's own C type. The stream is a `void*` so that a caller
/// without GPU headers names the function's real type (hipStream_t is a pointer to a struct whose
/// name differs between platforms). Every read is through the parameter's own type: no punning.
[[nodiscard]] std::string packed_entry_text(std::string_view name, const entry_signature& signature);

/// @brief A rendered translation unit as parts. str() assembles them; the entry is declared from
/// `entry_name`, `signature` and `linkage`, and the device symbols (`extern "C" __global__`
/// kernels, spelt `ROCMTPL_KERNEL_SYMBOL(suffix)` in the device code and the entry body) are
/// `<entry_name>_<suffix>` through the macro kernel_text() defines: renaming a kernel or changing
/// its linkage changes a field, never the text.
///
/// An exported entry is followed by its packed twin and signature function (packed_entry_text());
/// an internal one is not (the module that holds it exports its own).
/// @code{.cpp}
/// rocmtpl::rendered_source s;
/// s.includes = {"#include <cstdint>\n"};
/// s.entry_name = "rocm_copy";
/// s.signature = kernel.args().signature();
/// s.entry_body = "    return 0;\n";
/// s.str();  // includes, globals, device code, the entry, rocm_copy_packed, rocm_copy_signature
/// @endcode
struct rendered_source {
  /// @brief File-scope blocks (an `#include` line, or an `#if` block of includes), each ending in '\n'.
  std::vector<std::string> includes;
  /// @brief Macros and helpers every kernel of a template family shares (PT_EXPORT, status codes);
  /// a module writes each distinct globals block once.
  std::string globals;
  /// @brief Everything between the globals and the entry point (types, device code, launchers).
  std::string device_code;
  /// @brief The entry point's name.
  std::string entry_name;
  /// @brief The entry point's parameters (kernel_args::signature()).
  entry_signature signature;
  /// @brief The entry point's statements, already indented one level, each line ending in '\n'.
  std::string entry_body;
  /// @brief How the entry point is declared.
  entry_linkage linkage = entry_linkage::exported;
  /// @brief How the entry launches its kernels, when the template describes it while rendering
  /// (codegen/launch.hpp): rendering and describing are one pass. Its kernel_name is the entry's
  /// name (rename() keeps them together), so its symbols are the ones kernel_text() defines. Not
  /// part of the text: str() renders the launch lines the template wrote into entry_body.
  std::optional<launch_description> launch{};

  /// @brief Names the kernel: the entry's name and the launch description's kernel name (the
  /// device symbols' prefix) together. The text is not touched (the symbols are spelt through the
  /// macro kernel_text() defines from the name).
  void rename(std::string_view name);

  /// @brief entry_declaration() of the entry.
  [[nodiscard]] std::string declaration() const { return entry_declaration(entry_name, signature, linkage); }

  /// @brief The entry point's definition, then (exported) its packed twin and signature function.
  ///
  /// An exported entry is wrapped in `#if !defined(ROCMTPL_DEVICE_ONLY)`: a device-only compile
  /// (runtime/build/compiler.hpp, compile_output::code_object) keeps the includes, globals and device
  /// code and drops the host entry (its kernels are launched through the module API). The one place
  /// the guard is written; templates write only the entry's body. An internal entry (a module's) is
  /// not guarded: the module's own exports call it.
  [[nodiscard]] std::string entry() const;

  /// @brief The `#define` of the device-symbol macro for this entry's name:
  /// @code{.unparsed}
  /// #define ROCMTPL_KERNEL_SYMBOL(suffix) NAME_##suffix
  /// @endcode
  [[nodiscard]] std::string symbol_definition() const;

  /// @brief The kernel's own code: the device-symbol macro defined from the entry's name, the device
  /// code, entry(), the macro undefined. A module writes this for each of its kernels (each in a
  /// namespace of its own), so that every kernel's symbols follow its name while its device code
  /// and entry body are byte for byte what the template rendered.
  [[nodiscard]] std::string kernel_text() const;

  /// @brief The translation unit: includes, a blank line, globals, a blank line, kernel_text().
  [[nodiscard]] std::string str() const;

  /// @brief Member-wise equality.
  friend bool operator==(const rendered_source&, const rendered_source&) = default;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/rendered_source-inl.hpp>
#endif
