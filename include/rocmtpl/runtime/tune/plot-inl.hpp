// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/tune/plot.hpp: included at its end (header-only) or compiled once by
// src/runtime/tune.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace rocmtpl::runtime {

namespace detail::plot_impl {

// gnuplot single-quoted string: '' is a quote.
ROCMTPL_INLINE std::string gp_string(std::string_view s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

// Data file column: double-quoted, without quotes inside.
ROCMTPL_INLINE std::string label(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? '\'' : ch;
  return out + "\"";
}

// The script's head: terminal by extension, output, title, the common style.
ROCMTPL_INLINE std::string head(const std::filesystem::path& file, std::string_view title, std::size_t bars) {
  const bool svg = file.extension() == ".svg";
  return fmt::format(
      "set terminal {} size {},600 noenhanced\nset output {}\nset title {}\nset yrange [0:*]\n"
      "set style fill solid 0.6\nset boxwidth 0.7\nset xtics rotate by -45 font ',8'\nset key top left\n"
      "set grid ytics\nset bmargin 10\n",
      svg ? "svg" : "png", std::max<std::size_t>(800, 40 * bars + 200),
      gp_string(std::filesystem::absolute(file).string()), gp_string(title));
}

// Writes data and script into a private folder, runs gnuplot, checks the file exists.
ROCMTPL_INLINE plot_result draw(const std::filesystem::path& file, const std::string& script_body,
                                const std::string& data) {
  namespace fs = std::filesystem;
  const auto ext = file.extension();
  if (ext != ".png" && ext != ".svg") {
    throw invalid_argument_error("rocmtpl: plot: '" + file.string() + "' must end in .png or .svg");
  }
  const auto gnuplot = find_executable("gnuplot");
  if (!gnuplot) {
    return {false, "gnuplot not found on PATH; " + file.string() + " not written (apt-get install gnuplot-nox)"};
  }
  std::string pattern = (fs::temp_directory_path() / "rocmtpl-plot-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw plot_error("rocmtpl: plot: cannot create a temporary folder");
  const fs::path work = pattern;
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  std::error_code ec;
  fs::remove(file, ec);  // so that a file left by an earlier run cannot pass for this one
  write_file_atomic(work / "points.dat", data);
  // The body names the data file `@DATA@` (a title may hold anything, so no format string).
  std::string script = script_body + "\n";
  const std::string data_file = gp_string((work / "points.dat").string());
  for (auto at = script.find("@DATA@"); at != std::string::npos; at = script.find("@DATA@", at + data_file.size())) {
    script.replace(at, 6, data_file);
  }
  write_file_atomic(work / "plot.gp", script);
  const auto result =
      run_process({gnuplot->string(), (work / "plot.gp").string()}, {.timeout = std::chrono::seconds(60)});
  fs::remove_all(work, ec);
  if (!result.ok() || !fs::exists(file)) {
    throw plot_error(fmt::format("rocmtpl: plot: gnuplot failed (exit {}) drawing {}: {}", result.exit_code,
                                 file.string(), result.output.substr(0, result.output.find('\n'))));
  }
  return {true, "wrote plot " + file.string()};
}

}  // namespace detail::plot_impl

ROCMTPL_INLINE plot_result plot_candidates(const std::filesystem::path& file, std::string_view title,
                                           const std::vector<candidate_point>& points) {
  if (points.empty()) return {false, "no candidate times to plot; " + file.string() + " not written"};
  std::string data;
  for (const auto& p : points)
    data += fmt::format("{} {} {}\n", detail::plot_impl::label(p.config), p.min_ms, p.median_ms);
  const std::string body = detail::plot_impl::head(file, title, points.size()) +
                           "set ylabel 'time [ms]'\nset xlabel 'configuration'\n"
                           "plot @DATA@ using 0:2:xtic(1) with boxes title 'min', '' using 0:3 with points pt 7 "
                           "title 'median'";
  return detail::plot_impl::draw(file, body, data);
}

ROCMTPL_INLINE plot_result plot_winners(const std::filesystem::path& file, std::string_view title,
                                        const std::vector<winner_point>& points) {
  if (points.empty()) return {false, "no winners to plot; " + file.string() + " not written"};
  std::string data;
  for (const auto& p : points) {
    data += fmt::format("{} {} {}\n", detail::plot_impl::label(p.shape), p.tflops, detail::plot_impl::label(p.config));
  }
  const std::string body = detail::plot_impl::head(file, title, points.size()) +
                           "set ylabel 'TFLOP/s'\nset xlabel 'shape'\nset offsets 0,0,graph 0.35,0\n"
                           "plot @DATA@ using 0:2:xtic(1) with boxes title 'winner', '' using 0:2:3 with labels "
                           "rotate left offset 0,0.5 font ',7' notitle";
  return detail::plot_impl::draw(file, body, data);
}

}  // namespace rocmtpl::runtime
