// SPDX-License-Identifier: MIT
// A consumer of rocmtpl::rocmtpl: renders one GEMM variant and prints the source length and the
// caller's hash_key() (xxHash, inlined: the program needs no library). Exits non-zero when the
// rendered source lacks the entry point or the size argument, or the key lacks the source's hash.
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <cstdio>
#include <string>

int main() {
  using rocmtpl::buffer;
  using rocmtpl::dtype;
  using rocmtpl::layout;
  using rocmtpl::sym_expr;
  const auto x = layout::row_major(dtype::f32, {sym_expr::symbol("M"), 256});
  const auto w = layout::row_major(dtype::f32, {256, 128});
  const auto y = layout::row_major(dtype::f32, {sym_expr::symbol("M"), 128});
  const rocmtpl::rocm_template<rocmtpl::templates::gemm_policy> gemm(rocmtpl::templates::gemm_policy{},
                                                                     {buffer("x", x), buffer("w", w)}, y);
  const auto configs = gemm.policy().configs();
  if (configs.empty()) {
    std::fputs("pure_consumer: gemm_policy has no configurations\n", stderr);
    return 1;
  }
  const auto caller = gemm.generate(configs.front(), {{"M", 512}});
  const std::string& source = caller.source();
  for (const char* needle : {"extern \"C\"", "PT_EXPORT int rocm_gemm(", "int64_t u_M"}) {
    if (source.find(needle) == std::string::npos) {
      std::fprintf(stderr, "pure_consumer: rendered source lacks '%s':\n%s\n", needle, source.c_str());
      return 1;
    }
  }
  const std::string key = caller.hash_key();
  if (key.find(rocmtpl::detail::hash_hex(source)) == std::string::npos) {
    std::fprintf(stderr, "pure_consumer: hash_key '%s' lacks the source's hash %s\n", key.c_str(),
                 rocmtpl::detail::hash_hex(source).c_str());
    return 1;
  }
  std::printf("rocmtpl %d.%d.%d: rendered %s (%zu configurations): %zu bytes of HIP source, hash_key %s\n",
              ROCMTPL_VERSION_MAJOR, ROCMTPL_VERSION_MINOR, ROCMTPL_VERSION_PATCH, caller.name().c_str(),
              configs.size(), source.size(), key.c_str());
  return 0;
}
