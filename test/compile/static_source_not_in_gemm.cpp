// SPDX-License-Identifier: MIT
// A program that renders at run time does not compile the constant-evaluation renderer: rocm_template,
// the GEMM and the elementwise and pointwise templates do not include templates/static_source.hpp (were
// the struct static_epilogue_op declared by these includes, this class template of the same name would
// not compile). The compile-cost benchmark's render_gemm.cpp includes these headers.
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>

namespace rocmtpl::templates {
template <class>
struct static_epilogue_op;
}  // namespace rocmtpl::templates

static_assert(rocmtpl::kernel_template<rocmtpl::templates::pointwise_policy>);
