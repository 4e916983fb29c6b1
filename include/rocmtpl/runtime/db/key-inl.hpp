// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/key.hpp: included at its end (header-only) or compiled once by src/runtime/db.cpp,
// after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <fmt/format.h>
#include <rocmtpl/detail/hash.hpp>  // xxHash, inlined

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>

namespace rocmtpl::runtime {

ROCMTPL_INLINE candidate_status parse_candidate_status(std::string_view name) {
  for (auto status : all_candidate_statuses) {
    if (to_string(status) == name) return status;
  }
  throw invalid_argument_error(
      fmt::format("rocmtpl: parse_candidate_status: unknown status '{}'; expected one of ok, compile_failed, "
                  "launch_failed, verify_failed, crashed, timed_out, skipped",
                  name));
}

ROCMTPL_INLINE device_mismatch_error::device_mismatch_error(std::string candidate, std::string key_device,
                                                            std::string measured_on, const std::string& device_id)
    : invalid_argument_error(fmt::format(
          "rocmtpl: tuning_db: candidate '{}' was measured on a '{}'{} but its tuning key is for a '{}'; times "
          "of different device models are not comparable: store it under a key for its own device",
          candidate, measured_on, device_id.empty() ? std::string() : fmt::format(" (GPU {})", device_id), key_device)),
      candidate_(std::move(candidate)),
      key_device_(std::move(key_device)),
      measured_on_(std::move(measured_on)) {}

namespace detail {

// Appends a little-endian 64-bit length then the bytes: the framing makes ("ab","c") != ("a","bc"),
// and is the same on every platform.
ROCMTPL_INLINE void digest_field(XXH3_state_t* state, std::string_view field) {
  std::array<unsigned char, 8> len{};
  auto n = static_cast<std::uint64_t>(field.size());
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = static_cast<unsigned char>((n >> (8 * i)) & 0xffU);
  XXH3_128bits_update(state, len.data(), len.size());
  XXH3_128bits_update(state, field.data(), field.size());
}

}  // namespace detail

ROCMTPL_INLINE std::string tuning_key::digest() const {
  std::unique_ptr<XXH3_state_t, detail::xxh3_state_deleter> state(XXH3_createState());
  if (!state) throw std::bad_alloc();
  XXH3_128bits_reset(state.get());
  // Domain tag: a new digest format must change this, and with it the database schema version.
  detail::digest_field(state.get(), "rocmtpl.tuning_key.v1");
  for (const std::string* field :
       {&template_name, &problem, &runtime_args, &arch, &device, &compiler_version, &library_version}) {
    detail::digest_field(state.get(), *field);
  }
  XXH128_canonical_t canonical;  // big-endian bytes: the same on every platform
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state.get()));
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof(canonical.digest));
  for (unsigned char byte : canonical.digest) {
    out.push_back(hex[byte >> 4U]);
    out.push_back(hex[byte & 0xfU]);
  }
  return out;
}

}  // namespace rocmtpl::runtime
