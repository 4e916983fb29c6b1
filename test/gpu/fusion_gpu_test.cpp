// SPDX-License-Identifier: MIT
// Epilogue fusion on the GPU (issue 12): for every math path (SIMT fp32, SIMT split-K, mma/MFMA f16
// and bf16, matrix-core split-K, Hopper f16 on sm_90) a module GEMM -> six pointwise nodes that
// together use every epilogue op and broadcast runs fused (one kernel) and unfused (seven kernels) on
// the same inputs; the outputs agree within the dtype's rounding. Fused modules agree with the
// GEMM's reference kernel rendered with the same chain; a fused module's ahead-of-time artifact
// gives the same bits. Label gpu; skips without a GPU or a compiler.
#include <rocmtpl/module.hpp>
#include <rocmtpl/runtime/aot/module_loader.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include "support/fusion.hpp"
#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
namespace fu = rocmtpl::test::fusion;
using rocmtpl::test::temp_dir;

std::uint16_t to_half(float f) {  // exact for the test's values (normal numbers of <= 11 bits)
  if (f == 0.0F) return 0;
  std::uint32_t b = 0;
  std::memcpy(&b, &f, 4);
  const std::uint32_t sign = (b >> 16) & 0x8000U;
  const int exp = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  const std::uint32_t mant = (b >> 13) & 0x3ffU;
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exp) << 10) | mant);
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000U) << 16;
  const int exp = (h >> 10) & 0x1f;
  const std::uint32_t mant = h & 0x3ffU;
  float f = 0;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    f = mant ? NAN : INFINITY;
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400U), exp - 25);
  }
  return sign ? -f : f;
}

std::vector<std::uint8_t> encode(const std::vector<float>& v, dtype t) {
  std::vector<std::uint8_t> out(v.size() * element_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (t == dtype::f32) {
      std::memcpy(&out[4 * i], &v[i], 4);
    } else {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v[i], 4);
      const auto h = t == dtype::f16 ? to_half(v[i]) : static_cast<std::uint16_t>(bits >> 16);
      std::memcpy(&out[2 * i], &h, 2);
    }
  }
  return out;
}

std::vector<double> decode(const std::vector<std::uint8_t>& bytes, dtype t) {
  std::vector<double> out(bytes.size() / element_size(t));
  for (std::size_t i = 0; i < out.size(); ++i) {
    float f = 0;
    if (t == dtype::f32) {
      std::memcpy(&f, &bytes[4 * i], 4);
    } else {
      std::uint16_t h = 0;
      std::memcpy(&h, &bytes[2 * i], 2);
      if (t == dtype::f16) {
        f = from_half(h);
      } else {
        const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
        std::memcpy(&f, &bits, 4);
      }
    }
    out[i] = f;
  }
  return out;
}

// Inputs by graph name: values k/64, |k| <= 64, exact in every dtype.
std::map<std::string, std::vector<float>> make_inputs(const module_source& m, const size_hints& sizes,
                                                      std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-64, 64);
  std::map<std::string, std::vector<float>> out;
  for (const auto& b : m.inputs) {
    std::vector<float> v(static_cast<std::size_t>(b.get_layout().numel().evaluate(sizes)));
    for (auto& x : v) x = static_cast<float>(d(rng)) / 64.0F;
    out[b.name()] = std::move(v);
  }
  return out;
}

// Runs a module on the inputs (by graph name); returns its one output, decoded (poisoned first).
std::vector<double> run(const module_source& src, const loaded_module& mod,
                        const std::map<std::string, std::vector<float>>& in, const size_hints& sizes) {
  runtime::stream s;
  std::vector<device_buffer> keep;
  std::vector<const void*> inputs;
  for (const auto& b : src.inputs) {
    const auto bytes = encode(in.at(b.name()), b.type());
    keep.emplace_back(bytes.size());
    keep.back().copy_from_host(bytes.data());
    inputs.push_back(keep.back().get());
  }
  const auto& y = src.outputs.at(0);
  const auto y_bytes = static_cast<std::size_t>(y.get_layout().numel().evaluate(sizes)) * element_size(y.type());
  device_buffer dy(y_bytes);
  std::vector<std::uint8_t> poison(y_bytes, 0xff);
  dy.copy_from_host(poison.data());
  device_buffer workspace(std::max<std::size_t>(1, mod.workspace_size(sizes)));
  mod.run(inputs, {dy.get()}, sizes, workspace.get(), s.get());
  s.synchronize();
  std::vector<std::uint8_t> out(y_bytes);
  dy.copy_to_host(out.data());
  return decode(out, y.type());
}

double tolerance(dtype t) { return t == dtype::f32 ? 1e-5 : (t == dtype::f16 ? 2e-3 : 1.6e-2); }

struct gpu_setup {
  compile_options options;
  std::optional<compiler> cc;
  std::string skip;
  std::string arch;
};

gpu_setup setup() {
  gpu_setup g;
  const auto props = gpu_runtime::instance().properties(0);
  g.arch = props.arch;
  g.options = compile_options_for(props);
  try {
    g.cc = compiler::find(g.options.platform);
  } catch (const compiler_not_found_error& e) {
    g.skip = e.what();
  }
  return g;
}

TEST(FusionGpu, EveryOpOnEveryMathPathMatchesTheUnfusedModule) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-fusion-gpu"};
  code_cache cache(dir.path() / "cache");
  for (const auto& c : fu::gpu_paths()) {
    if (c.hopper && g.arch != "sm_90") {
      std::cout << "[ fusion ] " << c.name << ": skipped (device " << g.arch << " is not sm_90)\n";
      continue;
    }
    SCOPED_TRACE(c.name);
    const auto fused_src = fu::emit_chain_module("fused_" + c.name, c.p, fu::every_op(), c.p.type, true);
    const auto unfused_src = fu::emit_chain_module("unfused_" + c.name, c.p, fu::every_op(), c.p.type, false);
    ASSERT_EQ(fused_src.calls.size(), 1U) << (fused_src.notes.empty() ? "" : fused_src.notes[0]);
    ASSERT_EQ(unfused_src.calls.size(), fu::every_op().size() + 1);
    const auto fused = loaded_module::compile(fused_src, *g.cc, g.options, cache);
    const auto unfused = loaded_module::compile(unfused_src, *g.cc, g.options, cache);
    for (std::int64_t m : {517, 64}) {
      const size_hints sizes{{"M", m}};
      const auto in = make_inputs(fused_src, sizes, 5U + static_cast<std::uint32_t>(m));
      const auto a = run(fused_src, fused, in, sizes);
      const auto b = run(unfused_src, unfused, in, sizes);
      ASSERT_EQ(a.size(), b.size());
      std::size_t bad = 0;
      std::size_t nonzero = 0;
      double worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double err = std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i]));
        if (!(err <= tolerance(c.p.type))) ++bad;  // NaN counts as bad
        worst = std::max(worst, std::isfinite(err) ? err : 1e30);
        nonzero += b[i] != 0.0 ? 1 : 0;
      }
      EXPECT_EQ(bad, 0U) << "M=" << m << ": worst relative difference " << worst;
      EXPECT_GT(nonzero, a.size() / 2) << "M=" << m << ": the outputs are mostly zero";
      std::cout << "[ fusion ] " << c.name << " M=" << m << ": fused vs unfused worst relative difference " << worst
                << "\n";
    }
  }
}

// The GEMM's reference kernel with the same chain the scheduler fuses (cast to the GEMM's dtype, then
// the chain): X, W, E0 (bias [N], f32), E1 (d [M, N]), Y; the entry point takes M.
std::vector<double> run_fused_reference(const fu::gemm_problem& p, const compiler& cc, const compile_options& opts,
                                        code_cache& cache, const module_source& src,
                                        const std::map<std::string, std::vector<float>>& in, std::int64_t m) {
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  const auto y = layout::row_major(p.type, {p.m, p.n});
  rocm_template<templates::gemm_policy> t(templates::gemm_policy(), {x, w}, y);
  fused_epilogue e;
  e.chain.ops.push_back(epilogue_op::cast(p.type));
  e.chain = e.chain.then(fu::bias_gelu_mul(), 0);
  e.inputs = {buffer("rocmtpl_epilogue_in0", layout::row_major(dtype::f32, {p.n})), buffer("rocmtpl_epilogue_in1", y)};
  e.output = buffer("rocmtpl_epilogue_out", y);
  rocm_template_kernel k("fused_reference");
  const auto parts = t.policy().render_epilogue_reference(k, t.context(), e);
  const auto lib = std::make_shared<shared_library>(cache.get_or_compile(cc, parts.str(), opts).library);
  kernel_entry entry(lib, parts.entry_name, parts.signature);
  runtime::stream s;
  std::vector<device_buffer> keep;
  std::vector<const void*> ptrs;
  for (const auto& b : src.inputs) {  // x, w, bias, d: the reference's X, W, E0, E1
    const auto bytes = encode(in.at(b.name()), b.type());
    keep.emplace_back(bytes.size());
    keep.back().copy_from_host(bytes.data());
    ptrs.push_back(keep.back().get());
  }
  const auto y_bytes = static_cast<std::size_t>(m * p.n.evaluate({})) * element_size(p.type);
  device_buffer dy(y_bytes);
  ptrs.push_back(dy.get());
  EXPECT_EQ(entry.call(ptrs, {m}, nullptr, nullptr, s.get()), kernel_status::ok);
  s.synchronize();
  std::vector<std::uint8_t> out(y_bytes);
  dy.copy_to_host(out.data());
  return decode(out, p.type);
}

TEST(FusionGpu, FusedModulesMatchTheFusedReferenceKernel) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-fusion-gpu"};
  code_cache cache(dir.path() / "cache");
  for (const auto& c : fu::gpu_paths()) {
    if (c.hopper && g.arch != "sm_90") continue;
    SCOPED_TRACE(c.name);
    const auto src = fu::emit_chain_module("ref_" + c.name, c.p, {fu::bias_gelu_mul()}, c.p.type, true);
    ASSERT_EQ(src.calls.size(), 1U);
    const auto mod = loaded_module::compile(src, *g.cc, g.options, cache);
    const std::int64_t m = 300;
    const size_hints sizes{{"M", m}};
    const auto in = make_inputs(src, sizes, 21U);
    const auto a = run(src, mod, in, sizes);
    const auto b = run_fused_reference(c.p, *g.cc, g.options, cache, src, in, m);
    ASSERT_EQ(a.size(), b.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!(std::abs(a[i] - b[i]) <= tolerance(c.p.type) * std::max(1.0, std::abs(b[i])))) ++bad;
    }
    EXPECT_EQ(bad, 0U);
  }
}

TEST(FusionGpu, FusedAheadOfTimeArtifactGivesTheSameBits) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-fusion-gpu"};
  fu::gemm_problem p;
  p.config = fu::mma_config();
  p.n = sym_expr(128);
  p.k = sym_expr(128);
  const auto src = fu::emit_chain_module("fused_aot", p, {fu::bias_gelu_mul()}, dtype::f16, true);
  ASSERT_EQ(src.calls.size(), 1U);
  const size_hints sizes{{"M", 300}};
  const auto in = make_inputs(src, sizes, 9U);
  std::vector<double> first;
  std::filesystem::path manifest;
  {
    code_cache cache(dir.path() / "cache");
    const auto mod = loaded_module::compile(src, *g.cc, g.options, cache);
    first = run(src, mod, in, sizes);
    manifest = mod.save(dir.path() / "artifact");
    cache.clear();  // the artifact must stand alone
  }
  const auto loaded = loaded_module::load(manifest);
  EXPECT_EQ(loaded.workspace_size(sizes), 0U);  // no intermediate
  EXPECT_EQ(run(src, loaded, in, sizes), first);
}

}  // namespace
