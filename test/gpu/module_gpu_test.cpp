// SPDX-License-Identifier: MIT
// A three-node module (gemm -> bias + gelu -> gemm, symbolic batch M) compiled for the GPU present,
// run, and compared with a host reference in double precision; the same module reloaded from its
// ahead-of-time artifact gives the same bits; its standalone runner runs. Label gpu; skips without
// a GPU or a compiler.
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/aot/module_loader.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include <unistd.h>

namespace {
namespace fs = std::filesystem;
using rocmtpl::test::temp_dir;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::activation;
using templates::elementwise_config;
using templates::elementwise_policy;
using templates::gemm_config;
using templates::gemm_policy;

constexpr std::int64_t k_in = 200;    // x: [M, 200]
constexpr std::int64_t hidden = 300;  // w1: [200, 300], b1: [300]
constexpr std::int64_t n_out = 70;    // w2: [300, 70], y: [M, 70]

module_source mlp_module(dtype t) {
  const auto m = sym_expr::symbol("M");
  const buffer x("x", layout::row_major(t, {m, k_in}));
  const buffer w1("w1", layout::row_major(t, {k_in, hidden}));
  const buffer b1("b1", layout::row_major(t, {hidden}));
  const buffer w2("w2", layout::row_major(t, {hidden, n_out}));
  const auto h = layout::row_major(t, {m, hidden});
  const size_hints hints{{"M", 517}};
  rocm_template<gemm_policy> up(gemm_policy(), {x, w1}, h);
  rocm_template<elementwise_policy> act(elementwise_policy({activation::gelu}), {buffer("h", h), b1}, h);
  rocm_template<gemm_policy> down(gemm_policy(), {buffer("a", h), w2}, layout::row_major(t, {m, n_out}));
  module_graph g("mlp_" + std::string(name(t)));
  g.add_input(x).add_input(w1).add_input(b1).add_input(w2);
  g.add_node("h", up.generate(gemm_config{}, hints).output_node());
  g.add_node("a", act.generate(elementwise_config{}, hints).output_node());
  g.add_node("y", down.generate(gemm_config{}, hints).output_node());
  g.add_output("y");
  module_options o;
  o.runner_sizes = {{"M", 1024}};
  return emit_module(g, o);
}

// Values k/64, |k| <= 64: exact in f32 and bf16, so both dtypes see the same inputs.
std::vector<float> random_values(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-64, 64);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(d(rng)) / 64.0F;
  return v;
}

std::vector<std::uint8_t> encode(const std::vector<float>& v, dtype t) {
  std::vector<std::uint8_t> out(v.size() * element_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v[i], 4);
    if (t == dtype::f32) {
      std::memcpy(&out[4 * i], &bits, 4);
    } else {  // bf16: the upper half (exact for these values)
      const auto half = static_cast<std::uint16_t>(bits >> 16);
      std::memcpy(&out[2 * i], &half, 2);
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
      std::uint16_t half = 0;
      std::memcpy(&half, &bytes[2 * i], 2);
      const std::uint32_t bits = static_cast<std::uint32_t>(half) << 16;
      std::memcpy(&f, &bits, 4);
    }
    out[i] = f;
  }
  return out;
}

struct inputs {
  std::vector<float> x, w1, b1, w2;
};

inputs make_inputs(std::int64_t m, std::uint32_t seed) {
  std::mt19937 rng(seed);
  inputs in;
  in.x = random_values(static_cast<std::size_t>(m * k_in), rng);
  in.w1 = random_values(static_cast<std::size_t>(k_in * hidden), rng);
  in.b1 = random_values(static_cast<std::size_t>(hidden), rng);
  in.w2 = random_values(static_cast<std::size_t>(hidden * n_out), rng);
  return in;
}

// y = gelu(x @ w1 + b1) @ w2 in double.
std::vector<double> reference(const inputs& in, std::int64_t m) {
  std::vector<double> a(static_cast<std::size_t>(m * hidden));
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t j = 0; j < hidden; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < k_in; ++k) s += double(in.x[r * k_in + k]) * double(in.w1[k * hidden + j]);
      const double v = s + in.b1[j];
      a[r * hidden + j] = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    }
  }
  std::vector<double> y(static_cast<std::size_t>(m * n_out));
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t n = 0; n < n_out; ++n) {
      double s = 0;
      for (std::int64_t j = 0; j < hidden; ++j) s += a[r * hidden + j] * double(in.w2[j * n_out + n]);
      y[r * n_out + n] = s;
    }
  }
  return y;
}

double relative_l2(const std::vector<double>& out, const std::vector<double>& ref) {
  double d2 = 0, r2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    d2 += (out[i] - ref[i]) * (out[i] - ref[i]);
    r2 += ref[i] * ref[i];
  }
  return r2 > 0 ? std::sqrt(d2 / r2) : std::sqrt(d2);
}

// Runs a loaded module for one M on fresh device buffers; returns y's bytes (y is poisoned first).
std::vector<std::uint8_t> run(const loaded_module& mod, const inputs& in, std::int64_t m, dtype t) {
  runtime::stream s;
  auto upload = [&](const std::vector<float>& v) {
    const auto bytes = encode(v, t);
    device_buffer b(bytes.size());
    if (!bytes.empty()) b.copy_from_host(bytes.data());
    return b;
  };
  auto dx = upload(in.x);
  auto dw1 = upload(in.w1);
  auto db1 = upload(in.b1);
  auto dw2 = upload(in.w2);
  const std::size_t y_bytes = static_cast<std::size_t>(m * n_out) * element_size(t);
  device_buffer dy(y_bytes);
  std::vector<std::uint8_t> poison(y_bytes, 0xff);  // NaN in f32 and bf16
  if (y_bytes > 0) dy.copy_from_host(poison.data());
  device_buffer workspace(mod.workspace_size({{"M", m}}));
  mod.run({dx.get(), dw1.get(), db1.get(), dw2.get()}, {dy.get()}, {{"M", m}}, workspace.get(), s.get());
  s.synchronize();
  std::vector<std::uint8_t> out(y_bytes);
  if (y_bytes > 0) dy.copy_to_host(out.data());
  return out;
}

struct gpu_setup {
  compile_options options;
  std::optional<compiler> cc;
  std::string skip;
};

gpu_setup setup() {
  gpu_setup g;
  g.options = compile_options_for(gpu_runtime::instance().properties(0));
  try {
    g.cc = compiler::find(g.options.platform);
  } catch (const compiler_not_found_error& e) {
    g.skip = e.what();
  }
  return g;
}

TEST(ModuleGpu, ThreeNodeModuleMatchesTheHostReference) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-module-gpu"};
  code_cache cache(dir.path() / "cache");
  const auto source = mlp_module(dtype::f32);
  const auto mod = loaded_module::compile(source, *g.cc, g.options, cache);
  // M not a multiple of any tile, a small one, and an empty batch: one library for all of them.
  for (std::int64_t m : {517, 33, 0}) {
    const auto in = make_inputs(m, 7U + static_cast<std::uint32_t>(m));
    const auto out = decode(run(mod, in, m, dtype::f32), dtype::f32);
    const auto ref = reference(in, m);
    ASSERT_EQ(out.size(), ref.size());
    std::size_t nonfinite = 0;
    for (double v : out) nonfinite += std::isfinite(v) ? 0 : 1;
    EXPECT_EQ(nonfinite, 0U) << "M=" << m << ": outputs left unwritten";
    EXPECT_LT(relative_l2(out, ref), 1e-5) << "M=" << m;
  }
}

TEST(ModuleGpu, Bf16ModuleMatchesTheHostReference) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-module-gpu"};
  code_cache cache(dir.path() / "cache");
  const auto mod = loaded_module::compile(mlp_module(dtype::bf16), *g.cc, g.options, cache);
  const std::int64_t m = 300;
  const auto in = make_inputs(m, 11U);
  const auto out = decode(run(mod, in, m, dtype::bf16), dtype::bf16);
  // bf16 keeps 8 bits: h, a and y are each rounded once.
  EXPECT_LT(relative_l2(out, reference(in, m)), 2e-2);
}

TEST(ModuleGpu, AheadOfTimeArtifactGivesTheSameBits) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-module-gpu"};
  std::vector<std::uint8_t> first;
  const std::int64_t m = 129;
  const auto in = make_inputs(m, 3U);
  fs::path manifest;
  {
    code_cache cache(dir.path() / "cache");
    const auto mod = loaded_module::compile(mlp_module(dtype::f32), *g.cc, g.options, cache);
    first = run(mod, in, m, dtype::f32);
    manifest = mod.save(dir.path() / "artifact");
    cache.clear();  // the artifact must stand alone
  }
  const auto loaded = loaded_module::load(manifest);
  EXPECT_EQ(run(loaded, in, m, dtype::f32), first);
  // A missing output is reported, not written through.
  device_buffer workspace(loaded.workspace_size({{"M", m}}));
  device_buffer x(static_cast<std::size_t>(m * k_in) * 4);
  device_buffer w1(static_cast<std::size_t>(k_in * hidden) * 4);
  device_buffer b1(static_cast<std::size_t>(hidden) * 4);
  device_buffer w2(static_cast<std::size_t>(hidden * n_out) * 4);
  try {
    loaded.run({x.get(), w1.get(), b1.get(), w2.get()}, {nullptr}, {{"M", m}}, workspace.get(), nullptr);
    FAIL() << "expected kernel_status_error";
  } catch (const kernel_status_error& e) {
    EXPECT_EQ(e.code(), kernel_status::null_argument);
  }
}

TEST(ModuleGpu, StandaloneRunnerRunsOnTheGpu) {
  ROCMTPL_REQUIRE_GPU();
  auto g = setup();
  if (!g.cc) GTEST_SKIP() << g.skip;
  temp_dir dir{"rocmtpl-module-gpu"};
  const auto exe = build_standalone_runner(mlp_module(dtype::f32), *g.cc, g.options, dir.path() / "mlp_runner");
  const auto r = run_process({exe.string(), "M=257", "--iters=3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mlp_float32: M=257 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ms per run (3 runs)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("checksum(y) = "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("nan"), std::string::npos) << r.output;
}

}  // namespace
