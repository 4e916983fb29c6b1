// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/signature.hpp's non-template functions: included at its end
// (header-only) or compiled once by src/codegen.cpp, after it (so it does not include it back).

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl::detail {

ROCMTPL_INLINE entry_signature signature_entry(std::span<const param_desc> params) {
  entry_signature out;
  for (const auto& p : params) {
    entry_param e;
    if (p.kind == param_kind::size) e.name = user_identifier_prefix;
    e.name += p.name;
    e.kind = p.kind;
    if (p.kind == param_kind::tensor_in) e.type = "const ";
    e.type += p.c_type;
    if (p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out) e.type += "*";
    out.params.push_back(std::move(e));
  }
  return out;
}

ROCMTPL_INLINE std::vector<std::string> signature_size_symbols(std::span<const param_desc> params) {
  std::vector<std::string> out;
  for (const auto& p : params) {
    if (p.kind == param_kind::size) out.emplace_back(p.name);
  }
  return out;
}

ROCMTPL_INLINE std::vector<arg_info> signature_runtime_args(std::span<const param_desc> params) {
  std::vector<arg_info> out;
  for (const auto& p : params) {
    if (p.kind == param_kind::runtime_arg) out.push_back({std::string(p.name), std::string(p.c_type)});
  }
  return out;
}

ROCMTPL_INLINE void check_signature_runtime_args(std::string_view who, std::span<const param_desc> params,
                                                 const std::vector<arg_info>& declared) {
  const auto mine = signature_runtime_args(params);
  if (declared == mine) return;
  auto text = [](const std::vector<arg_info>& v) {
    std::string s;
    for (const auto& a : v) {
      if (!s.empty()) s += ", ";
      s += a.ty;
      s += ' ';
      s += a.name;
    }
    return "[" + s + "]";
  };
  throw signature_error("rocmtpl: kernel_signature: template '" + std::string(who) + "' declares runtime arguments " +
                        text(declared) + " but the signature has " + text(mine) +
                        "; list the template's runtime arguments in runtime_args<arg<\"name\", type>...>");
}

ROCMTPL_INLINE void check_signature_argdefs(std::string_view who, std::span<const param_desc> params,
                                            const std::vector<std::string>& rendered) {
  const auto mine = signature_entry(params).argdefs();
  if (rendered == mine) return;
  auto text = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& a : v) {
      if (!s.empty()) s += ", ";
      s += a;
    }
    return "(" + s + ")";
  };
  throw signature_error("rocmtpl: kernel_signature: template '" + std::string(who) + "' renders the parameters " +
                        text(rendered) + " but the signature declares " + text(mine) +
                        "; name the buffers as the template names its parameters, with the same dtypes and order");
}

}  // namespace rocmtpl::detail
