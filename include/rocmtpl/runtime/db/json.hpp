// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief JSON forms (nlohmann::json, found by ADL) of the tuning database's key, measurement and
/// record: `nlohmann::json j = record;` and `j.get<tuning_record>()`.

#include <rocmtpl/runtime/db/key.hpp>

#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>

namespace rocmtpl::runtime {

// JSON form of a key: every field, by name (`to_json`, found by ADL: `nlohmann::json j = key;`),
// and its reader `from_json`, which throws nlohmann::json::exception if a field is missing or not a
// string (nlohmann/json writes both).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(tuning_key, template_name, problem, runtime_args, arch, device, compiler_version,
                                   library_version)

/// @brief JSON form of a measurement; `status` is written by name.
inline void to_json(nlohmann::json& j, const measurement& m) {
  j = nlohmann::json{{"candidate", m.candidate},     {"config", m.config},
                     {"source_hash", m.source_hash}, {"status", std::string(to_string(m.status))},
                     {"reason", m.reason},           {"min_ms", m.min_ms},
                     {"median_ms", m.median_ms},     {"spread", m.spread},
                     {"repetitions", m.repetitions}, {"verified", m.verified},
                     {"max_error", m.max_error},     {"device", m.device},
                     {"device_id", m.device_id}};
}

/// @brief Read a measurement written by `to_json(nlohmann::json&, const measurement&)`; a null
/// number (how `dump()` writes NaN and infinities) reads back as NaN; `device` and `device_id` may
/// be missing (JSON written before they existed) and then read back empty.
/// @throws nlohmann::json::exception if a field is missing or has the wrong type.
/// @throws invalid_argument_error if `status` is not a status name.
inline void from_json(const nlohmann::json& j, measurement& m) {
  auto real = [&j](const char* name) {
    const auto& v = j.at(name);
    return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
  };
  j.at("candidate").get_to(m.candidate);
  j.at("config").get_to(m.config);
  j.at("source_hash").get_to(m.source_hash);
  m.status = parse_candidate_status(j.at("status").get<std::string>());
  j.at("reason").get_to(m.reason);
  m.min_ms = real("min_ms");
  m.median_ms = real("median_ms");
  m.spread = real("spread");
  j.at("repetitions").get_to(m.repetitions);
  j.at("verified").get_to(m.verified);
  m.max_error = real("max_error");
  m.device = j.value("device", std::string());
  m.device_id = j.value("device_id", std::string());
}

/// @brief JSON form of a record, with the key's digest.
inline void to_json(nlohmann::json& j, const tuning_record& rec) {
  j = nlohmann::json{{"digest", rec.key.digest()},
                     {"key", rec.key},
                     {"winner", rec.winner ? nlohmann::json(*rec.winner) : nlohmann::json(nullptr)},
                     {"created_at", rec.created_at},
                     {"updated_at", rec.updated_at},
                     {"measurements", rec.measurements}};
}

/// @brief Read a record written by `to_json(nlohmann::json&, const tuning_record&)` (the digest is recomputed).
/// @throws nlohmann::json::exception if a field is missing or has the wrong type.
inline void from_json(const nlohmann::json& j, tuning_record& rec) {
  j.at("key").get_to(rec.key);
  j.at("measurements").get_to(rec.measurements);
  const auto& w = j.at("winner");
  rec.winner = w.is_null() ? std::nullopt : std::optional<std::string>(w.get<std::string>());
  j.at("created_at").get_to(rec.created_at);
  j.at("updated_at").get_to(rec.updated_at);
}

}  // namespace rocmtpl::runtime
