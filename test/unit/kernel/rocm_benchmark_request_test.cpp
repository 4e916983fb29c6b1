// SPDX-License-Identifier: MIT
// rocmtpl/kernel/rocm_benchmark_request.hpp: a rendered choice ready for benchmarking and its keys.
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using namespace rocmtpl;

rocm_benchmark_request request(std::string source, std::vector<std::int64_t> extra) {
  rocm_benchmark_request r;
  r.kernel_name = "rocm_gemm";
  r.source_code = std::move(source);
  r.extra_args = std::move(extra);
  r.size_arg_count = 1;
  return r;
}

TEST(RocmBenchmarkRequest, SourceHashDependsOnTheSourceAlone) {
  const auto a = request("src", {128});
  const auto b = request("src", {256, 4});
  EXPECT_EQ(a.source_hash(), detail::hash_hex("src"));
  EXPECT_EQ(a.source_hash(), b.source_hash());  // one compiled library for both
  EXPECT_NE(a.source_hash(), request("src2", {128}).source_hash());
}

TEST(RocmBenchmarkRequest, HashKeyAddsEveryExtraArgument) {
  const auto a = request("src", {128, 2});
  EXPECT_EQ(a.hash_key(), a.source_hash() + "_128_2");
  // A runtime argument alone tells two measurements apart.
  EXPECT_NE(a.hash_key(), request("src", {128, 4}).hash_key());
  EXPECT_EQ(request("src", {}).hash_key(), a.source_hash());
  EXPECT_EQ(request("src", {-1}).hash_key(), a.source_hash() + "_-1");
}

TEST(RocmBenchmarkRequest, WorkspaceSizeIsUnknownUntilQueried) {
  const rocm_benchmark_request r;
  EXPECT_FALSE(r.workspace_size);
  EXPECT_EQ(r.size_arg_count, 0u);
  EXPECT_TRUE(r.input_tensor_meta.empty());
}

TEST(RocmBenchmarkRequest, SizeArgHintsPairNamesWithTheirValues) {
  auto r = request("src", {128, 7, 4});  // two size arguments, then a runtime argument
  r.size_arg_count = 2;
  r.size_arg_names = {"M", "B"};
  EXPECT_EQ(r.size_arg_hints(), (size_hints{{"M", 128}, {"B", 7}}));
  r.size_arg_names = {"M"};  // fewer names than size arguments: only the named ones
  EXPECT_EQ(r.size_arg_hints(), (size_hints{{"M", 128}}));
  EXPECT_TRUE(rocm_benchmark_request{}.size_arg_hints().empty());
  EXPECT_FALSE(r.workspace_bytes);
  EXPECT_TRUE(r.library_path.empty());
}

}  // namespace
