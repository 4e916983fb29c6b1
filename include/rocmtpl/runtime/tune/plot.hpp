// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Pictures of tuning results with gnuplot (PNG or SVG by the file's extension): a problem's
/// candidates (time against configuration) and a set of problems' winners (TFLOP/s against shape).
/// Used by `rocmtpl-tune gemm --plot` and `rocmtpl-tune db plot`.
///
/// gnuplot is found on PATH (Debian: `apt-get install gnuplot-nox`); without it nothing is drawn
/// and the result says so (plot_result::written false), so callers can go on.
///
/// @code{.cpp}
/// std::vector<rocmtpl::runtime::candidate_point> points{{"bm64_bn64", 0.21, 0.22}, {"bm128_bn64", 0.17, 0.18}};
/// auto r = rocmtpl::runtime::plot_candidates("times.svg", "gemm M=N=K=4096", points);
/// if (!r.written) std::cerr << r.message << '\n';
/// @endcode

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl::runtime {

/// @brief gnuplot ran and failed (bad script, unwritable output). The message carries its first line.
class plot_error : public error {
 public:
  using error::error;
};

/// @brief One candidate of a problem: its configuration's name and times.
struct candidate_point {
  std::string config;    ///< short configuration name (the x axis label)
  double min_ms = 0;     ///< best time
  double median_ms = 0;  ///< median time
};

/// @brief One problem's winner: its shape and speed.
struct winner_point {
  std::string shape;   ///< the x axis label, e.g. `4096x4096x4096 f16`
  double tflops = 0;   ///< the winner's speed
  std::string config;  ///< the winner's configuration (printed above its bar)
};

/// @brief What a plot did.
struct plot_result {
  bool written = false;  ///< the file was written
  std::string message;   ///< why not, or `wrote plot FILE`
};

namespace detail::plot_impl {

std::string gp_string(std::string_view s);

std::string label(std::string_view s);

std::string head(const std::filesystem::path& file, std::string_view title, std::size_t bars);

plot_result draw(const std::filesystem::path& file, const std::string& script_body, const std::string& data);

}  // namespace detail::plot_impl

/// @brief Bars of each candidate's best time, with its median as a point, in the given order.
/// @param file `.png` or `.svg`
/// @param title the plot's title (the problem)
/// @param points the candidates that ran; none: nothing is drawn (the result says so)
/// @throws invalid_argument_error for another extension; plot_error when gnuplot fails.
plot_result plot_candidates(const std::filesystem::path& file, std::string_view title,
                            const std::vector<candidate_point>& points);

/// @brief Bars of each problem's winner speed in TFLOP/s, in the given order, labelled by shape.
/// @param file `.png` or `.svg`
/// @param title the plot's title
/// @param points the winners; none: nothing is drawn (the result says so)
/// @throws invalid_argument_error for another extension; plot_error when gnuplot fails.
plot_result plot_winners(const std::filesystem::path& file, std::string_view title,
                         const std::vector<winner_point>& points);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/tune/plot-inl.hpp>
#endif
