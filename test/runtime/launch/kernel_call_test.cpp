// SPDX-License-Identifier: MIT
// Tests runtime/launch/kernel_call.hpp without a GPU: hipcc-built libraries are loaded and their entry
// points called through kernel_entry, that is through the packed twin after the signature check
// (workspace query, status codes of the argument checks, every parameter type arriving in order),
// and every mismatch refused with a typed error before anything runs.
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// AMD's stream handle type, so that the test can call an entry through its real function type.
struct ihipStream_t;

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::have_compiler;
using rocmtpl::test::symbolic_gemm;
using rocmtpl::test::temp_dir;
using templates::gemm_config;

// A split-K GEMM (runtime argument split_k) compiled for gfx90a, and its request.
struct split_gemm {
  rocm_benchmark_request request;
  std::shared_ptr<shared_library> library;
};

split_gemm build_split_gemm(code_cache& cache) {
  templates::gemm_options o;
  o.runtime_split_k = true;
  const auto m = sym_expr::symbol("M");
  const rocm_template<templates::gemm_policy> t(
      templates::gemm_policy(o),
      {buffer("x", layout::row_major(dtype::f32, {m, 64})), buffer("w", layout::row_major(dtype::f32, {64, 48}))},
      layout::row_major(dtype::f32, {m, 48}));
  const gemm_config c = gemm_config{}.with_split_k(4);
  const auto caller = t.generate(c, {{"M", 100}});
  const auto lib =
      cache.get_or_compile(compiler::find(platform::amd), caller.source(), amd_compile_options({"gfx90a"}));
  return {caller.bmreq(), std::make_shared<shared_library>(lib.library)};
}

TEST(KernelCall, HipccBuiltGemmAnswersTheWorkspaceQueryWithoutAGpu) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto caller = symbolic_gemm().generate(gemm_config{}, {{"M", 100}});
  const auto lib = cache.get_or_compile(compiler::find(platform::amd), caller.source(), amd_compile_options());
  auto so = std::make_shared<shared_library>(lib.library);
  kernel_entry k(so, "rocm_gemm", caller.bmreq().signature);
  EXPECT_EQ(k.signature(), caller.bmreq().signature);
  EXPECT_EQ(kernel_entry::exported_signature(*so, "rocm_gemm"), caller.bmreq().signature.declaration("rocm_gemm"));
  EXPECT_EQ(k.workspace_size({100}), 0U);
  // Null tensors with a non-zero size: the generated check returns a status, never throws or crashes.
  std::vector<const void*> nulls(3, nullptr);
  EXPECT_EQ(k.call(nulls, {100}, nullptr, nullptr, nullptr), kernel_status::null_argument);
  try {
    k.launch(nulls, {100}, nullptr, nullptr);
    FAIL();
  } catch (const kernel_status_error& e) {
    EXPECT_EQ(e.code(), kernel_status::null_argument);
    EXPECT_NE(std::string(e.what()).find("null tensor argument"), std::string::npos);
  }
  // A negative size is refused before anything runs.
  EXPECT_EQ(k.call(nulls, {-1}, nullptr, nullptr, nullptr), kernel_status::unsupported_argument);
  // Zero rows: X and Y may be null (size 0) but W (64 x 48) may not; with W given, nothing runs.
  EXPECT_EQ(k.call(nulls, {0}, nullptr, nullptr, nullptr), kernel_status::null_argument);
  const float w_stand_in = 0;  // never dereferenced: no rows to compute
  EXPECT_EQ(k.call({nullptr, &w_stand_in, nullptr}, {0}, nullptr, nullptr, nullptr), kernel_status::ok);
  EXPECT_THROW(kernel_entry(so, "no_such_kernel", caller.bmreq().signature), symbol_not_found_error);
}

// Counts that differ from the signature are refused on the host, before the library is called.
TEST(KernelCall, WrongCountsAreRefusedBeforeTheCall) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto g = build_split_gemm(cache);
  const kernel_entry k(g.library, "rocm_gemm", g.request.signature);
  std::size_t bytes = 7;
  const std::vector<const void*> three(3, nullptr);
  EXPECT_THROW((void)k.call(three, {100}, &bytes, nullptr, nullptr), invalid_argument_error);  // no split_k
  EXPECT_THROW((void)k.call(three, {100, 4, 1}, &bytes, nullptr, nullptr), invalid_argument_error);
  EXPECT_THROW((void)k.call({nullptr, nullptr}, {100, 4}, &bytes, nullptr, nullptr), invalid_argument_error);
  EXPECT_EQ(bytes, 7U);  // nothing ran
  // split_k is an int32_t: a value that does not fit is refused, not truncated.
  try {
    (void)k.workspace_size({100, std::int64_t{1} << 40});
    FAIL() << "an out-of-range int32_t was passed";
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("'split_k' does not fit int32_t"), std::string::npos) << e.what();
  }
}

// The library's signature must be the one the caller describes: a wrong type, a wrong kind or a
// missing parameter is refused with both declarations named.
TEST(KernelCall, AnotherSignatureIsRefusedWithATypedError) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto g = build_split_gemm(cache);
  auto expect_mismatch = [&](const entry_signature& sig) {
    try {
      kernel_entry k(g.library, "rocm_gemm", sig);
      ADD_FAILURE() << "accepted " << sig.declaration("rocm_gemm");
    } catch (const signature_mismatch_error& e) {
      EXPECT_EQ(e.kernel(), "rocm_gemm");
      EXPECT_EQ(e.expected(), sig.declaration("rocm_gemm"));
      EXPECT_EQ(e.actual(), g.request.signature.declaration("rocm_gemm"));
      EXPECT_NE(std::string(e.what()).find(e.actual()), std::string::npos);
    }
  };
  auto type = g.request.signature;
  type.params[0].type = "const uint16_t*";
  expect_mismatch(type);
  auto kind = g.request.signature;  // X described as an output
  kind.params[0] = {"X", param_kind::tensor_out, "float*"};
  kind.params[1] = {"W", param_kind::tensor_out, "float*"};
  expect_mismatch(kind);
  expect_mismatch(g.request.signature.without_runtime_args());  // the reference's signature
  // A description that breaks the ABI's rules is refused before the library is read.
  auto broken = g.request.signature;
  broken.params[3].type = "int32_t";  // a size that is not int64_t
  EXPECT_THROW(kernel_entry(g.library, "rocm_gemm", broken), invalid_argument_error);
}

// The packed twin answers the workspace query as the entry itself does, called through its real
// function type (AMD's hipStream_t is ihipStream_t*).
TEST(KernelCall, PackedQueryMatchesTheDirectEntry) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto g = build_split_gemm(cache);
  const kernel_entry k(g.library, "rocm_gemm", g.request.signature);
  using direct_fn =
      int(const float*, const float*, float*, std::int64_t, std::int32_t, std::size_t*, std::uint8_t*, ihipStream_t*);
  auto* direct = g.library->symbol<direct_fn>("rocm_gemm");
  for (const std::int64_t rows : {1, 100, 1000}) {
    for (const std::int32_t split : {1, 2, 4}) {
      std::size_t expected = 1;
      ASSERT_EQ(direct(nullptr, nullptr, nullptr, rows, split, &expected, nullptr, nullptr), 0);
      EXPECT_EQ(k.workspace_size({rows, split}), expected) << rows << " rows, split " << split;
      if (split > 1) {
        EXPECT_EQ(expected, static_cast<std::size_t>(rows * 48 * split) * sizeof(float));
      }
    }
  }
  // A status the entry returns comes back the same way.
  std::size_t bytes = 0;
  EXPECT_EQ(direct(nullptr, nullptr, nullptr, 100, 0, &bytes, nullptr, nullptr), 3);  // split_k 0: unsupported
  EXPECT_EQ(k.call({nullptr, nullptr, nullptr}, {100, 0}, &bytes, nullptr, nullptr),
            kernel_status::unsupported_argument);
}

// A library without the packed twin (an entry written by hand, or built before the twins existed)
// is refused: kernel_entry never calls an entry whose signature it cannot check.
TEST(KernelCall, ALibraryWithoutTheTwinsIsRefused) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto lib =
      cache.get_or_compile(compiler::find(platform::amd), test::entry_source(4), amd_compile_options({"gfx90a"}));
  const entry_signature sig{{{"x", param_kind::tensor_in, "const float*"},
                             {"y", param_kind::tensor_out, "float*"},
                             {"n", param_kind::size, "int64_t"}}};
  EXPECT_THROW(kernel_entry(std::make_shared<shared_library>(lib.library), "entry", sig), symbol_not_found_error);
}

// Every parameter type arrives in order through the packed twin, beyond the registers and beyond
// kernel_entry's inline slots: an entry with 3 tensors, 20 sizes and 24 runtime arguments of every
// allowed type reports a checksum of them through the workspace query.
TEST(KernelCall, ManyArgumentsOfEveryTypeArriveInOrder) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const std::vector<std::string> types{"int32_t", "int64_t", "uint32_t", "uint64_t", "int", "bool"};
  rendered_source probe;
  probe.includes = {"#include \"rocmtpl_hip_portable.h\"\n#include <cstdint>\n#include <cstddef>\n"};
  probe.globals = "#define PT_EXPORT __attribute__((visibility(\"default\")))\n";
  probe.entry_name = "probe";
  probe.signature.params = {{"a", param_kind::tensor_in, "const void*"},
                            {"b", param_kind::tensor_in, "const void*"},
                            {"c", param_kind::tensor_out, "void*"}};
  std::string sum = "static_cast<int64_t>(a != nullptr) * 1000000 + static_cast<int64_t>(c != nullptr) * 2000000";
  std::vector<std::int64_t> extra;
  std::int64_t expected = 2000000;  // c given, a null
  for (int i = 0; i < 44; ++i) {
    const bool size = i < 20;
    std::string name = "v";  // in steps: g++ 12 -O3 reports a false -Wrestrict on "v" + std::to_string(i)
    name += std::to_string(i);
    const std::string& type = size ? types[1] : types[static_cast<std::size_t>(i) % types.size()];
    probe.signature.params.push_back({name, size ? param_kind::size : param_kind::runtime_arg, type});
    const std::int64_t value = type == "bool" ? i % 2 : i * 7 + 3;
    extra.push_back(value);
    expected += value * (i + 1);
    sum += " + static_cast<int64_t>(" + name + ") * " + std::to_string(i + 1);
  }
  probe.entry_body =
      "    (void)b; (void)workspace; (void)stream;\n    if (workspace_size) *workspace_size = "
      "static_cast<size_t>(" +
      sum + ");\n    return 0;\n";
  const auto lib = cache.get_or_compile(compiler::find(platform::amd), probe.str(), amd_compile_options({"gfx90a"}));
  const kernel_entry k(std::make_shared<shared_library>(lib.library), "probe", probe.signature);
  const int c_stand_in = 0;
  std::size_t bytes = 0;
  EXPECT_EQ(k.call({nullptr, nullptr, &c_stand_in}, extra, &bytes, nullptr, nullptr), kernel_status::ok);
  EXPECT_EQ(bytes, static_cast<std::size_t>(expected));
  extra[23] = 2;  // v23 is a bool (23 % 6 == 5): only 0 and 1 fit
  EXPECT_THROW((void)k.call({nullptr, nullptr, &c_stand_in}, extra, &bytes, nullptr, nullptr), invalid_argument_error);
}

}  // namespace
