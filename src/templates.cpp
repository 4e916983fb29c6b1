// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/templates/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/descriptor.hpp>
#include <rocmtpl/templates/gemm/device_code.hpp>
#include <rocmtpl/templates/gemm/mma/device_code.hpp>
#include <rocmtpl/templates/gemm/mma/path.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/paths.hpp>
#include <rocmtpl/templates/gemm/policy.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/reference.hpp>
#include <rocmtpl/templates/gemm/render.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>
#include <rocmtpl/templates/gemm/simt/device_code.hpp>
#include <rocmtpl/templates/gemm/simt/path.hpp>
#include <rocmtpl/templates/gemm/skinny/device_code.hpp>
#include <rocmtpl/templates/gemm/skinny/path.hpp>
#include <rocmtpl/templates/gemm/skinny/render.hpp>
#include <rocmtpl/templates/gemm/skinny_mma/path.hpp>
#include <rocmtpl/templates/gemm/wgmma/device_code.hpp>
#include <rocmtpl/templates/gemm/wgmma/path.hpp>
#include <rocmtpl/templates/pointwise.hpp>

#include <rocmtpl/templates/detail/element_access-inl.hpp>
#include <rocmtpl/templates/detail/source_parts-inl.hpp>
#include <rocmtpl/templates/elementwise-inl.hpp>
#include <rocmtpl/templates/gemm/config-inl.hpp>
#include <rocmtpl/templates/gemm/cost_model-inl.hpp>
#include <rocmtpl/templates/gemm/descriptor-inl.hpp>
#include <rocmtpl/templates/gemm/device_code-inl.hpp>
#include <rocmtpl/templates/gemm/mma/device_code-inl.hpp>
#include <rocmtpl/templates/gemm/mma/path-inl.hpp>
#include <rocmtpl/templates/gemm/paths-inl.hpp>
#include <rocmtpl/templates/gemm/policy-inl.hpp>
#include <rocmtpl/templates/gemm/problem-inl.hpp>
#include <rocmtpl/templates/gemm/reference-inl.hpp>
#include <rocmtpl/templates/gemm/render-inl.hpp>
#include <rocmtpl/templates/gemm/search_space-inl.hpp>
#include <rocmtpl/templates/gemm/simt/device_code-inl.hpp>
#include <rocmtpl/templates/gemm/simt/path-inl.hpp>
#include <rocmtpl/templates/gemm/skinny/device_code-inl.hpp>
#include <rocmtpl/templates/gemm/skinny/path-inl.hpp>
#include <rocmtpl/templates/gemm/skinny/render-inl.hpp>
#include <rocmtpl/templates/gemm/skinny_mma/path-inl.hpp>
#include <rocmtpl/templates/gemm/wgmma/device_code-inl.hpp>
#include <rocmtpl/templates/gemm/wgmma/path-inl.hpp>
#include <rocmtpl/templates/pointwise-inl.hpp>

// The stock policies' rocm_template, instantiated once here (their headers declare them `extern
// template` in the compiled mode).
template class rocmtpl::rocm_template<rocmtpl::templates::elementwise_policy>;
template class rocmtpl::rocm_template<rocmtpl::templates::gemm_policy>;
template class rocmtpl::rocm_template<rocmtpl::templates::pointwise_policy>;
