// SPDX-License-Identifier: MIT
// rocmtpl-render-grid: renders every configuration of the GEMM's search spaces over a grid of
// problems and prints one line per candidate: the problem, the candidate's configuration name, the
// XXH3-64 of its source and of its launch description (or the error its render gave). Two builds'
// outputs compared with diff show whether a refactor changed any rendered source (issue 25 checks
// that the GEMM paths' move into units changed nothing but form). Pure layer only: no GPU, no
// compiler.
//
//   rocmtpl-render-grid > grid.txt
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::rocm_template;
using rocmtpl::size_hints;
using rocmtpl::sym_expr;
using rocmtpl::templates::activation;
using rocmtpl::templates::bias_dim;
using rocmtpl::templates::gemm_options;
using rocmtpl::templates::gemm_policy;
using rocmtpl::templates::gemm_problem;

// The caller's description without its name (a count of the templates rendered in the process).
std::string info(const rocmtpl::rocm_template_caller& c) {
  std::string out = "source_hash=" + c.bmreq().source_hash();
  for (const auto& [k, v] : c.info_dict()) {
    if (k != "name") out += ", " + k + ": " + v;
  }
  return out;
}

std::string launch_text(const rocmtpl::rocm_template_caller& c) {
  if (!c.launch()) return "-";
  std::string text;
  for (const auto& v : c.launch()->variants) {
    text += "variant " + std::to_string(v.requirements.size()) + ":";
    for (const auto& k : v.launches) {
      text += k.suffix + " " + std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) + "," +
              std::to_string(k.block[2]) + " " + std::to_string(k.shared_bytes) + " " + std::to_string(k.amd_block[0]) +
              " " + std::to_string(k.amd_shared_bytes);
      for (const auto& a : k.params) text += " " + a.name;
      text += ";";
    }
  }
  return rocmtpl::detail::hash_hex(text);
}

// Every candidate generate_all() gives for the problem, then every configuration the policy lists
// without a problem (rendered or refused: the refusal's text is part of the behaviour).
void print_template(const std::string& label, const rocm_template<gemm_policy>& t, const size_hints& hints) {
  try {
    for (const auto& config : rocmtpl::detail::problem_configs(t.policy(), t.context(), hints)) {
      const auto c = t.generate(config, hints);
      std::printf("%s ranked %s %s %s %s\n", label.c_str(), config.name().c_str(), info(c).c_str(),
                  rocmtpl::detail::hash_hex(c.source()).c_str(), launch_text(c).c_str());
    }
  } catch (const std::exception& e) {
    std::printf("%s ranked error %s\n", label.c_str(), e.what());
  }
  for (const auto& config : t.policy().configs()) {
    try {
      const auto c = t.generate(config, hints);
      std::printf("%s listed %s %s %s\n", label.c_str(), config.name().c_str(), info(c).c_str(),
                  rocmtpl::detail::hash_hex(c.source()).c_str());
    } catch (const std::exception& e) {
      std::printf("%s listed %s error %s\n", label.c_str(), config.name().c_str(), e.what());
    }
  }
}

void print_problem(const gemm_problem& p) {
  std::string label = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + "_b" +
                      std::to_string(p.batch) + "_" + std::string(rocmtpl::name(p.type)) + "_" + p.layout + "_" +
                      std::string(to_string(p.act)) + (p.bias ? "_bias" : "") + (p.alpha != 1.0F ? "_alpha" : "");
  for (const auto& s : p.symbolic) label += "_" + s;
  try {
    print_template(label, make_template(p), p.hints());
  } catch (const std::exception& e) {
    std::printf("%s make error %s\n", label.c_str(), e.what());
  }
}

// gelu(0.5 * X @ W + 2 * Bias[M]) + Residual with f16 operands, a bf16 residual, f32 bias and
// output; W row- or column-major; split-K at run time or not.
void print_epilogue_problems() {
  const auto m = sym_expr::symbol("M");
  for (const bool col_w : {false, true}) {
    for (const bool split : {false, true}) {
      gemm_options o{.act = activation::gelu,
                     .alpha = 0.5F,
                     .beta = 2.0F,
                     .bias_along = bias_dim::m,
                     .residual = true,
                     .runtime_split_k = split};
      rocm_template<gemm_policy> t{
          gemm_policy(o),
          {buffer("x", layout::row_major(dtype::f16, {m, 64})),
           buffer("w", col_w ? layout::col_major(dtype::f16, {64, 48}) : layout::row_major(dtype::f16, {64, 48})),
           buffer("b", layout::row_major(dtype::f32, {m})), buffer("r", layout::row_major(dtype::bf16, {m, 48}))},
          layout::row_major(dtype::f32, {m, 48})};
      print_template(std::string("epilogue") + (col_w ? "_colw" : "") + (split ? "_split" : ""), t, {{"M", 300}});
    }
  }
}
}  // namespace

int main() {
  struct shape {
    std::int64_t m, n, k, batch;
  };
  const std::vector<shape> shapes{{4096, 4096, 1024, 1}, {48, 8192, 8192, 1}, {8192, 24, 4096, 1},
                                  {200, 8192, 4096, 1},  {1, 80, 96, 1},      {1000, 700, 300, 3}};
  for (const auto& s : shapes) {
    for (const auto t : {dtype::f32, dtype::f16, dtype::bf16}) {
      for (const char* lay : {"rr", "rc", "cr"}) {
        gemm_problem p{.m = s.m, .n = s.n, .k = s.k, .batch = s.batch, .type = t, .layout = lay};
        print_problem(p);
      }
      for (const auto act : rocmtpl::templates::all_activations) {
        gemm_problem p{.m = s.m, .n = s.n, .k = s.k, .batch = s.batch, .type = t, .act = act, .bias = true};
        print_problem(p);
      }
      gemm_problem p{.m = s.m, .n = s.n, .k = s.k, .type = t, .alpha = 0.5F, .symbolic = {"K", "M", "N"}};
      print_problem(p);
    }
  }
  print_epilogue_problems();
  return 0;
}
