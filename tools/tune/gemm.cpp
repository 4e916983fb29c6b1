// SPDX-License-Identifier: MIT
// rocmtpl-tune gemm: tune the GEMM template for one problem; the ranked table (or, without a GPU,
// what the compiler says about each candidate's resources) and the reports.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/runtime/build/amd_emulator.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>
#include <rocmtpl/runtime/tune/plot.hpp>

#include "commands.hpp"
#include "gemm_problem.hpp"

namespace rocmtpl_tune {

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl::runtime;

/// The gemm options: the problem, how to tune it, the reports.
struct gemm_args {
  gemm_problem_args problem;
  tuning_settings tuning;
  std::string db;
  std::string json;
  std::string csv;
  std::string emit_source;
  std::string plot;
};

std::string short_name(const rendered_candidates& rendered, const candidate_report& c) {
  auto it = rendered.find(c.id);
  return it != rendered.end() ? it->second.short_name : c.config;
}

std::string spills_text(const kernel_resource_usage& r) {
  if (!r.spills()) return "none";
  if (r.spill_store_bytes > 0 || r.spill_load_bytes > 0) {
    return fmt::format("{}/{} B", r.spill_store_bytes, r.spill_load_bytes);
  }
  return fmt::format("s{} v{}", r.sgpr_spills, r.vgpr_spills);
}

// `void (anonymous namespace)::gemm_kernel<4, 4>(float const*, ...)` -> `gemm_kernel<4, 4>`.
std::string short_kernel_name(const kernel_resource_usage& u) {
  std::string s = u.kernel.empty() ? u.mangled_name : u.kernel;
  for (std::string_view drop : {"(anonymous namespace)::", "void "}) {
    for (auto at = s.find(drop); at != std::string::npos; at = s.find(drop)) s.erase(at, drop.size());
  }
  return s.substr(0, s.find('('));
}

/// Without a GPU: per candidate and arch, what the compiler reported.
void print_resource_table(std::ostream& os, const autotune_report& r, const rendered_candidates& rendered) {
  std::size_t width = 6;
  std::size_t kernel_width = 6;
  for (const auto& c : r.candidates) {
    width = std::max(width, short_name(rendered, c).size());
    for (const auto& u : c.resources) kernel_width = std::max(kernel_width, short_kernel_name(u).size());
  }
  // One row: index, config, arch, kernel, VGPR, SGPR, AGPR, LDS, occupancy, spills, compile time.
  auto row = [&](const std::string& index, const std::string& config, const std::string& arch,
                 const std::string& kernel, const auto& vgpr, const auto& sgpr, const auto& agpr, const auto& lds,
                 const auto& occ, const std::string& spills, const std::string& compile) {
    os << fmt::format("{:>3}  {:<{}} {:<8} {:<{}} {:>5} {:>5} {:>5} {:>7} {:>4} {:>8} {:>9}\n", index, config, width,
                      arch, kernel, kernel_width, vgpr, sgpr, agpr, lds, occ, spills, compile);
  };
  row("#", "config", "arch", "kernel", "VGPR", "SGPR", "AGPR", "LDS", "occ", "spills", "compile");
  std::size_t index = 0;
  for (const auto& c : r.candidates) {
    ++index;
    const auto name = short_name(rendered, c);
    if (c.result.status == candidate_status::compile_failed) {
      // compile_error's first line is the compiler's own first error (not "exit code 1").
      os << fmt::format("{:>3}  {:<{}} compile failed: {}\n", index, name, width,
                        without_library_prefix(first_line(c.result.reason)));
      continue;
    }
    const std::string compile = c.compile_cached ? "cached" : fmt::format("{:.1f} s", c.compile_seconds);
    if (c.resources.empty()) {
      row(std::to_string(index), name, "-", "-", "-", "-", "-", "-", "-", "-", compile);
      continue;
    }
    bool first = true;
    for (const auto& u : c.resources) {
      row(first ? std::to_string(index) : "", first ? name : "", u.arch.empty() ? "?" : u.arch, short_kernel_name(u),
          u.vgprs, u.sgprs, u.agprs, u.lds_bytes, u.occupancy, spills_text(u), first ? compile : "");
      first = false;
    }
  }
}

// RFC 4180 field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

void write_csv(const fs::path& file, const autotune_report& r, const rendered_candidates& rendered) {
  std::string os =
      "rank,name,config,status,reason,min_ms,median_ms,spread,repetitions,verified,max_error,compile_seconds,"
      "compile_cached,max_vgprs,max_registers,spills,id,device,device_id,final_ms\n";
  std::size_t rank = 0;
  for (const auto* c : r.ranked()) {
    ++rank;
    int vgprs = 0;
    int registers = 0;
    bool spills = false;
    for (const auto& u : c->resources) {
      vgprs = std::max(vgprs, u.vgprs);
      registers = std::max(registers, u.registers);
      spills = spills || u.spills();
    }
    const auto& m = c->result;
    os += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{},{},{}\n", rank,
                      csv_field(short_name(rendered, *c)), csv_field(c->config), to_string(m.status),
                      csv_field(m.reason), m.min_ms, m.median_ms, m.spread, m.repetitions, m.verified ? 1 : 0,
                      m.max_error, c->compile_seconds, c->compile_cached ? 1 : 0, vgprs, registers, spills ? 1 : 0,
                      csv_field(c->id), csv_field(m.device), csv_field(m.device_id), c->final_ms);
  }
  write_text(file, os);
}

/// Writes the sources (and the portability header they include, so that they build on their own).
std::size_t emit_sources(const fs::path& dir, const autotune_report& r, const rendered_candidates& rendered,
                         bool winner_only) {
  fs::create_directories(dir);
  std::size_t written = 0;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    if (winner_only && (!r.winner || *r.winner != i)) continue;
    const auto& c = r.candidates[i];
    if (auto it = rendered.find(c.id); it != rendered.end()) {
      write_text(dir / ("gemm_" + it->second.short_name + ".hip"), it->second.source);
    } else if (const auto cached = c.library.parent_path() / "source.hip"; !c.library.empty() && fs::exists(cached)) {
      // The code cache keeps each library's source next to it.
      fs::copy_file(cached, dir / (c.name + ".hip"), fs::copy_options::overwrite_existing);
    } else {
      throw std::runtime_error("--emit-source: no source for candidate " + c.name + " (" + c.config + ")");
    }
    ++written;
  }
  write_text(dir / std::string(rocmtpl::device::portable_header_name), rocmtpl::device::portable_header_source);
  return written;
}

/// Draws min and median times per candidate with gnuplot (runtime/tune/plot.hpp). Returns false when
/// the plot failed; a missing gnuplot or nothing to draw is a note on stderr, not a failure.
bool plot_times(const fs::path& file, const autotune_report& r, const rendered_candidates& rendered,
                const std::string& title) {
  std::vector<candidate_point> points;
  for (const auto* c : r.ranked()) {
    if (c->result.status == candidate_status::ok && c->result.min_ms > 0) {
      points.push_back({short_name(rendered, *c), c->result.min_ms, c->result.median_ms});
    }
  }
  if (points.empty()) {
    std::cerr << "rocmtpl-tune: --plot: no candidate times to plot ("
              << (r.gpu ? "no candidate ran" : "benchmarking needs a GPU") << "); " << file.string()
              << " not written\n";
    return true;
  }
  try {
    const auto result = plot_candidates(file, title, points);
    (result.written ? std::cout : std::cerr)
        << (result.written ? "" : "rocmtpl-tune: --plot: ") << result.message << '\n';
    return true;
  } catch (const plot_error& e) {
    std::cerr << "rocmtpl-tune: --plot: " << without_library_prefix(e.what()) << '\n';
    return false;
  }
}

/// With a GPU: the ranked table, the winner and where the results went. False when nothing ran.
bool print_benchmarks(const autotune_report& report, const autotune_options& o, const gemm_problem& problem,
                      const rendered_candidates& rendered) {
  bool ok = true;
  report.print_table(std::cout);
  if (const auto* best = report.best()) {
    const double tflops = best->result.min_ms > 0 ? problem.flops() / (best->result.min_ms * 1e-3) / 1e12 : 0.0;
    std::cout << fmt::format("winner: {} ({}), {:.4f} ms, {:.2f} TFLOP/s{}\n", short_name(rendered, *best), best->name,
                             best->result.min_ms, tflops, best->result.verified ? ", verified" : "");
  } else {
    std::cerr << "rocmtpl-tune: no candidate ran" << (o.verify ? " and verified" : "") << "; see the table\n";
    ok = false;
  }
  if (report.from_database) {
    std::cout << "answered from the tuning database: nothing compiled or run\n";
  } else {
    std::cout << fmt::format("compiled {}, benchmarked {} in {:.1f} s on {} ({})\n", report.compiled,
                             report.benchmarked, report.wall_seconds, report.key.device, report.key.arch);
  }
  std::cout << "tuning database " << (o.database.empty() ? tuning_db::default_path() : o.database).string()
            << " (rocmtpl-tune db list)\n";
  return ok;
}

/// On the AMD emulator: the table and what was verified; nothing was timed. False when a candidate
/// failed (verification, launch) or none was verified.
bool print_emulated(const autotune_report& report) {
  report.print_table(std::cout);
  std::size_t verified = 0;
  std::size_t refused = 0;  // NVIDIA-only configurations, which the AMD entry refuses
  std::size_t failed = 0;
  for (const auto& c : report.candidates) {
    verified += c.result.verified ? 1 : 0;
    refused += c.result.status == candidate_status::skipped ? 1 : 0;
    failed += c.result.status == candidate_status::verify_failed || c.result.status == candidate_status::launch_failed
                  ? 1
                  : 0;
  }
  std::cout << fmt::format(
      "AMD emulator: {} of {} candidates verified, {} refused on AMD, {} failed, in {:.1f} s "
      "({} compiled); nothing was timed, no winner, nothing stored\n",
      verified, report.candidates.size(), refused, failed, report.wall_seconds, report.compiled);
  if (verified > 0 && failed == 0) return true;
  std::cerr << "rocmtpl-tune: " << (failed > 0 ? "a candidate failed on the AMD emulator" : "no candidate verified")
            << "; see the table\n";
  return false;
}

/// Without a GPU: what the compiler said. False when no candidate compiled.
bool print_compiles(const autotune_report& report, const rendered_candidates& rendered) {
  print_resource_table(std::cout, report, rendered);
  const std::size_t compiled_ok = count_compiled(report);
  std::cout << fmt::format("compiled {} of {} candidates in {:.1f} s ({} compiler runs)\n", compiled_ok,
                           report.candidates.size(), report.wall_seconds, report.compiled);
  std::cout << "benchmarking needs a GPU: " << report.gpu_status << '\n';
  if (compiled_ok > 0) return true;
  std::cerr << "rocmtpl-tune: no candidate compiled; see the table\n";
  return false;
}

/// --json, --csv, --emit-source and --plot. False when the plot failed.
bool write_reports(const gemm_args& a, const autotune_report& report, const gemm_problem& problem,
                   const rendered_candidates& rendered) {
  if (!a.json.empty()) {
    auto j = report.to_json();
    j["problem"] = problem.summary();
    write_text(a.json, j.dump(2) + "\n");
    std::cout << "wrote " << a.json << '\n';
  }
  if (!a.csv.empty()) {
    write_csv(a.csv, report, rendered);
    std::cout << "wrote " << a.csv << '\n';
  }
  if (!a.emit_source.empty()) {
    // With a winner: its source; otherwise (no GPU, or nothing won) every candidate's.
    const bool winner_only = report.winner.has_value();
    const auto n = emit_sources(a.emit_source, report, rendered, winner_only);
    std::cout << fmt::format("wrote {} {} to {}\n", n,
                             winner_only ? "winner source"
                             : n == 1    ? "source"
                                         : "sources",
                             a.emit_source);
  }
  return a.plot.empty() || plot_times(a.plot, report, rendered, problem.description());
}

int run_gemm(gemm_args& a) {
  if (a.problem.layout_name.size() != 2) throw usage_error("--layout must be rr, rc, cr or cc");
  normalize_symbols(a.problem.symbolic);
  const gemm_problem problem(a.problem);
  // The emulator becomes this process's GPU runtime before anything asks for one.
  if (a.tuning.emulate_amd) (void)use_amd_emulator();
  check_cache_folder();
  const auto& gpu = gpu_runtime::instance();
  const auto o = tune_options(a.tuning, a.db);
  const auto rendered = problem.render_candidates(a.tuning.top_k);
  std::cout << problem.description() << ": " << rendered.size() << " candidate" << (rendered.size() == 1 ? "" : "s")
            << (a.tuning.emulate_amd ? ", on the AMD emulator (correctness only)"
                : gpu.available()    ? ""
                                     : ", compiled for " + fmt::format("{}", fmt::join(a.tuning.archs, ",")))
            << '\n';

  const auto report = problem.tune(o);
  const bool ok = report.emulated ? print_emulated(report)
                  : report.gpu    ? print_benchmarks(report, o, problem, rendered)
                                  : print_compiles(report, rendered);
  const bool written = write_reports(a, report, problem, rendered);
  return ok && written ? 0 : 1;
}

// The problem's options, in the order --help lists them.
void add_problem_options(CLI::App& cmd, gemm_problem_args& p) {
  cmd.add_option("--m", p.m, "rows of X and Y")->required()->check(count_validator(false));
  cmd.add_option("--n", p.n, "columns of W and Y")->required()->check(count_validator(false));
  cmd.add_option("--k", p.k, "columns of X, rows of W")->required()->check(count_validator(false));
  cmd.add_option("--batch", p.batch, "batch count (adds a leading batch dimension when > 1)")
      ->check(count_validator(false))
      ->capture_default_str();
  cmd.add_option("--dtype", p.dtype_name, "element type of X, W, bias and Y")
      ->transform(gemm_dtype_validator())
      ->capture_default_str();
  cmd.add_option("--layout", p.layout_name, "X and W storage: r = row-major, c = column-major")
      ->check(CLI::IsMember({"rr", "rc", "cr", "cc"}))
      ->capture_default_str();
  cmd.add_option("--epilogue", p.epilogue, "activation applied after the bias")
      ->check(CLI::IsMember(activation_names()))
      ->capture_default_str();
  cmd.add_option("--alpha", p.alpha, "scale of X @ W")->check(finite_float_validator())->capture_default_str();
  cmd.add_flag("--bias,!--no-bias", p.bias, "add a bias of N values broadcast along the rows (--no-bias: none)");
  cmd.add_option("--symbolic", p.symbolic,
                 "sizes that are kernel arguments instead of constants (M,N,K,B); --m/--n/--k/--batch give their "
                 "values for benchmarking")
      ->delimiter(',')
      ->check(CLI::IsMember({"M", "N", "K", "B"}, CLI::ignore_case));
}

}  // namespace

command register_gemm(CLI::App& app) {
  auto a = std::make_shared<gemm_args>();
  auto* cmd = app.add_subcommand(
      "gemm", "Tune the GEMM template for one problem: Y = act(alpha * X @ W + bias), X [M, K], W [K, N]");
  add_problem_options(*cmd, a->problem);
  add_tuning_options(*cmd, a->tuning,
                     {"candidates tried: the template's first N ranked configurations (0: all)",
                      "parallel compiles (0: two per core)"});
  cmd->add_flag("--emulate-amd", a->tuning.emulate_amd,
                "run the candidates on the AMD emulator (the CPU, wave64) instead of a GPU: each built for the "
                "host, run once and verified against the reference; nothing is timed or stored (correctness only)");
  cmd->add_flag("--shared-libraries", a->tuning.shared_libraries,
                "compile candidates as shared libraries called through their C entry, not as device-only code "
                "objects launched through the module API");
  add_database_option(*cmd, a->db, "tuning " + std::string(database_help));
  cmd->add_option("--json", a->json, "write the full report as JSON");
  cmd->add_option("--csv", a->csv, "write the ranked candidates as CSV");
  cmd->add_option("--emit-source", a->emit_source,
                  "write the winner's HIP source into DIR (every candidate's when there is no winner)")
      ->type_name("DIR");
  cmd->add_option("--plot", a->plot, "draw the candidates' times with gnuplot (PNG or SVG by extension)")
      ->check(plot_file_validator());
  return {cmd, [a] { return run_gemm(*a); }};
}

}  // namespace rocmtpl_tune
