// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/gpu/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/handles.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>
#include <rocmtpl/runtime/gpu/vendor_api.hpp>

#include <rocmtpl/runtime/gpu/device_identity-inl.hpp>
#include <rocmtpl/runtime/gpu/error-inl.hpp>
#include <rocmtpl/runtime/gpu/handles-inl.hpp>
#include <rocmtpl/runtime/gpu/loader-inl.hpp>
#include <rocmtpl/runtime/gpu/options-inl.hpp>
#include <rocmtpl/runtime/gpu/vendor_api-inl.hpp>
