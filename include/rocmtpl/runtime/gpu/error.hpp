// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The errors of the GPU runtime: `gpu_error` (a runtime call failed) and `no_gpu_error`
/// (a GPU operation where no GPU can be used).

#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

/// @brief A GPU runtime call failed.
class gpu_error : public rocmtpl::error {
 public:
  /// @brief Makes the error.
  /// @param api the runtime function that failed ("cudaMalloc", "hipMemcpy", ...).
  /// @param code its return code (cudaError_t / hipError_t value).
  /// @param message the runtime's text for the code, plus context.
  gpu_error(std::string api, int code, std::string message);

  /// @brief The runtime's error code.
  [[nodiscard]] int code() const noexcept { return code_; }
  /// @brief The runtime function that failed.
  [[nodiscard]] const std::string& api() const noexcept { return api_; }

 protected:
  /// @brief Selects the constructor that takes the whole message.
  struct preformatted_tag {};
  /// @brief For derived errors: `what` is the whole message.
  gpu_error(preformatted_tag, std::string what, std::string api, int code)
      : rocmtpl::error(std::move(what)), api_(std::move(api)), code_(code) {}

 private:
  std::string api_;
  int code_;
};

/// @brief A GPU operation was asked for where no GPU can be used. what() says why: no runtime
/// library, no device, or the driver's error.
class no_gpu_error : public gpu_error {
 public:
  /// @param operation the gpu_runtime operation that was called ("malloc", ...).
  /// @param code the error of the device query (-1 when no runtime library was loaded).
  /// @param why gpu_runtime::status().
  no_gpu_error(const std::string& operation, int code, const std::string& why);
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/gpu/error-inl.hpp>
#endif
