// SPDX-License-Identifier: MIT
// The GEMM GPU harness, shared by the GPU tests that check GEMMs against cuBLAS (moved out of
// gemm_gpu_test.cpp so that hygiene_gpu_test.cpp reuses it, issue 8): host-side numbers, tensors
// with NaN-poisoned outputs, and a harness that renders, compiles (in parallel, cached), runs and
// compares each case with cuBLAS (support/cublas.hpp), or with a double-precision host product
// where cuBLAS cannot describe the layout.
#pragma once

#include <rocmtpl/runtime.hpp>

#include "support/cublas.hpp"
#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace rocmtpl::test::gemm_gpu {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::cublas;
using templates::activation;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

// ---------------------------------------------------------------------------------------------
// Host-side numbers.
// ---------------------------------------------------------------------------------------------
inline std::uint32_t bits_of(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float float_of(std::uint32_t u) {
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// Round to nearest even (finite values only: the test draws values in [-2, 2]).
inline std::uint16_t to_half(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  std::uint16_t u = 0;
  std::memcpy(&u, &h, sizeof u);
  return u;
}
inline float from_half(std::uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, sizeof h);
  return static_cast<float>(h);
}
inline std::uint16_t to_bf16(float f) {
  const std::uint32_t u = bits_of(f);
  if ((u & 0x7fffffffU) > 0x7f800000U) return static_cast<std::uint16_t>((u >> 16) | 0x40U);
  return static_cast<std::uint16_t>((u + 0x7fffU + ((u >> 16) & 1U)) >> 16);
}
inline float from_bf16(std::uint16_t u) { return float_of(static_cast<std::uint32_t>(u) << 16); }

inline float round_to(dtype t, float v) {
  switch (t) {
    case dtype::f16: return from_half(to_half(v));
    case dtype::bf16: return from_bf16(to_bf16(v));
    default: return v;
  }
}

inline float activate(activation a, float v) {
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

inline double tolerance(dtype out) {
  switch (out) {
    case dtype::f16: return 2e-3;
    case dtype::bf16: return 1.6e-2;
    default: return 1e-4;
  }
}

// One tensor: its meta, host values (rounded to its dtype) and device storage.
struct tensor {
  tensor_meta meta;
  std::vector<float> values;  // one per storage element
  device_buffer device;

  [[nodiscard]] std::size_t esize() const { return element_size(meta.type); }
  [[nodiscard]] std::int64_t elements() const { return std::max<std::int64_t>(meta.storage_elements(), 1); }

  void upload() {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(elements()) * esize());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (meta.type == dtype::f32) {
        std::memcpy(bytes.data() + 4 * i, &values[i], 4);
      } else {
        const std::uint16_t b = meta.type == dtype::f16 ? to_half(values[i]) : to_bf16(values[i]);
        std::memcpy(bytes.data() + 2 * i, &b, 2);
      }
    }
    device = device_buffer(bytes.size());
    device.copy_from_host(bytes.data());
  }
  // Device bytes back as floats (NaN bytes stay NaN).
  [[nodiscard]] std::vector<float> download() const {
    std::vector<std::uint8_t> bytes(device.size());
    device.copy_to_host(bytes.data());
    std::vector<float> out(static_cast<std::size_t>(elements()));
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (meta.type == dtype::f32) {
        std::memcpy(&out[i], bytes.data() + 4 * i, 4);
      } else {
        std::uint16_t b = 0;
        std::memcpy(&b, bytes.data() + 2 * i, 2);
        out[i] = meta.type == dtype::f16 ? from_half(b) : from_bf16(b);
      }
    }
    return out;
  }
};

inline tensor make_input(const tensor_meta& meta, std::mt19937_64& rng) {
  tensor t{meta, {}, {}};
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  t.values.resize(static_cast<std::size_t>(t.elements()));
  for (auto& v : t.values) v = round_to(meta.type, dist(rng));
  t.upload();
  return t;
}

// (batch, row, col) -> storage index of a tensor seen as an operand; missing or size-1 dims broadcast.
struct view_3d {
  std::int64_t sb = 0, sr = 0, sc = 0, offset = 0;
};
inline view_3d view_of(const tensor_meta& m, bool rank1_along_rows = false) {
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

// A matrix Q (R x C, element (r, c) at r * qr + c * qc) as cuBLAS sees it: op(stored) = Q with
// `stored` column-major; not ok when neither stride is 1 (or the leading dimension is too small).
struct blas_operand {
  int op = cublas::op_n;
  int ld = 0;
  bool ok = false;
};
inline blas_operand blas_view(std::int64_t qr, std::int64_t qc, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r1 = std::max<std::int64_t>(rows, 1);
  const std::int64_t c1 = std::max<std::int64_t>(cols, 1);
  if (qr == 1 || rows == 1) {
    const std::int64_t ld = cols == 1 ? r1 : qc;
    if (ld >= r1) return {cublas::op_n, static_cast<int>(ld), true};
  }
  if (qc == 1 || cols == 1) {
    const std::int64_t ld = rows == 1 ? c1 : qr;
    if (ld >= c1) return {cublas::op_t, static_cast<int>(ld), true};
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// The harness: render, compile (in parallel, cached), run, compare.
// ---------------------------------------------------------------------------------------------
struct check_case {
  std::string label;
  std::shared_ptr<rocm_template<gemm_policy>> tpl;
  gemm_options options;
  gemm_config config;
  std::vector<size_hints> shapes;
  bool bias_along_m = false;
  int max_spill_bytes = 0;  // a measured NVIDIA spill the case tolerates (ptxas stores/loads); 0: none
  std::string source{};     // filled by prepare
  std::optional<compile_result> lib{};
  std::string compile_error{};
};

class harness {
 public:
  harness() : cache_(dir_.path() / "kernels") {
    const auto& rt = gpu_runtime::instance();
    copts_ = compile_options_for(rt.properties(rt.current_device()));
  }

  // Renders (with the first shape's hints) and compiles every case, several compiles at a time.
  void prepare(std::vector<check_case>& cases) {
    const compiler cc = compiler::find(copts_.platform);
    for (auto& c : cases) c.source = c.tpl->generate(c.config, c.shapes.front()).source();
    std::atomic<std::size_t> next{0};
    std::vector<std::jthread> pool;
    const unsigned jobs = std::max(2U, std::thread::hardware_concurrency());
    for (unsigned j = 0; j < jobs; ++j) {
      pool.emplace_back([&] {
        for (std::size_t i = next++; i < cases.size(); i = next++) {
          try {
            cases[i].lib = cache_.get_or_compile(cc, cases[i].source, copts_);
          } catch (const std::exception& e) {
            cases[i].compile_error = e.what();
          }
        }
      });
    }
  }

  // Runs every shape of a compiled case; returns the number of failed checks (with messages).
  int run(const check_case& c) {
    if (!c.lib) {
      ADD_FAILURE() << c.label << " " << c.config.name() << ": compile failed: " << c.compile_error.substr(0, 4000);
      return 1;
    }
    for (const auto& r : c.lib->resources) {
      const bool tolerated = r.sgpr_spills == 0 && r.vgpr_spills == 0 && r.spill_store_bytes <= c.max_spill_bytes &&
                             r.spill_load_bytes <= c.max_spill_bytes;
      EXPECT_TRUE(!r.spills() || tolerated) << c.label << " " << c.config.name() << ": " << to_string(r);
    }
    int failures = 0;
    auto lib = std::make_shared<shared_library>(c.lib->library);
    for (const auto& hints : c.shapes) failures += run_shape(c, lib, hints) ? 0 : 1;
    return failures;
  }

  [[nodiscard]] std::size_t against_cublas() const noexcept { return cublas_checks_; }
  [[nodiscard]] std::size_t against_host() const noexcept { return host_checks_; }

  // Raw launch for status-code checks: the case's first shape, given tensor pointers.
  kernel_status call(const check_case& c, const std::vector<const void*>& pointers,
                     const std::vector<std::int64_t>& extra, void* workspace) {
    auto lib = std::make_shared<shared_library>(c.lib->library);
    const auto caller = c.tpl->generate(c.config, c.shapes.front());
    kernel_entry k(lib, caller.bmreq().kernel_name, caller.bmreq().signature);
    const kernel_status rc = k.call(pointers, extra, nullptr, workspace, stream_.get());
    stream_.synchronize();
    return rc;
  }

 private:
  bool run_shape(const check_case& c, const std::shared_ptr<shared_library>& lib, const size_hints& hints) {
    const auto caller = c.tpl->generate(c.config, hints);
    const auto& req = caller.bmreq();
    const std::string where = c.label + " " + c.config.name() + " " + shape_text(hints);
    if (req.source_code != c.source) {
      ADD_FAILURE() << where << ": the source depends on the hints";
      return false;
    }
    std::mt19937_64 rng(0x6e6d ^ (seed_++ * 0x9e3779b97f4a7c15ULL));
    std::vector<tensor> inputs;
    for (const auto& m : req.input_tensor_meta) inputs.push_back(make_input(m, rng));
    tensor out{req.output_tensor_meta, {}, {}};
    out.device = device_buffer(static_cast<std::size_t>(out.elements()) * out.esize());
    gpu_runtime::instance().memset(out.device.get(), 0xFF, out.device.size(), stream_.get());

    kernel_entry k(lib, req.kernel_name, req.signature);
    const std::size_t ws_bytes = k.workspace_size(req.extra_args);
    device_buffer ws;
    if (ws_bytes > 0) ws = device_buffer(ws_bytes);
    std::vector<const void*> ptrs;
    for (const auto& t : inputs) ptrs.push_back(t.device.get());
    ptrs.push_back(out.device.get());
    const kernel_status rc = k.call(ptrs, req.extra_args, nullptr, ws.get(), stream_.get());
    stream_.synchronize();
    if (rc != kernel_status::ok) {
      ADD_FAILURE() << where << ": entry point returned " << rc;
      return false;
    }

    // Which input is which (the caller's order may be input_reorder'ed).
    const tensor* x = nullptr;
    const tensor* w = nullptr;
    const tensor* bias = nullptr;
    const tensor* res = nullptr;
    const auto& nodes = c.tpl->input_nodes();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto& name = inputs[i].meta.name;
      if (name == nodes[0].name()) x = &inputs[i];
      if (name == nodes[1].name()) w = &inputs[i];
      const bool has_bias = nodes.size() > (c.options.residual ? 3U : 2U);
      if (has_bias && name == nodes[2].name()) bias = &inputs[i];
      if (c.options.residual && name == nodes.back().name()) res = &inputs[i];
    }
    const auto& ym = out.meta;
    const bool batched = ym.sizes.size() == 3;
    const std::int64_t nb = batched ? ym.sizes[0] : 1;
    const std::int64_t m = ym.sizes[ym.sizes.size() - 2];
    const std::int64_t n = ym.sizes.back();
    const std::int64_t kk = x->meta.sizes.back();
    const auto acc = product(*x, *w, nb, m, n, kk);

    const auto got = out.download();
    const auto yv = view_of(ym);
    const auto bv = bias ? view_of(bias->meta, c.bias_along_m) : view_3d{};
    const auto rv = res ? view_of(res->meta, c.bias_along_m) : view_3d{};
    std::vector<bool> logical(got.size(), false);
    double max_ref = 0, max_err = 0, err2 = 0, ref2 = 0;
    std::int64_t bad_index = -1;
    for (std::int64_t b = 0; b < nb; ++b) {
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          float v = c.options.alpha * acc[static_cast<std::size_t>((b * m + i) * n + j)];
          if (bias)
            v += c.options.beta * bias->values[static_cast<std::size_t>(bv.offset + b * bv.sb + i * bv.sr + j * bv.sc)];
          v = activate(c.options.act, v);
          if (res) v += res->values[static_cast<std::size_t>(rv.offset + b * rv.sb + i * rv.sr + j * rv.sc)];
          const double ref = round_to(ym.type, v);
          const auto index = static_cast<std::size_t>(yv.offset + b * yv.sb + i * yv.sr + j * yv.sc);
          logical[index] = true;
          const double e = std::fabs(static_cast<double>(got[index]) - ref);
          max_ref = std::max(max_ref, std::fabs(ref));
          ref2 += ref * ref;
          if (!(e <= max_err)) {  // NaN counts as the largest error
            max_err = std::isnan(e) ? INFINITY : e;
            bad_index = (b * m + i) * n + j;
          }
          err2 += std::isnan(e) ? INFINITY : e * e;
        }
      }
    }
    bool ok = true;
    const double tol = tolerance(ym.type);
    if (!(max_err <= tol * std::max(max_ref, 1e-3))) {
      ADD_FAILURE() << where << ": max error " << max_err << " at element " << bad_index << " (max |ref| " << max_ref
                    << ", tolerance " << tol << ")";
      ok = false;
    }
    if (ref2 > 0 && !(std::sqrt(err2 / ref2) <= tol)) {
      ADD_FAILURE() << where << ": relative L2 error " << std::sqrt(err2 / ref2);
      ok = false;
    }
    // Nothing outside the logical elements was written (padding keeps its NaN bytes).
    std::size_t touched = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!logical[i] && !std::isnan(got[i])) ++touched;
    }
    if (touched != 0 && static_cast<std::int64_t>(got.size()) == ym.storage_elements()) {
      ADD_FAILURE() << where << ": " << touched << " elements outside the output view were written";
      ok = false;
    }
    return ok;
  }

  // fp32 product acc[b][i][j] = sum_k X[b][i][k] W[b][k][j]: cuBLAS when it can, else the host.
  std::vector<float> product(const tensor& x, const tensor& w, std::int64_t nb, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
    const auto xv = view_of(x.meta);
    const auto wv = view_of(w.meta);
    std::vector<float> acc(static_cast<std::size_t>(nb * m * n), 0.0F);
    if (k == 0) return acc;
    // cuBLAS: C (N x M col-major) = op(A) op(B) with A = W^T (N x K) and B = X^T (K x M).
    const blas_operand a = blas_view(wv.sc, wv.sr, n, k);
    const blas_operand bo = blas_view(xv.sc, xv.sr, k, m);
    auto& blas = cublas::instance();
    if (blas.available() && a.ok && bo.ok) {
      auto type = [](dtype t) {
        return t == dtype::f32 ? cublas::cuda_r_32f : (t == dtype::f16 ? cublas::cuda_r_16f : cublas::cuda_r_16bf);
      };
      device_buffer c(acc.size() * sizeof(float));
      const auto* wp =
          static_cast<const std::uint8_t*>(w.device.get()) + static_cast<std::size_t>(wv.offset) * w.esize();
      const auto* xp =
          static_cast<const std::uint8_t*>(x.device.get()) + static_cast<std::size_t>(xv.offset) * x.esize();
      const int rc = blas.gemm(a.op, bo.op, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), wp,
                               type(w.meta.type), a.ld, wv.sb, xp, type(x.meta.type), bo.ld, xv.sb, c.as<float>(),
                               m * n, static_cast<int>(nb), x.meta.type == dtype::f32);
      gpu_runtime::instance().device_synchronize();
      if (rc == 0) {
        c.copy_to_host(acc.data());
        ++cublas_checks_;
        return acc;
      }
      std::cerr << "cuBLAS returned " << rc << "; host product instead\n";
    }
    ++host_checks_;
    for (std::int64_t b = 0; b < nb; ++b) {
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (std::int64_t q = 0; q < k; ++q) {
            s +=
                static_cast<double>(x.values[static_cast<std::size_t>(xv.offset + b * xv.sb + i * xv.sr + q * xv.sc)]) *
                static_cast<double>(w.values[static_cast<std::size_t>(wv.offset + b * wv.sb + q * wv.sr + j * wv.sc)]);
          }
          acc[static_cast<std::size_t>((b * m + i) * n + j)] = static_cast<float>(s);
        }
      }
    }
    return acc;
  }

  static std::string shape_text(const size_hints& h) {
    std::string s = "[";
    for (const auto& [k, v] : h) s += (s.size() > 1 ? " " : "") + k + "=" + std::to_string(v);
    return s + "]";
  }

  rocmtpl::test::temp_dir dir_{"rocmtpl-gemm-gpu"};
  code_cache cache_;
  compile_options copts_;
  runtime::stream stream_;
  std::uint64_t seed_ = 1;
  std::size_t cublas_checks_ = 0;
  std::size_t host_checks_ = 0;
};

inline void run_all(harness& h, std::vector<check_case>& cases) {
  h.prepare(cases);
  int failures = 0;
  for (const auto& c : cases) failures += h.run(c);
  std::cout << "[ gemm ] " << cases.size() << " kernels, " << failures
            << " failed checks; products from cuBLAS: " << h.against_cublas() << ", from the host: " << h.against_host()
            << " (" << cublas::instance().status() << ")\n";
}

}  // namespace rocmtpl::test::gemm_gpu
