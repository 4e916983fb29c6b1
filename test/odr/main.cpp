// SPDX-License-Identifier: MIT
// ODR test: links two translation units that include every public header (see CMakeLists.txt) and
// checks that what they rendered and the library state they saw are consistent.
#include <cstdio>
#include <string>

#include "odr.hpp"

namespace {
int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "odr: FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  const auto first = rocmtpl_odr::render_in_first_tu();
  const auto second = rocmtpl_odr::render_in_second_tu();

  expect(first.source.find("PT_EXPORT int rocm_gemm(") != std::string::npos, "first TU rendered a GEMM entry point");
  expect(second.source.find("PT_EXPORT int rocm_gemm(") != std::string::npos, "second TU rendered a GEMM entry point");
  expect(first.source.find("relu") == std::string::npos, "first TU rendered no activation");
  expect(second.source.find("relu") != std::string::npos, "second TU rendered the relu activation");
  // One process-wide choice counter: both TUs increment the same object, so the names differ.
  expect(first.choice_counter == second.choice_counter, "one choice counter object across translation units");
  expect(first.choice_name != second.choice_name, "choice names from the two TUs are distinct");
  expect(first.hash64 == second.hash64, "an inline function has one address across translation units");

  std::printf("odr: %s (%zu bytes), %s (%zu bytes)\n", first.choice_name.c_str(), first.source.size(),
              second.choice_name.c_str(), second.source.size());
  return failures == 0 ? 0 : 1;
}
