// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/policy.hpp: included by it (header-only) or compiled once by src/templates.cpp.

#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/policy.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<gemm_config> gemm_policy::configs() const {
  auto out = simt_configs();
  auto mc = matrix_core_configs();
  out.insert(out.end(), mc.begin(), mc.end());
  return out;
}

ROCMTPL_INLINE std::vector<arg_info> gemm_policy::runtime_arg_info() const {
  if (!options_.runtime_split_k) return {};
  return {arg_info{"split_k", "int32_t"}};
}

ROCMTPL_INLINE std::vector<runtime_arg_value> gemm_policy::runtime_arg_values(const gemm_config& config) const {
  if (!options_.runtime_split_k) return {};
  return {config.split_k};
}

}  // namespace rocmtpl::templates
