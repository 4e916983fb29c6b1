// SPDX-License-Identifier: MIT
// templates/elementwise.hpp gets activation from templates/activation.hpp, not from the GEMM: were
// the class gemm_policy declared by the include, this class template of the same name would not
// compile.
#include <rocmtpl/templates/elementwise.hpp>

namespace rocmtpl::templates {
template <class>
struct gemm_policy;
}  // namespace rocmtpl::templates

static_assert(rocmtpl::kernel_template<rocmtpl::templates::elementwise_policy>);
static_assert(rocmtpl::templates::to_string(rocmtpl::templates::activation::relu) == "relu");
