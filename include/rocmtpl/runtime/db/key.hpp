// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief What the tuning database stores: the key of a tuning problem (`tuning_key`, with its
/// stable digest), the outcome of a candidate (`candidate_status`), one candidate's `measurement`
/// (with the device it ran on), everything known about one problem (`tuning_record`), and the error
/// for a measurement of another device model than its key's (`device_mismatch_error`).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <rocmtpl/detail/hash.hpp>  // xxHash, inlined

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl::runtime {

/// @brief What identifies one tuning problem. Every field but `descriptor` is part of the key: two keys that
/// differ in any field are different problems with separate measurements and winners.
struct tuning_key {
  std::string template_name;     ///< Template family, e.g. "gemm".
  std::string problem;           ///< Problem signature: dtypes, sizes/strides with symbol hints, epilogue, ...
  std::string runtime_args;      ///< Runtime argument values, e.g. "split_k=1" (Inductor leaves these out).
  std::string arch;              ///< Resolved target architecture, e.g. "sm_90", "gfx90a" (never "native").
  std::string device;            ///< Device name as the GPU runtime reports it.
  std::string compiler_version;  ///< Version text of the compiler that built the candidates.
  std::string library_version;   ///< rocmtpl version.
  /// @brief The problem as a typed descriptor (JSON, runtime/db/descriptor_json.hpp), where the
  /// template's policy gives one (`describe_problem()`); empty otherwise. It is derived from the
  /// fields above, so it is not part of the key's identity: digest() and lookups leave it out, and
  /// storing a key with one fills it in on a row stored without.
  std::string descriptor{};

  /// @brief A stable hex digest of all fields (32 lowercase hex digits, XXH3-128).
  ///
  /// The digest is part of the on-disk format: it depends only on the field bytes, never on the
  /// platform or the process. Each field is framed by its length, so moving bytes from one field
  /// to the next changes the digest.
  /// @return The digest.
  [[nodiscard]] std::string digest() const;

  /// @brief Member-wise equality.
  friend bool operator==(const tuning_key&, const tuning_key&) = default;
};

/// @brief Outcome of one candidate.
enum class candidate_status {
  ok,              ///< Built, ran and (if asked) verified; its times are valid.
  compile_failed,  ///< The compiler rejected it.
  launch_failed,   ///< It built but its entry point returned an error.
  verify_failed,   ///< It ran but its result did not match the reference.
  crashed,         ///< The process that ran it died.
  timed_out,       ///< Compiling or running it exceeded the time limit.
  skipped,         ///< Not tried (filtered out, or the search was cut short).
};

/// @brief Every candidate_status, in declaration order.
inline constexpr std::array all_candidate_statuses{candidate_status::ok,
                                                   candidate_status::compile_failed,
                                                   candidate_status::launch_failed,
                                                   candidate_status::verify_failed,
                                                   candidate_status::crashed,
                                                   candidate_status::timed_out,
                                                   candidate_status::skipped};
static_assert(all_candidate_statuses.size() == static_cast<std::size_t>(candidate_status::skipped) + 1,
              "rocmtpl: candidate_status: a status is missing from all_candidate_statuses; add it");

/// @brief The stable name of a status ("ok", "compile_failed", ...), as stored in the database.
/// @param status The status.
/// @return Its name.
[[nodiscard]] constexpr std::string_view to_string(candidate_status status) noexcept {
  switch (status) {
    case candidate_status::ok: return "ok";
    case candidate_status::compile_failed: return "compile_failed";
    case candidate_status::launch_failed: return "launch_failed";
    case candidate_status::verify_failed: return "verify_failed";
    case candidate_status::crashed: return "crashed";
    case candidate_status::timed_out: return "timed_out";
    case candidate_status::skipped: return "skipped";
  }
  return "unknown";
}

/// @brief Parse a status name written by `to_string(candidate_status)`.
/// @param name The name.
/// @return The status.
/// @throws invalid_argument_error if @p name is not one of the names.
[[nodiscard]] candidate_status parse_candidate_status(std::string_view name);

/// @brief One measured (or failed) candidate of a tuning problem.
struct measurement {
  std::string candidate;                           ///< Choice name, e.g. "rocm_gemm_3"; unique within one tuning_key.
  std::string config;                              ///< The config in designated-initializer text form.
  std::string source_hash;                         ///< Hash of the rendered source (the code-cache key).
  candidate_status status = candidate_status::ok;  ///< Outcome.
  std::string reason;                              ///< Why it failed; empty when status is ok.
  double min_ms = 0;                               ///< Fastest repetition, milliseconds.
  double median_ms = 0;                            ///< Median repetition, milliseconds.
  /// Relative spread of the repetitions: (p90 - p10) / median, where p10 and p90 are the 10th and
  /// 90th percentiles of the repetition times; 0 with fewer than two repetitions. The benchmark
  /// computes it; the database stores it as given.
  double spread = 0;
  int repetitions = 0;    ///< Number of timed repetitions.
  bool verified = false;  ///< Whether the result was checked against a reference.
  double max_error = 0;   ///< Largest absolute difference from the reference (when verified).
  /// Model of the GPU that ran it, as the GPU runtime names it (the same text as tuning_key::device);
  /// empty when no GPU ran it (a compile failure, a skipped candidate) or it was stored before
  /// schema version 2. The database stores it only under a key of the same device.
  std::string device;
  /// Which GPU of its host ran it: the device index in the tuning process, or the visibility value
  /// (`CUDA_VISIBLE_DEVICES` / `HIP_VISIBLE_DEVICES`) of the benchmark worker's GPU; empty with `device`.
  std::string device_id;

  /// @note Non-finite times round-trip (SQLite stores NaN as NULL; the database reads NULL back as NaN).
  friend bool operator==(const measurement&, const measurement&) = default;
};

/// @brief A measurement taken on one device model was to be stored under the tuning key of
/// another: times of different models are not comparable, so the database refuses it (nothing of
/// the call is stored).
class device_mismatch_error : public invalid_argument_error {
 public:
  /// @param candidate The measurement's candidate.
  /// @param key_device The key's device model (tuning_key::device).
  /// @param measured_on The measurement's device model (measurement::device).
  /// @param device_id Which GPU it ran on (measurement::device_id; may be empty).
  device_mismatch_error(std::string candidate, std::string key_device, std::string measured_on,
                        const std::string& device_id);

  /// @brief The candidate whose measurement was refused.
  [[nodiscard]] const std::string& candidate() const noexcept { return candidate_; }
  /// @brief The key's device model.
  [[nodiscard]] const std::string& key_device() const noexcept { return key_device_; }
  /// @brief The model the measurement was taken on.
  [[nodiscard]] const std::string& measured_on() const noexcept { return measured_on_; }

 private:
  std::string candidate_;
  std::string key_device_;
  std::string measured_on_;
};

/// @brief Everything the database knows about one tuning problem.
struct tuning_record {
  tuning_key key;                         ///< The problem.
  std::vector<measurement> measurements;  ///< One per candidate, in the order they were first stored.
  std::optional<std::string> winner;      ///< Winning candidate; always one whose status is ok.
  std::string created_at;                 ///< When the key was first stored, ISO-8601 UTC ("2025-01-31T12:00:00.123Z").
  std::string updated_at;                 ///< When anything about the key last changed, ISO-8601 UTC.

  /// @brief Member-wise equality.
  friend bool operator==(const tuning_record&, const tuning_record&) = default;
};

namespace detail {

void digest_field(XXH3_state_t* state, std::string_view field);

struct xxh3_state_deleter {
  void operator()(XXH3_state_t* s) const noexcept { XXH3_freeState(s); }
};

}  // namespace detail

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/key-inl.hpp>
#endif
