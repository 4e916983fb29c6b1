// SPDX-License-Identifier: MIT
// The two ways of running a candidate give the same bits (issue 9 part 4): for every shipped GEMM
// configuration (SIMT, matrix cores, Hopper wgmma; split-K with two launches) and the elementwise
// template, the shared library's C entry and the device-only code object launched through the
// module API from the launch description write byte-identical outputs on the same inputs, and
// refuse the same arguments. Also prints the host cost of one launch each way. Skips without a GPU.
#include <rocmtpl/runtime.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::activation;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

struct target {
  compile_options so;
  compile_options co;
  compiler cc;
};

target make_target() {
  const auto device = query_device_identity();
  autotune_options o;
  auto so = runtime::detail::target_compile_options(true, device, o);
  auto co = so;
  co.output = compile_output::code_object;
  return {so, co, compiler::find(so.platform)};
}

struct built {
  std::optional<compile_result> so;
  std::optional<compile_result> co;
  std::string error;
};

// Both builds of every caller, in parallel (one compile per core).
std::vector<built> build_all(code_cache& cache, const target& t, const std::vector<rocm_template_caller>& callers) {
  std::vector<built> out(callers.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < callers.size(); i = next++) {
      try {
        out[i].so = cache.get_or_compile(t.cc, callers[i].source(), t.so);
        out[i].co = cache.get_or_compile(t.cc, callers[i].source(), t.co);
      } catch (const std::exception& e) {
        out[i].error = e.what();
      }
    }
  };
  std::vector<std::jthread> threads;
  for (unsigned w = 0; w < std::max(1U, std::thread::hardware_concurrency()); ++w) threads.emplace_back(work);
  threads.clear();
  return out;
}

std::vector<std::uint8_t> output_bytes(const bench& b) {
  std::vector<std::uint8_t> bytes(b.output().size());
  gpu_runtime::instance().memcpy_to_host(bytes.data(), b.output().get(), bytes.size());
  return bytes;
}

// Runs the caller both ways on one bench; returns "" when both agree byte for byte (or both
// refuse the arguments), else what differs.
template <class Kernel1, class Kernel2>
std::string compare(bench& b, const Kernel1& entry, const Kernel2& module, const std::vector<std::int64_t>& extra) {
  std::string refused_so, refused_co;
  std::vector<std::uint8_t> a, c;
  try {
    b.run_once(entry, extra);
    a = output_bytes(b);
  } catch (const kernel_status_error& e) {
    refused_so = e.what();
  }
  try {
    b.run_once(module, extra);
    c = output_bytes(b);
  } catch (const kernel_status_error& e) {
    refused_co = e.what();
  }
  if (refused_so.empty() != refused_co.empty()) return "one path refused: '" + refused_so + "' vs '" + refused_co + "'";
  if (!refused_so.empty()) return {};
  if (a.size() != c.size() || std::memcmp(a.data(), c.data(), a.size()) != 0) return "outputs differ";
  std::size_t poisoned = 0;
  for (std::size_t i = 0; i + 1 < a.size(); i += 2) poisoned += a[i] == 0xFF && a[i + 1] == 0xFF ? 1 : 0;
  if (poisoned * 2 == a.size()) return "the output was never written";
  return {};
}

// Every caller: built both ways, run both ways, compared.
void check_callers(const std::vector<rocm_template_caller>& callers, std::size_t& compared) {
  test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto t = make_target();
  const auto util_lib = utility_kernels::build(cache, t.cc, t.so);
  const utility_kernels util(util_lib);
  bench b(callers.front().bmreq(), util, {});
  const auto builds = build_all(cache, t, callers);
  const bool amd = gpu_runtime::instance().kind() == platform::amd;
  for (std::size_t i = 0; i < callers.size(); ++i) {
    const auto& c = callers[i];
    const auto label = c.name() + " " + c.to_string();
    ASSERT_TRUE(builds[i].error.empty()) << label << "\n" << builds[i].error;
    const auto& r = c.bmreq();
    auto lib = std::make_shared<shared_library>(builds[i].so->library);
    const kernel_entry entry(lib, r.kernel_name, r.signature);
    const auto split = r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count);
    const module_kernel module(std::make_shared<code_object>(builds[i].co->library),
                               bind(*c.launch(), {r.extra_args.begin(), split}, {split, r.extra_args.end()}, amd),
                               r.extra_args);
    EXPECT_EQ(entry.workspace_size(r.extra_args), module.workspace_size(r.extra_args)) << label;
    EXPECT_EQ(compare(b, entry, module, r.extra_args), "") << label;
    ++compared;
  }
}

// The README's problem shape, smaller: f16 X [M, K] @ W [K, N] + Bias[N], relu; split-K at run time.
rocm_template<gemm_policy> gemm_problem(dtype t, std::int64_t m, std::int64_t n, std::int64_t k) {
  return rocm_template<gemm_policy>(gemm_policy(gemm_options{.act = activation::relu, .runtime_split_k = true}),
                                    {buffer("x", layout::row_major(t, {sym_expr(m), sym_expr(k)})),
                                     buffer("w", layout::row_major(t, {sym_expr(k), sym_expr(n)})),
                                     buffer("bias", layout::row_major(t, {sym_expr(n)}))},
                                    layout::row_major(t, {sym_expr(m), sym_expr(n)}));
}

// Every shipped configuration that renders for the problem, split 1 and 3 (the Hopper path too:
// its persistent kernel over (K slice, tile) units, then the reduction), and Hopper stream-K.
std::vector<rocm_template_caller> every_config(const rocm_template<gemm_policy>& tpl) {
  std::vector<gemm_config> all;
  for (const auto& c : templates::simt_path::search_space()) all.emplace_back(c);
  for (const auto& c : templates::mma_path::search_space()) all.emplace_back(c);
  for (const auto& c : templates::wgmma_path::search_space()) all.emplace_back(c);
  std::vector<rocm_template_caller> callers;
  for (auto c : all) {
    for (int split : {1, 3}) {
      c = c.with_split_k(split);
      try {
        callers.push_back(tpl.generate(c));
      } catch (const rocmtpl::error&) {
        // a configuration this problem or dtype cannot use (validate() / the renderer says why)
      }
    }
  }
  // Stream-K on the cooperative Hopper tilings: the counter-zeroing launch, then the persistent kernel.
  for (auto c : templates::wgmma_path::search_space()) {
    if (c.pingpong != 0) continue;
    c.stream_k = 2;
    try {
      callers.push_back(tpl.generate(c));
    } catch (const rocmtpl::error&) {
      // not a Hopper problem (f32)
    }
  }
  return callers;
}

TEST(LaunchGpu, EveryShippedGemmConfigurationGivesTheSameBitsBothWays) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  std::size_t compared = 0;
  // f16 serves all three math paths; sizes not multiples of the tiles (edges), N and K multiples of 8.
  const auto f16 = every_config(gemm_problem(dtype::f16, 328, 264, 200));
  ASSERT_FALSE(f16.empty());
  check_callers(f16, compared);
  // f32 (SIMT only) with a K that is odd: the scalar instantiation.
  check_callers(every_config(gemm_problem(dtype::f32, 129, 72, 37)), compared);
  std::cout << "compared " << compared << " GEMM candidates both ways\n";
}

TEST(LaunchGpu, ElementwiseGivesTheSameBitsBothWays) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  rocm_template<templates::elementwise_policy> t(
      templates::elementwise_policy({.act = activation::gelu}),
      {buffer("x", layout::row_major(dtype::bf16, {sym_expr::symbol("M"), sym_expr(300)})),
       buffer("bias", layout::row_major(dtype::bf16, {sym_expr(300)}))},
      layout::row_major(dtype::bf16, {sym_expr::symbol("M"), sym_expr(300)}));
  std::size_t compared = 0;
  check_callers(t.generate_all({{"M", 1000}}), compared);
  EXPECT_EQ(compared, 3U);
}

// Host time of one launch each way (enqueue only; no assertion: a benchmark, not a timed test).
TEST(LaunchGpu, HostCostOfALaunchBothWays) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  auto tpl = gemm_problem(dtype::f16, 128, 128, 64);
  const auto callers = tpl.generate_all();
  const auto& c = callers.front();
  test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto t = make_target();
  const utility_kernels util(utility_kernels::build(cache, t.cc, t.so));
  bench b(c.bmreq(), util, {});
  const auto& r = c.bmreq();
  const kernel_entry entry(std::make_shared<shared_library>(cache.get_or_compile(t.cc, c.source(), t.so).library),
                           r.kernel_name, r.signature);
  const auto split = r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count);
  const module_kernel module(std::make_shared<code_object>(cache.get_or_compile(t.cc, c.source(), t.co).library),
                             bind(*c.launch(), {r.extra_args.begin(), split}, {split, r.extra_args.end()},
                                  gpu_runtime::instance().kind() == platform::amd),
                             r.extra_args);
  b.run_once(entry, r.extra_args);
  b.run_once(module, r.extra_args);
  const auto tensors = b.tensors();
  const auto per_launch_us = [&](const auto& k) {
    constexpr int n = 2000;
    gpu_runtime::instance().synchronize(b.stream());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) k.launch(tensors, r.extra_args, nullptr, b.stream());
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    gpu_runtime::instance().synchronize(b.stream());
    return us;
  };
  const double so = per_launch_us(entry);
  const double co = per_launch_us(module);
  std::cout << "host cost per launch: C entry " << so << " us, module API " << co << " us (" << c.name() << " "
            << c.to_string() << ")\n";
  RecordProperty("entry_us", std::to_string(so));
  RecordProperty("module_us", std::to_string(co));
}

// The dynamic shared-memory opt-in (above 48 KiB, NVIDIA) is made once per device, by a bit the
// C entry keeps, instead of on every launch. A configuration that opts in (the Hopper one on an
// sm_90 device, else the first matrix-core one above 48 KiB) is first called from 8 threads at once,
// each on its own stream and output: every call succeeds and writes the bits of a call made alone,
// and later calls (the bit set) do too. Prints the host cost of a launch of the C entry and of the
// module API (which sets the attribute once per loaded function); no assertion on times.
TEST(LaunchGpu, SharedMemoryOptInOncePerDeviceFromManyThreads) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  const auto& rt = gpu_runtime::instance();
  if (rt.kind() != platform::nvidia) GTEST_SKIP() << "the shared-memory opt-in is made on NVIDIA only";
  const bool hopper = rt.properties(rt.current_device()).arch == "sm_90";
  auto tpl = gemm_problem(dtype::f16, 328, 264, 200);
  std::optional<rocm_template_caller> chosen;
  std::vector<gemm_config> candidates;
  if (hopper) {
    for (const auto& c : templates::wgmma_path::search_space()) candidates.emplace_back(c);
  } else {
    for (const auto& c : templates::mma_path::search_space()) candidates.emplace_back(c);
  }
  for (const auto& c : candidates) {
    if (c.shared_bytes() <= launch_shared_opt_in_bytes) continue;
    try {
      chosen = tpl.generate(c);
      break;
    } catch (const rocmtpl::error&) {
      // a configuration this problem cannot use
    }
  }
  if (!chosen) GTEST_SKIP() << "no shipped configuration for this device opts into more than 48 KiB";
  const auto& c = *chosen;
  ASSERT_TRUE(c.launch());
  ASSERT_FALSE(launch_includes(*c.launch()).empty()) << c.to_string();
  test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto t = make_target();
  const utility_kernels util(utility_kernels::build(cache, t.cc, t.so));
  bench b(c.bmreq(), util, {});
  const auto& r = c.bmreq();
  const kernel_entry entry(std::make_shared<shared_library>(cache.get_or_compile(t.cc, c.source(), t.so).library),
                           r.kernel_name, r.signature);
  ASSERT_EQ(entry.workspace_size(r.extra_args), 0U);  // no split: one output per thread is all a call needs
  constexpr int threads = 8;
  std::vector<device_buffer> outputs;
  std::vector<stream> streams;
  for (int i = 0; i < threads; ++i) {
    outputs.emplace_back(b.output().size());
    streams.emplace_back();
  }
  const auto run = [&](int i) {
    auto tensors = b.tensors();
    tensors.back() = outputs[static_cast<std::size_t>(i)].get();
    const kernel_status rc =
        entry.call(tensors, r.extra_args, nullptr, nullptr, streams[static_cast<std::size_t>(i)].get());
    streams[static_cast<std::size_t>(i)].synchronize();
    return rc;
  };
  std::vector<kernel_status> first(threads, kernel_status::launch_failed);
  {
    std::vector<std::jthread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back([&, i] { first[static_cast<std::size_t>(i)] = run(i); });
  }
  for (int i = 0; i < threads; ++i) EXPECT_EQ(first[static_cast<std::size_t>(i)], kernel_status::ok) << "thread " << i;
  for (int i = 0; i < threads; ++i) EXPECT_EQ(run(i), kernel_status::ok) << "again, thread " << i;
  b.run_once(entry, r.extra_args);  // alone, on the bench's output
  const auto alone = output_bytes(b);
  for (int i = 0; i < threads; ++i) {
    std::vector<std::uint8_t> bytes(alone.size());
    rt.memcpy_to_host(bytes.data(), outputs[static_cast<std::size_t>(i)].get(), bytes.size());
    EXPECT_EQ(bytes, alone) << "thread " << i;
  }
  const auto split = r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count);
  const module_kernel module(std::make_shared<code_object>(cache.get_or_compile(t.cc, c.source(), t.co).library),
                             bind(*c.launch(), {r.extra_args.begin(), split}, {split, r.extra_args.end()}, false),
                             r.extra_args);
  b.run_once(module, r.extra_args);
  const auto tensors = b.tensors();
  const auto per_launch_us = [&](const auto& k) {
    constexpr int n = 2000;
    rt.synchronize(b.stream());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) k.launch(tensors, r.extra_args, nullptr, b.stream());
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    rt.synchronize(b.stream());
    return us;
  };
  const double so = per_launch_us(entry);
  const double co = per_launch_us(module);
  std::cout << "host cost per launch with the shared-memory opt-in (" << c.to_string() << "): C entry " << so
            << " us, module API " << co << " us\n";
  RecordProperty("opt_in_entry_us", std::to_string(so));
  RecordProperty("opt_in_module_us", std::to_string(co));
}

}  // namespace
