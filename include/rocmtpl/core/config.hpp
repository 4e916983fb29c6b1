// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Header-only (the default) or compiled once, the way {fmt} does it.
///
/// Each header declares its functions and, at its end, includes its implementation
/// (`<name>-inl.hpp`), whose definitions are marked `ROCMTPL_INLINE`. By default that is `inline`:
/// `g++ -std=c++20 -I include app.cpp` builds with no library and no define.
///
/// With `ROCMTPL_COMPILED_LIBRARY` defined (CMake: `-DROCMTPL_HEADER_ONLY=OFF`, which builds
/// `rocmtpl::rocmtpl` and `rocmtpl::runtime` as libraries and gives their users the define), the
/// headers stop at the declarations and the implementations are compiled once, by the files of
/// `src/`: a program that uses the library parses its headers but compiles none of its functions.
/// Templates (the policies' class templates, function templates) stay in the headers; the stock
/// policies are also instantiated once there (`extern template`).

#if defined(ROCMTPL_COMPILED_LIBRARY)
#define ROCMTPL_INLINE
#else
/// @brief `inline` for a header-only build; empty where the implementation is compiled once.
#define ROCMTPL_INLINE inline
#endif
