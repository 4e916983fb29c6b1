// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/json.hpp: included at its end (header-only) or compiled once by src/runtime/db.cpp,
// after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/db/key.hpp>

#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>

namespace rocmtpl::runtime {

ROCMTPL_INLINE void to_json(nlohmann::json& j, const tuning_key& k) {
  j = nlohmann::json{{"template_name", k.template_name},
                     {"problem", k.problem},
                     {"runtime_args", k.runtime_args},
                     {"arch", k.arch},
                     {"device", k.device},
                     {"compiler_version", k.compiler_version},
                     {"library_version", k.library_version},
                     {"descriptor", k.descriptor}};
}

ROCMTPL_INLINE void from_json(const nlohmann::json& j, tuning_key& k) {
  j.at("template_name").get_to(k.template_name);
  j.at("problem").get_to(k.problem);
  j.at("runtime_args").get_to(k.runtime_args);
  j.at("arch").get_to(k.arch);
  j.at("device").get_to(k.device);
  j.at("compiler_version").get_to(k.compiler_version);
  j.at("library_version").get_to(k.library_version);
  k.descriptor = j.value("descriptor", std::string());
}

ROCMTPL_INLINE void to_json(nlohmann::json& j, const measurement& m) {
  j = nlohmann::json{{"candidate", m.candidate},     {"config", m.config},
                     {"source_hash", m.source_hash}, {"status", std::string(to_string(m.status))},
                     {"reason", m.reason},           {"min_ms", m.min_ms},
                     {"median_ms", m.median_ms},     {"spread", m.spread},
                     {"repetitions", m.repetitions}, {"verified", m.verified},
                     {"max_error", m.max_error},     {"device", m.device},
                     {"device_id", m.device_id}};
}

ROCMTPL_INLINE void from_json(const nlohmann::json& j, measurement& m) {
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

ROCMTPL_INLINE void to_json(nlohmann::json& j, const tuning_record& rec) {
  j = nlohmann::json{{"digest", rec.key.digest()},
                     {"key", rec.key},
                     {"winner", rec.winner ? nlohmann::json(*rec.winner) : nlohmann::json(nullptr)},
                     {"created_at", rec.created_at},
                     {"updated_at", rec.updated_at},
                     {"measurements", rec.measurements}};
}

ROCMTPL_INLINE void from_json(const nlohmann::json& j, tuning_record& rec) {
  j.at("key").get_to(rec.key);
  j.at("measurements").get_to(rec.measurements);
  const auto& w = j.at("winner");
  rec.winner = w.is_null() ? std::nullopt : std::optional<std::string>(w.get<std::string>());
  j.at("created_at").get_to(rec.created_at);
  j.at("updated_at").get_to(rec.updated_at);
}

}  // namespace rocmtpl::runtime
