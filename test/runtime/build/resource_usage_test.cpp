// SPDX-License-Identifier: MIT
#include <rocmtpl/runtime/build/resource_usage.hpp>

#include <rocmtpl/runtime/build/compiler.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using rocmtpl::runtime::compile_options;
using rocmtpl::runtime::demangle;
using rocmtpl::runtime::kernel_resource_usage;
using rocmtpl::runtime::parse_amd_resource_usage;
using rocmtpl::runtime::parse_nvidia_resource_usage;
using rocmtpl::runtime::platform;
using rocmtpl::test::temp_dir;

const std::string data_dir = std::string(ROCMTPL_TEST_SOURCE_DIR) + "/runtime/data/";

const kernel_resource_usage* find(const std::vector<kernel_resource_usage>& rs, std::string_view mangled,
                                  std::string_view arch) {
  const auto it =
      std::find_if(rs.begin(), rs.end(), [&](const auto& r) { return r.mangled_name == mangled && r.arch == arch; });
  return it == rs.end() ? nullptr : &*it;
}

TEST(resource_usage, demangles_kernel_names) {
  EXPECT_EQ(demangle("_Z12scale_kernelPKfPfl"), "scale_kernel(float const*, float*, long)");
  EXPECT_EQ(demangle("_ZN2ns5lightIfEEvPT_"), "void ns::light<float>(float*)");
  EXPECT_EQ(demangle("entry"), "entry");  // extern "C": unchanged
  EXPECT_EQ(demangle(""), "");
}

// test/runtime/data/amd_resource_usage.log: real hipcc (clang 15) output for
// amd_resource_usage.hip built for gfx940 and gfx90a (in that order on the command line).
TEST(resource_usage, amd_sample_log) {
  const auto log = rocmtpl::test::read_file(data_dir + "amd_resource_usage.log");
  ASSERT_FALSE(log.empty());
  const std::vector<std::string> archs = {"gfx940", "gfx90a"};
  const auto rs = parse_amd_resource_usage(log, archs);
  ASSERT_EQ(rs.size(), 6U);

  // per_arch_lds holds 90 floats on gfx90a and 940 on gfx940: the LDS sizes prove the attribution.
  const auto* lds90a = find(rs, "_Z12per_arch_ldsPf", "gfx90a");
  const auto* lds940 = find(rs, "_Z12per_arch_ldsPf", "gfx940");
  ASSERT_NE(lds90a, nullptr);
  ASSERT_NE(lds940, nullptr);
  EXPECT_EQ(lds90a->lds_bytes, 90 * 4);
  EXPECT_EQ(lds940->lds_bytes, 940 * 4);
  EXPECT_EQ(lds90a->kernel, "per_arch_lds(float*)");
  EXPECT_EQ(lds90a->sgprs, 6);
  EXPECT_EQ(lds90a->vgprs, 3);
  EXPECT_EQ(lds90a->agprs, 0);
  EXPECT_EQ(lds90a->occupancy, 8);
  EXPECT_FALSE(lds90a->spills());

  for (const char* arch : {"gfx90a", "gfx940"}) {
    const auto* heavy = find(rs, "_Z12heavy_kernelPKfPf", arch);
    ASSERT_NE(heavy, nullptr) << arch;
    EXPECT_EQ(heavy->vgprs, 48);
    EXPECT_EQ(heavy->vgpr_spills, 4);
    EXPECT_EQ(heavy->sgpr_spills, 0);
    EXPECT_EQ(heavy->scratch_bytes, 12);
    EXPECT_TRUE(heavy->spills());
    const auto* light = find(rs, "_ZN2ns5lightIfEEvPT_", arch);
    ASSERT_NE(light, nullptr) << arch;
    EXPECT_EQ(light->kernel, "void ns::light<float>(float*)");
    EXPECT_EQ(light->vgprs, 2);
    EXPECT_FALSE(light->spills());
  }
  EXPECT_NE(to_string(*lds940).find("gfx940 per_arch_lds(float*): 3 VGPRs, 8 SGPRs"), std::string::npos)
      << to_string(*lds940);
}

TEST(resource_usage, amd_arch_left_empty_when_the_log_cannot_say) {
  const auto log = rocmtpl::test::read_file(data_dir + "amd_resource_usage.log");
  // Three archs named, two device compilations in the log: no guess.
  const std::vector<std::string> three = {"gfx90a", "gfx940", "gfx1030"};
  for (const auto& r : parse_amd_resource_usage(log, three)) EXPECT_EQ(r.arch, "") << r.mangled_name;
  // Kernel sets that differ per arch (A, B for one; C, A, B for the other): ambiguous, no guess.
  std::string mixed;
  for (const char* k : {"_Z1Av", "_Z1Bv", "_Z1Cv", "_Z1Av", "_Z1Bv"}) {
    mixed += std::string("k.hip:1:1: remark: Function Name: ") + k + " [-Rpass-analysis=kernel-resource-usage]\n";
    mixed += "k.hip:1:1: remark:     VGPRs: 4 [-Rpass-analysis=kernel-resource-usage]\n";
  }
  const std::vector<std::string> two = {"gfx90a", "gfx940"};
  const auto m = parse_amd_resource_usage(mixed, two);
  ASSERT_EQ(m.size(), 5U);
  for (const auto& r : m) EXPECT_EQ(r.arch, "") << r.mangled_name;
  EXPECT_EQ(m[2].kernel, "C()");
  EXPECT_EQ(m[2].vgprs, 4);
  // No archs given: parsed, unattributed.
  const auto plain = parse_amd_resource_usage(log);
  ASSERT_EQ(plain.size(), 6U);
  EXPECT_EQ(plain.front().arch, "");
}

TEST(resource_usage, amd_target_cpu_lines_name_the_arch) {
  // With -v, clang prints each job's command (with -target-cpu) before running it.
  const std::string log =
      " \"/usr/bin/clang-15\" \"-cc1\" \"-triple\" \"amdgcn-amd-amdhsa\" \"-target-cpu\" \"gfx940\" \"-x\" \"hip\"\n"
      "k.hip:1:1: remark: Function Name: _Z1kv [-Rpass-analysis=kernel-resource-usage]\n"
      "k.hip:1:1: remark:     TotalSGPRs: 11 [-Rpass-analysis=kernel-resource-usage]\n"
      "k.hip:1:1: remark:     VGPRs: 7 [-Rpass-analysis=kernel-resource-usage]\n"
      " \"/usr/bin/clang-15\" \"-cc1\" \"-triple\" \"amdgcn-amd-amdhsa\" \"-target-cpu\" \"gfx90a\" \"-x\" \"hip\"\n"
      "k.hip:1:1: remark: Function Name: _Z1kv [-Rpass-analysis=kernel-resource-usage]\n"
      "k.hip:1:1: remark:     TotalSGPRs: 13 [-Rpass-analysis=kernel-resource-usage]\n"
      "k.hip:1:1: remark:     VGPRs: 9 [-Rpass-analysis=kernel-resource-usage]\n";
  // The hints win over the sorted-order rule, which would say gfx90a first.
  const std::vector<std::string> archs = {"gfx90a", "gfx940"};
  const auto rs = parse_amd_resource_usage(log, archs);
  ASSERT_EQ(rs.size(), 2U);
  EXPECT_EQ(rs[0].arch, "gfx940");
  EXPECT_EQ(rs[0].sgprs, 11);
  EXPECT_EQ(rs[1].arch, "gfx90a");
  EXPECT_EQ(rs[1].vgprs, 9);
}

// test/runtime/data/nvidia_resource_usage.log: real nvcc 13.0 output (-Xptxas -v -maxrregcount=24)
// for nvidia_resource_usage.cu built for sm_90 and sm_80.
TEST(resource_usage, nvidia_sample_log) {
  const auto log = rocmtpl::test::read_file(data_dir + "nvidia_resource_usage.log");
  ASSERT_FALSE(log.empty());
  const auto rs = parse_nvidia_resource_usage(log);
  ASSERT_EQ(rs.size(), 6U);
  const auto* heavy90 = find(rs, "_Z12heavy_kernelPKfPf", "sm_90");
  const auto* heavy80 = find(rs, "_Z12heavy_kernelPKfPf", "sm_80");
  ASSERT_NE(heavy90, nullptr);
  ASSERT_NE(heavy80, nullptr);
  EXPECT_EQ(heavy90->registers, 24);
  EXPECT_EQ(heavy90->stack_bytes, 480);
  EXPECT_EQ(heavy90->spill_store_bytes, 800);
  EXPECT_EQ(heavy90->spill_load_bytes, 824);
  EXPECT_TRUE(heavy90->spills());
  EXPECT_EQ(heavy80->spill_store_bytes, 832);
  EXPECT_EQ(heavy80->const_bytes, 368);

  const auto* tiled = find(rs, "_Z5tiledILi256EEvPKfPf", "sm_90");
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ(tiled->kernel, "void tiled<256>(float const*, float*)");
  EXPECT_EQ(tiled->registers, 14);
  EXPECT_EQ(tiled->barriers, 1);
  EXPECT_EQ(tiled->shared_bytes, 1024);
  EXPECT_FALSE(tiled->spills());

  // helper()'s "Function properties" (printed after uses_helper's entry) are not charged to it;
  // uses_helper's own 64-byte frame is.
  const auto* uses = find(rs, "_Z11uses_helperPfi", "sm_80");
  ASSERT_NE(uses, nullptr);
  EXPECT_EQ(uses->stack_bytes, 64);
  EXPECT_EQ(uses->registers, 24);
  EXPECT_EQ(uses->const_bytes, 364);
}

// The attribution rule checked against the installed clang: compile a kernel whose LDS size
// differs per arch, passing the archs in non-sorted order.
TEST(resource_usage, amd_live_hipcc_attribution) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto src = dir / "lds.hip";
  rocmtpl::test::write_file(src, R"(#include <hip/hip_runtime.h>
__global__ void per_arch(float* y) {
#if defined(__gfx940__)
  __shared__ float t[940];
#else
  __shared__ float t[90];
#endif
  t[threadIdx.x] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = t[threadIdx.x ^ 1];
}
)");
  compile_options o;
  o.platform = platform::amd;
  o.archs = {"gfx940", "gfx90a"};
  const auto r = cc.compile(src, o, dir / "lds.so");
  ASSERT_EQ(r.resources.size(), 2U) << r.log;
  const auto* a = find(r.resources, "_Z8per_archPf", "gfx90a");
  const auto* b = find(r.resources, "_Z8per_archPf", "gfx940");
  ASSERT_NE(a, nullptr) << r.log;
  ASSERT_NE(b, nullptr) << r.log;
  EXPECT_EQ(a->lds_bytes, 360);
  EXPECT_EQ(b->lds_bytes, 3760);
  EXPECT_GT(a->vgprs, 0);
  EXPECT_GT(a->sgprs, 0);
}

TEST(resource_usage, nvidia_live_nvcc) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::nvidia);
  temp_dir dir;
  const auto src = dir / "k.cu";
  rocmtpl::test::write_file(src, R"(
__global__ void heavy(const float* __restrict__ x, float* __restrict__ y) {
  float acc[48];
#pragma unroll
  for (int j = 0; j < 48; ++j) acc[j] = x[threadIdx.x * 48 + j];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int j = 0; j < 48; ++j) acc[j] = acc[j] * acc[(j + r + 1) % 48] + 1.f;
  float s = 0;
#pragma unroll
  for (int j = 0; j < 48; ++j) s += acc[j] * (j + 1);
  y[threadIdx.x] = s;
}
__global__ void shared_user(float* y) {
  __shared__ float t[512];
  t[threadIdx.x] = y[threadIdx.x];
  __syncthreads();
  y[threadIdx.x] = t[511 - threadIdx.x];
}
)");
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {"sm_90", "sm_80"};
  o.extra_flags = {"-maxrregcount=24"};
  const auto r = cc.compile(src, o, dir / "k.so");
  ASSERT_EQ(r.resources.size(), 4U) << r.log;
  for (const char* arch : {"sm_80", "sm_90"}) {
    const auto* heavy = find(r.resources, "_Z5heavyPKfPf", arch);
    ASSERT_NE(heavy, nullptr) << arch << "\n" << r.log;
    EXPECT_LE(heavy->registers, 24);
    EXPECT_TRUE(heavy->spills()) << to_string(*heavy);
    const auto* shared = find(r.resources, "_Z11shared_userPf", arch);
    ASSERT_NE(shared, nullptr) << arch;
    EXPECT_EQ(shared->shared_bytes, 2048);
    EXPECT_EQ(shared->barriers, 1);
    EXPECT_FALSE(shared->spills());
  }
}

}  // namespace
