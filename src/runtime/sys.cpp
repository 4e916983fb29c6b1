// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/sys/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>
#include <rocmtpl/runtime/sys/log.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include <rocmtpl/runtime/sys/atomic_file-inl.hpp>
#include <rocmtpl/runtime/sys/cache_root-inl.hpp>
#include <rocmtpl/runtime/sys/log-inl.hpp>
#include <rocmtpl/runtime/sys/platform-inl.hpp>
#include <rocmtpl/runtime/sys/process-inl.hpp>
#include <rocmtpl/runtime/sys/shared_library-inl.hpp>
