// SPDX-License-Identifier: MIT
// rocmtpl-tune's subcommands, one file each: each adds itself to the application, its options bound
// to values of its own, and returns what runs it once parsed.
#pragma once

#include "options.hpp"

namespace rocmtpl_tune {

command register_gemm(CLI::App& app);    // gemm.cpp
command register_db(CLI::App& app);      // db.cpp: list, show, export, plot, clear
command register_batch(CLI::App& app);   // batch.cpp
command register_export(CLI::App& app);  // export.cpp

}  // namespace rocmtpl_tune
