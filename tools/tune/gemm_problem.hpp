// SPDX-License-Identifier: MIT
// rocmtpl-tune: the GEMM problem that the gemm options describe, tuned by gemm (one problem) and by
// batch (each problem of a file), and read back from a tuning record (db plot). The GEMM template
// and its autotune live in gemm_problem.cpp only: this header names the runtime's types without
// including their headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options.hpp"

namespace rocmtpl::runtime {
struct autotune_options;
struct autotune_report;
struct batch_outcome;
struct tuning_key;
class worker_pool;
}  // namespace rocmtpl::runtime

namespace rocmtpl_tune {

/// The gemm options that describe the problem: Y = act(alpha * X @ W + bias), X [M, K], W [K, N].
struct gemm_problem_args {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  std::string dtype_name = "f32";
  std::string layout_name = "rr";
  std::string epilogue = "none";
  float alpha = 1.0F;
  bool bias = false;
  std::vector<std::string> symbolic;  // normalized (normalize_symbols)
};

/// A candidate the autotuner sees, rendered again here for its source and short name.
struct rendered_candidate {
  std::string short_name;  // gemm_config::name(): bm64_bn64_bk16_tm4_tn4_g8
  std::string source;
};

/// By the report's candidate id.
using rendered_candidates = std::map<std::string, rendered_candidate>;

/// The GEMM problem the arguments describe, and what the reports need to know about it.
class gemm_problem {
 public:
  explicit gemm_problem(const gemm_problem_args& a);
  ~gemm_problem();
  gemm_problem(const gemm_problem&) = delete;
  gemm_problem& operator=(const gemm_problem&) = delete;

  [[nodiscard]] const std::string& description() const { return description_; }  // one line for people
  [[nodiscard]] const nlohmann::json& summary() const { return summary_; }       // the same for the JSON report
  [[nodiscard]] double flops() const { return flops_; }                          // 2 * batch * M * N * K

  /// The candidates the autotuner sees: the policy's first top_k configurations (0: all).
  [[nodiscard]] rendered_candidates render_candidates(std::size_t top_k) const;

  [[nodiscard]] rocmtpl::runtime::autotune_report tune(const rocmtpl::runtime::autotune_options& o) const;

  struct gemm_template;  // the template and its size hints (gemm_problem.cpp)

 private:
  std::unique_ptr<gemm_template> template_;
  std::string description_;
  nlohmann::json summary_;
  double flops_ = 0;
};

/// The names --epilogue and a batch file's "epilogue" accept: every activation ("none", "relu", ...).
std::vector<std::string> activation_names();

/// The autotuner's options for the tuning settings and --db (shared by gemm and batch).
rocmtpl::runtime::autotune_options tune_options(const tuning_settings& t, const std::string& db);

/// How many candidates compiled (their status is not compile_failed).
std::size_t count_compiled(const rocmtpl::runtime::autotune_report& report);

/// A cache folder the compiler cannot be given fails every compile: say so once, up front.
void check_cache_folder();

/// Tunes a batch's problems one after another, quietly (the batch draws the progress). The
/// benchmark workers start with the first isolated problem and serve the others.
class batch_gemm_tuner {
 public:
  /// Tunes one problem and says how it went.
  rocmtpl::runtime::batch_outcome tune(const gemm_problem_args& a, const tuning_settings& t, const std::string& db);

 private:
  std::shared_ptr<rocmtpl::runtime::worker_pool> workers_;
};

/// A GEMM configuration's short name (bm64_bn64_...) from the autotuner's text of it
/// (`math=simt block_m=64 ...`); nullopt when the text is not a GEMM configuration.
std::optional<std::string> gemm_config_name(const std::string& config);

/// The problem of a GEMM tuning record: its shape for people and its work.
struct gemm_record_shape {
  std::string label;  // 4096x4096x4096 float16 (b8 when batched)
  double flops = 0;   // 2 * batch * M * N * K
};

/// From the key's GEMM problem descriptor; nullopt when it has none.
std::optional<gemm_record_shape> read_gemm_record_shape(const rocmtpl::runtime::tuning_key& key);

}  // namespace rocmtpl_tune
