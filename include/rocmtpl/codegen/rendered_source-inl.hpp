// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/rendered_source.hpp: included at its end (header-only) or compiled once by
// src/codegen.cpp, after it (so it does not include it back).

#include <cstddef>
#include <string>
#include <string_view>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/core/config.hpp>

namespace rocmtpl {

ROCMTPL_INLINE std::string packed_entry_name(std::string_view name) {
  std::string out(name);
  out += "_packed";
  return out;
}

ROCMTPL_INLINE std::string signature_function_name(std::string_view name) {
  std::string out(name);
  out += "_signature";
  return out;
}

ROCMTPL_INLINE std::string entry_declaration(std::string_view name, const entry_signature& signature,
                                             entry_linkage linkage) {
  std::string out = linkage == entry_linkage::exported ? "extern \"C\" PT_EXPORT " : "static ";
  out += signature.declaration(name);
  return out;
}

ROCMTPL_INLINE std::string packed_entry_text(std::string_view name, const entry_signature& signature) {
  // Appended piece by piece: g++ 12 at -O3 reports a false -Wrestrict inside operator+(const char*,
  // std::string&&).
  std::string out = "// The uniform entry: args[i] points to parameter i's value (a tensor's address as a void*).\n";
  out += "extern \"C\" PT_EXPORT int ";
  out += packed_entry_name(name);
  out += "(void* const* args, size_t* workspace_size, uint8_t* workspace, void* stream) {\n";
  if (signature.params.empty()) out += "    (void)args;\n";
  out += "    return ";
  out.append(name).append("(");
  for (std::size_t i = 0; i < signature.params.size(); ++i) {
    const auto& p = signature.params[i];
    std::string slot = "args[";
    slot += std::to_string(i);
    slot += ']';
    if (p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out) {
      out.append("static_cast<").append(p.type).append(">(*static_cast<void* const*>(").append(slot).append("))");
    } else {
      out.append("*static_cast<const ").append(p.type).append("*>(").append(slot).append(")");
    }
    out += ",\n        ";
  }
  out += "workspace_size, workspace, static_cast<hipStream_t>(stream));\n}\n";
  out += "// The entry's declaration, for loaders that check a library they did not render.\n";
  out += "extern \"C\" PT_EXPORT const char* ";
  out += signature_function_name(name);
  out += "(void) { return \"";
  out += signature.declaration(name);
  out += "\"; }\n";
  return out;
}

ROCMTPL_INLINE void rendered_source::rename(std::string_view name) {
  entry_name = std::string(name);
  if (launch) launch->kernel_name = entry_name;
}

ROCMTPL_INLINE std::string rendered_source::entry() const {
  const bool exported = linkage == entry_linkage::exported;
  std::string out = exported ? "#if !defined(ROCMTPL_DEVICE_ONLY)\n" : "";
  out += declaration();
  out += " {\n";
  out += entry_body;
  out += "}\n";
  if (exported) {
    out += packed_entry_text(entry_name, signature);
    out += "#endif  // !ROCMTPL_DEVICE_ONLY\n";
  }
  return out;
}

ROCMTPL_INLINE std::string rendered_source::symbol_definition() const {
  std::string out = "#define ";
  out += device_symbol_macro;
  out += "(suffix) ";
  out += entry_name;
  out += "_##suffix\n";
  return out;
}

ROCMTPL_INLINE std::string rendered_source::kernel_text() const {
  std::string out = symbol_definition();
  out += device_code;
  out += entry();
  out += "#undef ";
  out += device_symbol_macro;
  out += '\n';
  return out;
}

ROCMTPL_INLINE std::string rendered_source::str() const {
  std::string out;
  std::size_t size = globals.size() + device_code.size() + entry_body.size() + 2048;
  for (const auto& i : includes) size += i.size();
  out.reserve(size);
  for (const auto& i : includes) out += i;
  out += '\n';
  out += globals;
  out += '\n';
  out += kernel_text();
  return out;
}

}  // namespace rocmtpl
