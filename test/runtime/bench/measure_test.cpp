// SPDX-License-Identifier: MIT
// The benchmark worker's plumbing (runtime/bench/measure.hpp), without a GPU: the request travels as JSON
// with the shared dtype numbering, the real rocmtpl-bench-worker answers over child_process's
// channel, and a worker that died never raises SIGPIPE in the tuner (issue 8).
#include <rocmtpl/runtime/bench/measure.hpp>

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <signal.h>

namespace {

using namespace std::chrono_literals;
using namespace rocmtpl;
using namespace rocmtpl::runtime;

TEST(Measure, RequestRoundTripsWithDtypeCodes) {
  rocm_benchmark_request r;
  r.kernel_name = "k";
  r.input_tensor_meta = {tensor_meta{"x", dtype::bf16, {4, 8}, {8, 1}, 0},
                         tensor_meta{"w", dtype::f8e5m2, {8}, {1}, 2}};
  r.output_tensor_meta = tensor_meta{"y", dtype::f32, {4}, {1}, 0};
  r.extra_args = {4, 7};
  r.size_arg_count = 1;
  r.signature.params = {{"X", param_kind::tensor_in, "const uint16_t*"},
                        {"W", param_kind::tensor_in, "const uint8_t*"},
                        {"Y", param_kind::tensor_out, "float*"},
                        {"u_n", param_kind::size, "int64_t"},
                        {"split", param_kind::runtime_arg, "uint32_t"}};
  const auto j = request_to_json(r);
  EXPECT_EQ(j.at("inputs").at(0).at("dtype").get<int>(), dtype_code(dtype::bf16));
  EXPECT_EQ(j.at("inputs").at(1).at("dtype").get<int>(), dtype_code(dtype::f8e5m2));
  const auto back = request_from_json(j);
  EXPECT_EQ(back.input_tensor_meta, r.input_tensor_meta);
  EXPECT_EQ(back.output_tensor_meta, r.output_tensor_meta);
  EXPECT_EQ(back.extra_args, r.extra_args);
  EXPECT_EQ(back.signature, r.signature);
  EXPECT_EQ(reference_signature(back).params.size(), 4U);  // the reference has no runtime arguments
  auto bad = j;
  bad["output"]["dtype"] = 99;  // no dtype: refused, never cast into the enum
  EXPECT_THROW((void)request_from_json(bad), invalid_argument_error);
  bad = j;
  bad["signature"][0]["kind"] = "tensor";  // no such kind
  EXPECT_THROW((void)request_from_json(bad), worker_protocol_error);
  bad = j;
  bad["signature"][3]["type"] = "int32_t";  // a size that is not int64_t
  EXPECT_THROW((void)request_from_json(bad), invalid_argument_error);
}

TEST(Measure, RealWorkerAnswersOverTheChannel) {
  const auto exe = find_worker();
  if (!exe) GTEST_SKIP() << "rocmtpl-bench-worker not built (build tools/ or set ROCMTPL_BENCH_WORKER)";
  worker_process worker(*exe);
  worker_process::failure why{};
  std::string detail;
  auto reply =
      worker.request({{"op", "measure"}, {"extra_args", {1}}, {"library", "x"}, {"tolerance", 0.1}}, 10s, why, detail);
  ASSERT_TRUE(reply.has_value()) << detail;
  EXPECT_EQ(why, worker_process::failure::none);
  EXPECT_FALSE(reply->at("ok").get<bool>());
  EXPECT_NE(reply->at("error").get<std::string>().find("measure before setup"), std::string::npos) << *reply;
  reply = worker.request({{"op", "bogus"}}, 10s, why, detail);
  ASSERT_TRUE(reply.has_value()) << detail;
  EXPECT_NE(reply->at("error").get<std::string>().find("unknown op 'bogus'"), std::string::npos) << *reply;
}

TEST(Measure, DeadWorkerIsACrashNotASigpipe) {
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &before), 0);
  ASSERT_EQ(before.sa_handler, SIG_DFL);
  rocmtpl::test::temp_dir dir;
  worker_process worker(rocmtpl::test::write_script(dir / "quits.sh", "exit 3\n"));
  std::this_thread::sleep_for(200ms);  // gone before the request is written
  worker_process::failure why{};
  std::string detail;
  const auto reply = worker.request({{"op", "x"}, {"pad", std::string(1 << 20, 'x')}}, 5s, why, detail);
  EXPECT_FALSE(reply.has_value());
  EXPECT_EQ(why, worker_process::failure::crashed);
  EXPECT_EQ(detail, "worker exited with code 3");
  struct sigaction after {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, SIG_DFL) << "the tuner must not change SIGPIPE for the whole process";
}

}  // namespace
