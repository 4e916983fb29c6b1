// SPDX-License-Identifier: MIT
// The AMD math paths run and verified on the CPU (issue 23, label amd-emu): the generated sources,
// compiled by clang++ for the AMD emulator (runtime/build/amd_emulator.hpp), run block by block on
// wave64 lanes with every load and store checked. Each case runs the GEMM's entry point and the
// template's reference kernel (both emulated) on the same seeded inputs and checks both against a
// double-precision host product with the epilogue; sizes leave partial tiles along M, N and K. The
// fused epilogue chains compare fused and unfused modules; the helper kernels are checked against the
// host. Kernels are compiled at -O1 into a cache in the build folder (kept between runs).

#include <rocmtpl/runtime.hpp>

#include "support/fusion.hpp"
#include "support/gemm.hpp"
#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::activation;
using templates::bias_dim;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

const sym_expr sM = sym_expr::symbol("M");
const sym_expr sN = sym_expr::symbol("N");
const sym_expr sK = sym_expr::symbol("K");

// ---------------------------------------------------------------------------------------------
// The emulator in this process: clang++, its runtime library, a kernel cache in the build folder.
// ---------------------------------------------------------------------------------------------
struct emulator {
  rocmtpl::test::scoped_env cache_dir{"ROCMTPL_CACHE_DIR", std::string(ROCMTPL_TEST_BINARY_DIR) + "/amd-emu-cache"};
  std::optional<compiler> cc;
  std::optional<amd_emulator_runtime> rt;
  std::optional<code_cache> cache;
  compile_options options = amd_emulator_compile_options("gfx90a", 1);
  std::string skip;

  emulator() {
    try {
      cc = amd_emulator_compiler();
    } catch (const compiler_not_found_error& e) {
      skip = e.what();
      return;
    }
    rt.emplace(cc->amd_emulator_runtime());
    cache.emplace(cache_root() / "kernels");
  }

  // Compiles several sources at once (two at a time: the CI machine's cores).
  std::vector<compile_result> compile(const std::vector<std::string>& sources) {
    std::vector<std::optional<compile_result>> out(sources.size());
    std::vector<std::string> errors(sources.size());
    std::atomic<std::size_t> next{0};
    {
      std::vector<std::jthread> pool;
      for (int j = 0; j < 2; ++j) {
        pool.emplace_back([&] {
          for (std::size_t i = next++; i < sources.size(); i = next++) {
            try {
              out[i] = cache->get_or_compile(*cc, sources[i], options);
            } catch (const std::exception& e) {
              errors[i] = e.what();
            }
          }
        });
      }
    }
    std::vector<compile_result> results;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (!out[i]) throw std::runtime_error("emulated compile failed: " + errors[i].substr(0, 6000));
      results.push_back(*out[i]);
    }
    return results;
  }
};

emulator& emu() {
  static emulator e;
  return e;
}

#define ROCMTPL_REQUIRE_EMULATOR() \
  if (!emu().skip.empty()) GTEST_SKIP() << emu().skip

// ---------------------------------------------------------------------------------------------
// Host numbers and tensors in emulated device memory.
// ---------------------------------------------------------------------------------------------
std::uint16_t to_half(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  std::uint16_t u = 0;
  std::memcpy(&u, &h, sizeof u);
  return u;
}
float from_half(std::uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, sizeof h);
  return static_cast<float>(h);
}
std::uint16_t to_bf16(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<std::uint16_t>((u + 0x7fffU + ((u >> 16) & 1U)) >> 16);
}
float from_bf16(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
float round_to(dtype t, float v) {
  if (t == dtype::f16) return from_half(to_half(v));
  if (t == dtype::bf16) return from_bf16(to_bf16(v));
  return v;
}

struct tensor {
  tensor_meta meta;
  std::vector<float> values;  // one per storage element
  std::shared_ptr<amd_emulator_buffer> buffer;

  [[nodiscard]] std::size_t elements() const {
    return static_cast<std::size_t>(std::max<std::int64_t>(1, meta.storage_elements()));
  }
  [[nodiscard]] void* data() const { return buffer->get(); }

  void store() {
    auto* p = static_cast<std::uint8_t*>(buffer->get());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (meta.type == dtype::f32) {
        std::memcpy(p + 4 * i, &values[i], 4);
      } else {
        const std::uint16_t b = meta.type == dtype::f16 ? to_half(values[i]) : to_bf16(values[i]);
        std::memcpy(p + 2 * i, &b, 2);
      }
    }
  }
  [[nodiscard]] std::vector<float> load() const {
    const auto* p = static_cast<const std::uint8_t*>(buffer->get());
    std::vector<float> out(elements());
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (meta.type == dtype::f32) {
        std::memcpy(&out[i], p + 4 * i, 4);
      } else {
        std::uint16_t b = 0;
        std::memcpy(&b, p + 2 * i, 2);
        out[i] = meta.type == dtype::f16 ? from_half(b) : from_bf16(b);
      }
    }
    return out;
  }
};

// Storage of every tensor: emulated device memory, 0xff bytes (NaN) until written.
tensor allocate(const tensor_meta& meta) {
  tensor t{meta, {}, nullptr};
  t.buffer = std::make_shared<amd_emulator_buffer>(*emu().rt, t.elements() * element_size(meta.type));
  return t;
}

tensor make_input(const tensor_meta& meta, std::mt19937_64& rng) {
  tensor t = allocate(meta);
  std::uniform_real_distribution<float> d(-1.0F, 1.0F);
  t.values.resize(t.elements());
  for (auto& v : t.values) v = round_to(meta.type, d(rng));
  t.store();
  return t;
}

// (batch, row, col) -> storage index of an operand; missing or size-1 dims broadcast.
struct view_3d {
  std::int64_t sb = 0, sr = 0, sc = 0, offset = 0;
};
view_3d view_of(const tensor_meta& m, bool rank1_along_rows = false) {
  view_3d v;
  v.offset = m.offset;
  const auto r = m.sizes.size();
  auto s = [&](std::size_t i) { return m.sizes[i] == 1 ? 0 : m.strides[i]; };
  if (r == 1) {
    (rank1_along_rows ? v.sr : v.sc) = s(0);
  } else {
    v.sr = s(r - 2);
    v.sc = s(r - 1);
    if (r == 3) v.sb = s(0);
  }
  return v;
}

float activate(activation a, float v) {
  switch (a) {
    case activation::relu: return v > 0.0F ? v : 0.0F;
    case activation::gelu: return 0.5F * v * (1.0F + std::erf(v * 0.70710678118654752F));
    case activation::gelu_tanh:
      return 0.5F * v * (1.0F + std::tanh(0.79788456080286536F * (v + 0.044715F * v * v * v)));
    case activation::silu: return v / (1.0F + std::exp(-v));
    case activation::sigmoid: return 1.0F / (1.0F + std::exp(-v));
    case activation::tanh: return std::tanh(v);
    case activation::none: break;
  }
  return v;
}

double tolerance(dtype out) { return out == dtype::f16 ? 2e-3 : (out == dtype::bf16 ? 1.6e-2 : 1e-4); }

// One emulated call of an entry; the tensors in C ABI order (inputs, then the output).
kernel_status call(const compile_result& lib, const std::string& name, const entry_signature& sig,
                   const std::vector<const tensor*>& tensors, const std::vector<std::int64_t>& extra) {
  kernel_entry k(std::make_shared<shared_library>(lib.library), name, sig);
  const std::size_t ws_bytes = k.workspace_size(extra);
  std::optional<amd_emulator_buffer> ws;
  if (ws_bytes > 0) ws.emplace(*emu().rt, ws_bytes);
  std::vector<const void*> ptrs;
  for (const auto* t : tensors) ptrs.push_back(t->data());
  return k.call(ptrs, extra, nullptr, ws ? ws->get() : nullptr, nullptr);
}

// ---------------------------------------------------------------------------------------------
// A GEMM case: its template, configuration and the shapes it runs (the first one renders).
// ---------------------------------------------------------------------------------------------
struct gemm_case {
  std::string label;
  std::shared_ptr<rocm_template<gemm_policy>> tpl;
  gemm_options options;
  gemm_config config;
  std::vector<size_hints> shapes{{}};
};

// Checks `got` (the output's storage) against alpha * X W + beta * Bias -> activation -> + Residual
// in double, rounded to the output dtype; elements outside the view must keep their NaN bytes.
::testing::AssertionResult matches_host(const gemm_case& c, const std::vector<tensor>& inputs, const tensor& out,
                                        const std::vector<float>& got) {
  const auto& nodes = c.tpl->input_nodes();
  const tensor* x = nullptr;
  const tensor* w = nullptr;
  const tensor* bias = nullptr;
  const tensor* res = nullptr;
  for (const auto& t : inputs) {
    if (t.meta.name == nodes[0].name()) x = &t;
    if (t.meta.name == nodes[1].name()) w = &t;
    const bool has_bias = nodes.size() > (c.options.residual ? 3U : 2U);
    if (has_bias && t.meta.name == nodes[2].name()) bias = &t;
    if (c.options.residual && t.meta.name == nodes.back().name()) res = &t;
  }
  const auto& ym = out.meta;
  const bool batched = ym.sizes.size() == 3;
  const std::int64_t nb = batched ? ym.sizes[0] : 1;
  const std::int64_t m = ym.sizes[ym.sizes.size() - 2];
  const std::int64_t n = ym.sizes.back();
  const std::int64_t k = x->meta.sizes.back();
  const auto xv = view_of(x->meta), wv = view_of(w->meta), yv = view_of(ym);
  const bool along_m = c.options.bias_along == bias_dim::m;
  const auto bv = bias ? view_of(bias->meta, along_m) : view_3d{};
  const auto rv = res ? view_of(res->meta, along_m) : view_3d{};
  std::vector<bool> logical(got.size(), false);
  double max_ref = 0, max_err = 0;
  std::string worst;
  for (std::int64_t b = 0; b < nb; ++b) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t q = 0; q < k; ++q) {
          s += static_cast<double>(x->values[static_cast<std::size_t>(xv.offset + b * xv.sb + i * xv.sr + q * xv.sc)]) *
               w->values[static_cast<std::size_t>(wv.offset + b * wv.sb + q * wv.sr + j * wv.sc)];
        }
        float v = c.options.alpha * static_cast<float>(s);
        if (bias)
          v += c.options.beta * bias->values[static_cast<std::size_t>(bv.offset + b * bv.sb + i * bv.sr + j * bv.sc)];
        v = activate(c.options.act, v);
        if (res) v += res->values[static_cast<std::size_t>(rv.offset + b * rv.sb + i * rv.sr + j * rv.sc)];
        const double ref = round_to(ym.type, v);
        const auto index = static_cast<std::size_t>(yv.offset + b * yv.sb + i * yv.sr + j * yv.sc);
        logical[index] = true;
        const double e = std::fabs(static_cast<double>(got[index]) - ref);
        max_ref = std::max(max_ref, std::fabs(ref));
        if (!(e <= max_err)) {
          max_err = std::isnan(e) ? INFINITY : e;
          worst = "(" + std::to_string(b) + ", " + std::to_string(i) + ", " + std::to_string(j) +
                  "): " + std::to_string(got[index]) + " instead of " + std::to_string(ref);
        }
      }
    }
  }
  if (!(max_err <= tolerance(ym.type) * std::max(max_ref, 1e-3))) {
    return ::testing::AssertionFailure() << "max error " << max_err << " at " << worst << " (max |ref| " << max_ref
                                         << ")";
  }
  std::size_t touched = 0;
  for (std::size_t i = 0; i < got.size(); ++i) touched += !logical[i] && !std::isnan(got[i]) ? 1 : 0;
  if (touched != 0) return ::testing::AssertionFailure() << touched << " elements outside the output view written";
  return ::testing::AssertionSuccess();
}

// Renders, compiles (with the reference) and runs every case at every shape: the entry point and
// the reference kernel on the same inputs, both checked against the host.
void run_cases(std::vector<gemm_case>& cases) {
  std::vector<std::string> sources;
  for (const auto& c : cases) {
    sources.push_back(c.tpl->generate(c.config, c.shapes.front()).source());
    sources.push_back(c.tpl->generate_reference(c.shapes.front()).source());
  }
  const auto libs = emu().compile(sources);
  std::uint64_t seed = 1;
  for (const auto& c : cases) EXPECT_TRUE(templates::is_valid(c.config)) << c.label << " " << c.config.name();
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const auto& c = cases[ci];
    for (const auto& hints : c.shapes) {
      const auto caller = c.tpl->generate(c.config, hints);
      const auto& req = caller.bmreq();
      std::string shape;
      for (const auto& [k, v] : hints) shape += " " + k + "=" + std::to_string(v);
      SCOPED_TRACE(c.label + " " + c.config.name() + shape);
      ASSERT_EQ(req.source_code, sources[2 * ci]) << "the source depends on the hints";
      std::mt19937_64 rng(0x5eed ^ (seed++ * 0x9e3779b97f4a7c15ULL));
      std::vector<tensor> inputs;
      for (const auto& m : req.input_tensor_meta) inputs.push_back(make_input(m, rng));
      std::vector<const tensor*> ptrs;
      for (const auto& t : inputs) ptrs.push_back(&t);
      // The candidate.
      tensor out = allocate(req.output_tensor_meta);
      ptrs.push_back(&out);
      const auto rc = call(libs[2 * ci], req.kernel_name, req.signature, ptrs, req.extra_args);
      ASSERT_EQ(rc, kernel_status::ok) << emu().rt->last_message();
      EXPECT_TRUE(matches_host(c, inputs, out, out.load()));
      // The reference kernel: the sizes only.
      tensor ref = allocate(req.output_tensor_meta);
      ptrs.back() = &ref;
      const std::vector<std::int64_t> sizes(req.extra_args.begin(),
                                            req.extra_args.begin() + static_cast<std::ptrdiff_t>(req.size_arg_count));
      ASSERT_EQ(call(libs[2 * ci + 1], req.kernel_name, reference_signature(req), ptrs, sizes), kernel_status::ok)
          << emu().rt->last_message();
      EXPECT_TRUE(matches_host(c, inputs, ref, ref.load())) << "(the reference kernel)";
    }
  }
}

template <class... A>
std::shared_ptr<rocm_template<gemm_policy>> share(A&&... a) {
  return std::make_shared<rocm_template<gemm_policy>>(std::forward<A>(a)...);
}

// ---------------------------------------------------------------------------------------------
// The math paths.
// ---------------------------------------------------------------------------------------------

// MFMA 32x32x8 f16 and bf16_1k: two tilings, row- and column-major W, a misaligned X (the scalar
// copy variant), bias, residual and every activation; M, N and K leave partial tiles.
TEST(GemmEmu, MatrixCoresF16AndBf16) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<gemm_case> cases;
  for (dtype t : {dtype::f16, dtype::bf16}) {
    gemm_options o{.act = t == dtype::f16 ? activation::relu : activation::gelu};
    cases.push_back({std::string(name(t)) + " bias",
                     share(gemm_policy(o),
                           std::vector<buffer>{buffer("x", layout::row_major(t, {sM, sK})),
                                               buffer("w", layout::row_major(t, {sK, sN})),
                                               buffer("bias", layout::row_major(dtype::f32, {sN}))},
                           layout::row_major(t, {sM, sN})),
                     o,
                     gemm_test::mma(64, 64, 32, 32, 32, 2),
                     {{{"M", 130}, {"N", 96}, {"K", 72}}, {{"M", 7}, {"N", 33}, {"K", 8}}}});
    gemm_options r{.act = activation::silu, .residual = true};
    cases.push_back({std::string(name(t)) + " col-major W residual",
                     share(gemm_policy(r),
                           std::vector<buffer>{buffer("x", layout::row_major(t, {sM, sK})),
                                               buffer("w", layout::col_major(t, {sK, sN})),
                                               buffer("res", layout::row_major(t, {sM, sN}))},
                           layout::row_major(t, {sM, sN})),
                     r,
                     gemm_test::mma(128, 64, 32, 64, 32, 2),
                     {{{"M", 150}, {"N", 70}, {"K", 100}}}});
  }
  // X one element off its 16-byte alignment: the entry point takes the element-wise copy variant.
  gemm_options s{.act = activation::sigmoid, .alpha = 0.5F, .beta = 2.0F, .bias_along = bias_dim::m};
  const layout xo = layout::row_major(dtype::f16, {sM, 64}, 1);
  cases.push_back({"f16 misaligned X, bias along M",
                   share(gemm_policy(s),
                         std::vector<buffer>{buffer("x", xo), buffer("w", layout::row_major(dtype::f16, {64, 80})),
                                             buffer("bias", layout::row_major(dtype::f32, {sM}))},
                         layout::row_major(dtype::f16, {sM, 80})),
                   s,
                   gemm_test::mma(64, 64, 32, 32, 32, 2),
                   {{{"M", 67}}}});
  run_cases(cases);
}

// SIMT fp32 FMA (every dtype converts to fp32): f32, and f16 operands with an f32 output; the
// static split-K of the SIMT path (fp32 partials, then the reduction kernel).
TEST(GemmEmu, SimtF32AndStaticSplitK) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<gemm_case> cases;
  gemm_options o{.act = activation::gelu};
  const auto f32 = share(gemm_policy(o),
                         std::vector<buffer>{buffer("x", layout::row_major(dtype::f32, {sM, sK})),
                                             buffer("w", layout::row_major(dtype::f32, {sK, sN})),
                                             buffer("bias", layout::row_major(dtype::f32, {sN}))},
                         layout::row_major(dtype::f32, {sM, sN}));
  cases.push_back({"f32", f32, o, gemm_config{}, {{{"M", 70}, {"N", 66}, {"K", 40}}}});
  const gemm_config big = templates::simt_config{128, 64, 8, 8, 4, 4};
  cases.push_back({"f32 128x64", f32, o, big, {{{"M", 129}, {"N", 65}, {"K", 17}}}});
  // A 96-row tile, 12 rows a thread (3 quads 32 rows apart), split in K: rows past 96 and 192.
  const gemm_config rows96 = templates::simt_config{96, 128, 16, 12, 8, 8, 4, 2};
  cases.push_back({"f32 96x128 12x8", f32, o, rows96, {{{"M", 200}, {"N", 130}, {"K", 72}}}});
  const gemm_config split = templates::simt_config{.split_k = 3};
  cases.push_back({"f32 static split-K", f32, o, split, {{{"M", 33}, {"N", 40}, {"K", 200}}}});
  gemm_options h{.act = activation::relu, .bias_along = bias_dim::m};
  cases.push_back({"f16 in, f32 out, bias along M",
                   share(gemm_policy(h),
                         std::vector<buffer>{buffer("x", layout::col_major(dtype::f16, {sM, 48})),
                                             buffer("w", layout::row_major(dtype::f16, {48, 36})),
                                             buffer("bias", layout::row_major(dtype::f32, {sM}))},
                         layout::row_major(dtype::f32, {sM, 36})),
                   h,
                   gemm_config{},
                   {{{"M", 45}}}});
  run_cases(cases);
}

// Every activation of the one set (issue 25; gelu_tanh through the exponential, AMD having no tanh
// instruction) as the GEMM's built-in epilogue, SIMT f32 with a bias and alpha 2 (so that the
// activations see values of a few units): the entry point and the reference kernel against the host.
TEST(GemmEmu, EveryActivation) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<gemm_case> cases;
  for (const auto a : templates::all_activations) {
    gemm_options o{.act = a, .alpha = 2.0F};
    cases.push_back({"f32 " + std::string(to_string(a)),
                     share(gemm_policy(o),
                           std::vector<buffer>{buffer("x", layout::row_major(dtype::f32, {sM, sK})),
                                               buffer("w", layout::row_major(dtype::f32, {sK, sN})),
                                               buffer("bias", layout::row_major(dtype::f32, {sN}))},
                           layout::row_major(dtype::f32, {sM, sN})),
                     o,
                     gemm_config{},
                     {{{"M", 37}, {"N", 20}, {"K", 24}}}});
  }
  run_cases(cases);
}

// The skinny (matrix-vector) kernels: skinny_m streaming (row-major W) and dot (column-major W),
// skinny_n, in f32, f16 and bf16, whole K and static K slices (fp32 partials and the reduction).
TEST(GemmEmu, SkinnyKernels) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<gemm_case> cases;
  for (dtype t : {dtype::f16, dtype::bf16, dtype::f32}) {
    for (bool col_w : {false, true}) {
      gemm_options o{.act = activation::gelu, .bias_along = bias_dim::m};
      const auto tpl = share(
          gemm_policy(o),
          std::vector<buffer>{buffer("x", layout::row_major(t, {sM, sK})),
                              buffer("w", col_w ? layout::col_major(t, {sK, sN}) : layout::row_major(t, {sK, sN})),
                              buffer("bias", layout::row_major(dtype::f32, {sM}))},
          layout::row_major(t, {sM, sN}));
      const int vector = t == dtype::f32 ? 4 : 8;
      const std::string label = std::string(name(t)) + (col_w ? " dot" : " streaming");
      cases.push_back({label + " skinny_m",
                       tpl,
                       o,
                       gemm_test::skinny(templates::skinny_side::m, 4, 8, 32, 1, 8, vector, 1),
                       {{{"M", 3}, {"N", 300}, {"K", 203}}}});
      cases.push_back({label + " skinny_m split",
                       tpl,
                       o,
                       gemm_test::skinny(templates::skinny_side::m, 2, 4, 64, 2, 8, vector, 5),
                       {{{"M", 5}, {"N", 130}, {"K", 500}}}});
      cases.push_back({label + " skinny_n split",
                       tpl,
                       o,
                       gemm_test::skinny(templates::skinny_side::n, 4, 8, 32, 1, 8, vector, 3),
                       {{{"M", 200}, {"N", 6}, {"K", 333}}}});
    }
  }
  for (auto& c : cases) ASSERT_TRUE(templates::is_valid(c.config)) << c.label << " " << c.config.name();
  run_cases(cases);
}

// Runtime split-K: the entry takes split_k, writes fp32 partials to the workspace and reduces them
// with the epilogue (matrix cores and SIMT).
TEST(GemmEmu, RuntimeSplitKWithTheReduction) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<gemm_case> cases;
  gemm_options o{.act = activation::relu, .residual = true, .runtime_split_k = true};
  for (dtype t : {dtype::f16, dtype::f32}) {
    const auto tpl = share(
        gemm_policy(o),
        std::vector<buffer>{buffer("x", layout::row_major(t, {sM, sK})), buffer("w", layout::row_major(t, {sK, 72})),
                            buffer("res", layout::row_major(t, {sM, 72}))},
        layout::row_major(t, {sM, 72}));
    const gemm_config c = (t == dtype::f16 ? gemm_test::mma(64, 64, 32, 32, 32, 2) : gemm_config{}).with_split_k(3);
    cases.push_back({std::string(name(t)) + " split_k 3", tpl, o, c, {{{"M", 90}, {"K", 300}}}});
  }
  run_cases(cases);
}

// Batches: X [B, M, K] with W shared, and both batched (matrix cores and SIMT).
TEST(GemmEmu, Batched) {
  ROCMTPL_REQUIRE_EMULATOR();
  const auto b = sym_expr::symbol("B");
  std::vector<gemm_case> cases;
  gemm_options o{.act = activation::none};
  cases.push_back({"f16 W shared",
                   share(gemm_policy(o),
                         std::vector<buffer>{buffer("x", layout::row_major(dtype::f16, {b, sM, 40})),
                                             buffer("w", layout::row_major(dtype::f16, {40, 48}))},
                         layout::row_major(dtype::f16, {b, sM, 48})),
                   o,
                   gemm_test::mma(64, 64, 32, 32, 32, 2),
                   {{{"B", 3}, {"M", 70}}}});
  cases.push_back({"bf16 both batched",
                   share(gemm_policy(o),
                         std::vector<buffer>{buffer("x", layout::row_major(dtype::bf16, {b, 50, 40})),
                                             buffer("w", layout::row_major(dtype::bf16, {b, 40, 48}))},
                         layout::row_major(dtype::bf16, {b, 50, 48})),
                   o,
                   gemm_test::mma(64, 64, 32, 32, 32, 2),
                   {{{"B", 2}}}});
  cases.push_back({"f32 both batched",
                   share(gemm_policy(o),
                         std::vector<buffer>{buffer("x", layout::row_major(dtype::f32, {b, 30, 20})),
                                             buffer("w", layout::row_major(dtype::f32, {b, 20, 70}))},
                         layout::row_major(dtype::f32, {b, 30, 70})),
                   o,
                   gemm_config{},
                   {{{"B", 3}}}});
  run_cases(cases);
}

// Symbolic sizes: one library runs several sizes (the source does not depend on the hints); static
// shapes too.
TEST(GemmEmu, SymbolicAndStaticSizes) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<gemm_case> cases;
  gemm_options o{.act = activation::relu};
  cases.push_back({"f16 symbolic",
                   share(gemm_policy(o),
                         std::vector<buffer>{buffer("x", layout::row_major(dtype::f16, {sM, sK})),
                                             buffer("w", layout::row_major(dtype::f16, {sK, sN})),
                                             buffer("bias", layout::row_major(dtype::f32, {sN}))},
                         layout::row_major(dtype::f16, {sM, sN})),
                   o,
                   gemm_test::mma(64, 64, 32, 32, 32, 2),
                   {{{"M", 64}, {"N", 64}, {"K", 64}},
                    {{"M", 1}, {"N", 1}, {"K", 1}},
                    {{"M", 65}, {"N", 127}, {"K", 33}},
                    {{"M", 200}, {"N", 8}, {"K", 256}}}});
  cases.push_back({"f32 static",
                   share(gemm_policy(o),
                         std::vector<buffer>{buffer("x", layout::row_major(dtype::f32, {77, 31})),
                                             buffer("w", layout::row_major(dtype::f32, {31, 45}))},
                         layout::row_major(dtype::f32, {77, 45})),
                   o,
                   gemm_config{},
                   {{}}});
  run_cases(cases);
}

// The Hopper and the skinny matrix-core kernels exist on NVIDIA only: the AMD entry refuses.
TEST(GemmEmu, NvidiaOnlyPathsRefuseOnAmd) {
  ROCMTPL_REQUIRE_EMULATOR();
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {128, 64})), buffer("w", layout::row_major(dtype::f16, {64, 128}))},
      layout::row_major(dtype::f16, {128, 128}));
  const auto hopper = rocmtpl::test::fusion::hopper_config();
  const auto skinny_mma = rocmtpl::test::fusion::skinny_mma_config(2);
  for (const auto& c : {hopper, skinny_mma}) {
    const auto caller = t.generate(c);
    const auto lib = emu().compile({caller.source()}).front();
    std::mt19937_64 rng(3);
    std::vector<tensor> in;
    for (const auto& m : caller.bmreq().input_tensor_meta) in.push_back(make_input(m, rng));
    tensor out = allocate(caller.bmreq().output_tensor_meta);
    EXPECT_EQ(call(lib, caller.bmreq().kernel_name, caller.bmreq().signature, {&in[0], &in[1], &out},
                   caller.bmreq().extra_args),
              kernel_status::unsupported_argument)
        << c.name();
  }
}

// ---------------------------------------------------------------------------------------------
// Epilogue chains: every op of the fused epilogue on every AMD path, fused into the GEMM against the
// GEMM followed by pointwise kernels (modules, fused and not), and the fused reference kernel.
// ---------------------------------------------------------------------------------------------
namespace fu = rocmtpl::test::fusion;

std::vector<std::uint8_t> encode(const std::vector<float>& v, dtype t) {
  std::vector<std::uint8_t> out(v.size() * element_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (t == dtype::f32) {
      std::memcpy(&out[4 * i], &v[i], 4);
    } else {
      const auto h = t == dtype::f16 ? to_half(v[i]) : to_bf16(v[i]);
      std::memcpy(&out[2 * i], &h, 2);
    }
  }
  return out;
}

std::vector<double> decode(const void* p, std::size_t count, dtype t) {
  std::vector<double> out(count);
  const auto* bytes = static_cast<const std::uint8_t*>(p);
  for (std::size_t i = 0; i < count; ++i) {
    if (t == dtype::f32) {
      float f = 0;
      std::memcpy(&f, bytes + 4 * i, 4);
      out[i] = f;
    } else {
      std::uint16_t h = 0;
      std::memcpy(&h, bytes + 2 * i, 2);
      out[i] = t == dtype::f16 ? from_half(h) : from_bf16(h);
    }
  }
  return out;
}

std::map<std::string, std::vector<float>> module_inputs(const module_source& m, const size_hints& sizes,
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

std::vector<double> run_module(const module_source& src, const loaded_module& mod,
                               const std::map<std::string, std::vector<float>>& in, const size_hints& sizes) {
  std::vector<amd_emulator_buffer> keep;
  std::vector<const void*> inputs;
  for (const auto& b : src.inputs) {
    const auto bytes = encode(in.at(b.name()), b.type());
    keep.emplace_back(*emu().rt, bytes.size());
    std::memcpy(keep.back().get(), bytes.data(), bytes.size());
    inputs.push_back(keep.back().get());
  }
  const auto& y = src.outputs.at(0);
  const auto count = static_cast<std::size_t>(y.get_layout().numel().evaluate(sizes));
  amd_emulator_buffer dy(*emu().rt, count * element_size(y.type()));
  amd_emulator_buffer workspace(*emu().rt, std::max<std::size_t>(1, mod.workspace_size(sizes)));
  mod.run(inputs, {dy.get()}, sizes, workspace.get(), nullptr);
  return decode(dy.get(), count, y.type());
}

TEST(GemmEmu, EveryEpilogueChainOnEveryAmdPath) {
  ROCMTPL_REQUIRE_EMULATOR();
  std::vector<fu::path_case> paths;
  std::vector<std::pair<module_source, module_source>> modules;
  std::vector<std::string> sources;
  for (const auto& c : fu::gpu_paths()) {
    if (c.hopper) continue;  // NVIDIA only
    paths.push_back(c);
    modules.emplace_back(fu::emit_chain_module("fused_" + c.name, c.p, fu::every_op(), c.p.type, true),
                         fu::emit_chain_module("unfused_" + c.name, c.p, fu::every_op(), c.p.type, false));
    sources.push_back(modules.back().first.source);
    sources.push_back(modules.back().second.source);
  }
  EXPECT_GE(paths.size(), 7U);
  (void)emu().compile(sources);  // in parallel; loaded_module::compile() finds them in the cache
  for (std::size_t pi = 0; pi < paths.size(); ++pi) {
    const auto& c = paths[pi];
    SCOPED_TRACE(c.name);
    const auto& [fused_src, unfused_src] = modules[pi];
    ASSERT_EQ(fused_src.calls.size(), 1U) << (fused_src.notes.empty() ? "" : fused_src.notes[0]);
    const auto fused = loaded_module::compile(fused_src, *emu().cc, emu().options, *emu().cache);
    const auto unfused = loaded_module::compile(unfused_src, *emu().cc, emu().options, *emu().cache);
    const size_hints sizes{{"M", 131}};
    const auto in = module_inputs(fused_src, sizes, 5U);
    const auto a = run_module(fused_src, fused, in, sizes);
    const auto b = run_module(unfused_src, unfused, in, sizes);
    ASSERT_EQ(a.size(), b.size());
    std::size_t bad = 0, nonzero = 0;
    double worst = 0;
    const double tol = c.p.type == dtype::f32 ? 1e-5 : (c.p.type == dtype::f16 ? 2e-3 : 1.6e-2);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double err = std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i]));
      if (!(err <= tol)) ++bad;  // NaN counts as bad
      worst = std::max(worst, std::isfinite(err) ? err : 1e30);
      nonzero += b[i] != 0.0 ? 1 : 0;
    }
    EXPECT_EQ(bad, 0U) << "worst relative difference " << worst << "; " << emu().rt->last_message();
    EXPECT_GT(nonzero, a.size() / 2) << "the outputs are mostly zero";
    std::cout << "[ amd-emu ] " << c.name << ": fused vs unfused, every op, worst relative difference " << worst
              << "\n";
  }
}

// ---------------------------------------------------------------------------------------------
// The runtime's helper kernels (fill, compare), emulated, against the host.
// ---------------------------------------------------------------------------------------------
std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

TEST(GemmEmu, HelperFillAndCompareKernels) {
  ROCMTPL_REQUIRE_EMULATOR();
  const auto lib = emu().compile({runtime::detail::utility_source}).front();
  auto so = std::make_shared<shared_library>(lib.library);
  kernel_entry fill(so, "rocmtpl_fill_uniform", runtime::detail::fill_signature());
  kernel_entry compare(so, "rocmtpl_compare", runtime::detail::compare_signature());
  // Fill: uniform in [-1, 1) from (seed, index), 70000 f32 elements (a grid-stride loop over 274 blocks).
  const std::int64_t n = 70000;
  const std::uint64_t seed = 0x1234;
  amd_emulator_buffer a(*emu().rt, n * sizeof(float)), b(*emu().rt, n * sizeof(float));
  ASSERT_EQ(
      fill.call({a.get()}, {dtype_code(dtype::f32), n, static_cast<std::int64_t>(seed)}, nullptr, nullptr, nullptr),
      kernel_status::ok)
      << emu().rt->last_message();
  const auto* av = static_cast<const float*>(a.get());
  std::size_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = splitmix(seed ^ splitmix(static_cast<std::uint64_t>(i)));
    const float expect = static_cast<float>(r >> 40) * (2.0F / 16777216.0F) - 1.0F;
    wrong += av[i] == expect ? 0 : 1;
  }
  EXPECT_EQ(wrong, 0U);
  // Compare: B = A + 0.001 on every 7th element; one NaN.
  auto* bv = static_cast<float*>(b.get());
  double diff2 = 0, ref2 = 0, max_abs = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bv[i] = av[i] + (i % 7 == 0 ? 0.001F : 0.0F);
    const double d = static_cast<double>(bv[i]) - av[i];
    diff2 += d * d;
    ref2 += static_cast<double>(av[i]) * av[i];
    max_abs = std::max(max_abs, std::abs(d));
  }
  bv[5] = NAN;
  diff2 -= std::pow(static_cast<double>(av[5] + 0.0F) - av[5], 2);
  amd_emulator_buffer sums(*emu().rt, 2 * sizeof(double)), counts(*emu().rt, 2 * sizeof(std::uint64_t));
  std::memset(sums.get(), 0, sums.size());
  std::memset(counts.get(), 0, counts.size());
  tensor_meta meta;
  meta.type = dtype::f32;
  meta.sizes = {n};
  meta.strides = {1};
  ASSERT_EQ(compare.call({b.get(), a.get(), sums.get(), counts.get()}, utility_kernels::compare_arguments(meta, meta),
                         nullptr, nullptr, nullptr),
            kernel_status::ok)
      << emu().rt->last_message();
  const auto* s = static_cast<const double*>(sums.get());
  const auto* cnt = static_cast<const std::uint64_t*>(counts.get());
  EXPECT_NEAR(s[0], diff2, 1e-9 * std::max(1.0, diff2));
  EXPECT_NEAR(s[1], ref2 - static_cast<double>(av[5]) * av[5], 1e-6 * ref2);
  EXPECT_EQ(cnt[0], 1U) << "one output is NaN where the reference is finite";
  double got_max = 0;
  std::memcpy(&got_max, &cnt[1], sizeof got_max);
  EXPECT_DOUBLE_EQ(got_max, max_abs);
}

// ---------------------------------------------------------------------------------------------
// Speed (issue 23): a 128x128x64 f16 MFMA GEMM tile (one 128 x 128 block, four waves) verified in
// at most 2 s on one core; and a fault in generated code is named.
// ---------------------------------------------------------------------------------------------
TEST(GemmEmu, MfmaTile128x128x64VerifiedWithinTwoSeconds) {
  ROCMTPL_REQUIRE_EMULATOR();
  gemm_options o{.act = activation::relu};
  gemm_case c{"f16 128x128x64",
              share(gemm_policy(o),
                    std::vector<buffer>{buffer("x", layout::row_major(dtype::f16, {128, 64})),
                                        buffer("w", layout::row_major(dtype::f16, {64, 128})),
                                        buffer("bias", layout::row_major(dtype::f32, {128}))},
                    layout::row_major(dtype::f16, {128, 128})),
              o,
              gemm_test::mma(128, 128, 32, 64, 64, 2),
              {{}}};
  const auto caller = c.tpl->generate(c.config);
  const auto t0 = std::chrono::steady_clock::now();
  const auto lib = emu().compile({caller.source()}).front();
  const auto t1 = std::chrono::steady_clock::now();
  const auto& req = caller.bmreq();
  std::mt19937_64 rng(11);
  std::vector<tensor> in;
  for (const auto& m : req.input_tensor_meta) in.push_back(make_input(m, rng));
  tensor out = allocate(req.output_tensor_meta);
  const auto launches = emu().rt->launches();
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_EQ(call(lib, req.kernel_name, req.signature, {&in[0], &in[1], &in[2], &out}, req.extra_args),
            kernel_status::ok)
      << emu().rt->last_message();
  const auto verdict = matches_host(c, in, out, out.load());
  const auto t3 = std::chrono::steady_clock::now();
  EXPECT_TRUE(verdict);
  EXPECT_EQ(emu().rt->launches(), launches + 1) << "one launch: one block of 256 threads";
  const double run = std::chrono::duration<double>(t3 - t2).count();
  std::cout << "[ amd-emu ] 128x128x64 f16 MFMA tile (" << c.config.name() << "): run and verify " << run
            << " s, compile " << std::chrono::duration<double>(t1 - t0).count() << " s"
            << (lib.cached ? " (cached)" : "") << "\n";
  EXPECT_LE(run, 2.0);
}

TEST(GemmEmu, OutOfBoundsWriteOfGeneratedCodeIsNamed) {
  ROCMTPL_REQUIRE_EMULATOR();
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {sM, 32})), buffer("w", layout::row_major(dtype::f16, {32, 64}))},
      layout::row_major(dtype::f16, {sM, 64}));
  const auto caller = t.generate(gemm_test::mma(64, 64, 32, 32, 32, 2), {{"M", 64}});
  const auto lib = emu().compile({caller.source()}).front();
  const auto& req = caller.bmreq();
  std::mt19937_64 rng(5);
  std::vector<tensor> in;
  for (const auto& m : req.input_tensor_meta) in.push_back(make_input(m, rng));
  // An output of 63 rows for M = 64: the last row's stores fall past the allocation.
  tensor_meta small = req.output_tensor_meta;
  small.sizes[0] = 63;
  tensor out = allocate(small);
  const auto rc = call(lib, req.kernel_name, req.signature, {&in[0], &in[1], &out}, req.extra_args);
  EXPECT_EQ(rc, kernel_status::launch_failed);
  const std::string msg = emu().rt->last_message();
  EXPECT_NE(msg.find("rocmtpl AMD emulator: kernel rocm_gemm_"), std::string::npos) << msg;
  EXPECT_NE(msg.find("block (0, 0, 0), thread ("), std::string::npos) << msg;
  EXPECT_NE(msg.find("out-of-bounds 2-byte store at address 0x"), std::string::npos) << msg;
  // In row 63 of the 63-row output, [8064, 8192) (which lane stores there first depends on the schedule).
  std::smatch where;
  ASSERT_TRUE(std::regex_search(msg, where, std::regex("byte offset ([0-9]+) of the 8064-byte device allocation")))
      << msg;
  EXPECT_GE(std::stol(where[1].str()), 8064);
  EXPECT_LT(std::stol(where[1].str()), 8192);
}

}  // namespace
