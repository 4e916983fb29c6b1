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
  out += detail::entry_text::packed_suffix;
  return out;
}

ROCMTPL_INLINE std::string signature_function_name(std::string_view name) {
  std::string out(name);
  out += detail::entry_text::signature_suffix;
  return out;
}

ROCMTPL_INLINE std::string entry_declaration(std::string_view name, const entry_signature& signature,
                                             entry_linkage linkage) {
  std::string out(linkage == entry_linkage::exported ? detail::entry_text::exported_linkage : "static ");
  out += signature.declaration(name);
  return out;
}

ROCMTPL_INLINE std::string packed_entry_text(std::string_view name, const entry_signature& signature) {
  std::string out;
  detail::entry_text::write_packed_entry(
      out, name, signature.params.size(),
      [&](std::size_t i) {
        const auto k = signature.params[i].kind;
        return k == param_kind::tensor_in || k == param_kind::tensor_out;
      },
      [&](std::string& o, std::size_t i) { o += signature.params[i].type; },
      [&](std::string& o) { o += signature.declaration(name); });
  return out;
}

ROCMTPL_INLINE void rendered_source::rename(std::string_view name) {
  entry_name = std::string(name);
  if (launch) launch->kernel_name = entry_name;
}

ROCMTPL_INLINE std::string rendered_source::entry() const {
  const bool exported = linkage == entry_linkage::exported;
  std::string out(exported ? detail::entry_text::host_guard_open : std::string_view{});
  out += declaration();
  out += " {\n";
  out += entry_body;
  out += "}\n";
  if (exported) {
    out += packed_entry_text(entry_name, signature);
    out += detail::entry_text::host_guard_close;
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
