// SPDX-License-Identifier: MIT
// rocmtpl-tune: the autotuner and the tuning database from the command line.
//
//   rocmtpl-tune gemm --m 4096 --n 4096 --k 4096 --dtype f16 --layout rc --epilogue relu --bias
//   rocmtpl-tune batch problems.json [--db postgresql://host/db] [--lease 60] [--status]
//   rocmtpl-tune db list | show <digest-prefix> | export [FILE] | clear [--template NAME]
//   rocmtpl-tune db plot [<digest-prefix>] --output FILE.png|FILE.svg
//   rocmtpl-tune export --header out/pretuned_gemm.hpp [--module out/pretuned] [--namespace NAME]
//
// gemm renders the GEMM template's candidates for one problem, compiles them in parallel and, where
// a GPU exists, benchmarks them in an isolated worker process (rocmtpl-bench-worker, found next to
// this program), prints the ranked table and writes the reports. Without a GPU it compiles for the
// --arch targets and prints what the compiler says about each candidate's resources.
//
// batch tunes a list of GEMM problems (a JSON array of objects with the gemm options' fields) with
// claims in the tuning database: resumable, and shared without overlap by several tuners (on
// several hosts with a postgresql:// database). --db (or ROCMTPL_TUNING_DB) takes a SQLite file or
// a postgresql:// URL everywhere.
//
// Exit codes: 0 done; 1 the work failed (`rocmtpl-tune: <what>` on stderr); 2 bad arguments
// (one line on stderr).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rocmtpl/runtime.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;

/// A problem with the arguments found after parsing: reported like a parse error (exit code 2).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Library messages start with "rocmtpl: "; the tool prefixes its own name instead.
std::string without_library_prefix(std::string_view what) {
  constexpr std::string_view prefix = "rocmtpl: ";
  if (what.substr(0, prefix.size()) == prefix) what.remove_prefix(prefix.size());
  return std::string(what);
}

std::string first_line(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

// ---- gemm ---------------------------------------------------------------------------------------

struct gemm_args {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  std::string dtype_name = "f32";
  std::string layout_name = "rr";
  std::string epilogue = "none";
  float alpha = 1.0F;
  bool bias = false;
  std::vector<std::string> symbolic;
  std::vector<std::string> archs{"gfx90a", "gfx940"};
  std::size_t top_k = 16;
  unsigned jobs = 0;
  double budget_ms = 25.0;
  bool no_verify = false;
  bool no_isolate = false;
  bool shared_libraries = false;
  std::string db;
  std::string json;
  std::string csv;
  std::string emit_source;
  std::string plot;
};

/// The GEMM problem the arguments describe, and what the reports need to know about it.
struct gemm_problem {
  rocm_template<templates::gemm_policy> tpl;
  size_hints hints;
  std::string description;  // one line for people
  nlohmann::json summary;   // the same for the JSON report
  double flops = 0;         // 2 * batch * M * N * K
};

bool is_symbolic(const gemm_args& a, std::string_view name) {
  return std::find(a.symbolic.begin(), a.symbolic.end(), name) != a.symbolic.end();
}

gemm_problem make_gemm_problem(const gemm_args& a) {
  const dtype type = parse_dtype(a.dtype_name);
  const auto act = templates::parse_activation(a.epilogue);
  size_hints hints;
  auto dim = [&](const char* name, std::int64_t value) {
    if (!is_symbolic(a, name)) return sym_expr(value);
    hints[name] = value;
    return sym_expr::symbol(name);
  };
  const sym_expr m = dim("M", a.m);
  const sym_expr n = dim("N", a.n);
  const sym_expr k = dim("K", a.k);
  // A batch dimension only when asked for: the plain GEMM stays rank 2.
  const bool batched = a.batch > 1 || is_symbolic(a, "B");
  const sym_expr b = batched ? dim("B", a.batch) : sym_expr(1);
  auto shape = [&](const sym_expr& rows, const sym_expr& cols) {
    std::vector<sym_expr> s;
    if (batched) s.push_back(b);
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  auto operand = [&](char order, const sym_expr& rows, const sym_expr& cols) {
    return order == 'r' ? layout::row_major(type, shape(rows, cols)) : layout::col_major(type, shape(rows, cols));
  };
  std::vector<buffer> inputs{buffer("x", operand(a.layout_name[0], m, k)),
                             buffer("w", operand(a.layout_name[1], k, n))};
  if (a.bias) inputs.emplace_back("bias", layout::row_major(type, {n}));
  auto y = layout::row_major(type, shape(m, n));

  std::string symbols;
  for (const auto& s : a.symbolic) symbols += (symbols.empty() ? "" : ",") + s;
  const std::string epilogue(templates::to_string(act));
  const std::string core =
      (a.alpha == 1.0F ? std::string() : fmt::format("{} * ", a.alpha)) + "X @ W" + (a.bias ? " + bias" : "");
  std::string description =
      fmt::format("gemm {}M={} N={} K={} {} {}, Y = {}", batched ? fmt::format("batch={} ", a.batch) : std::string(),
                  a.m, a.n, a.k, name(type), a.layout_name, epilogue == "none" ? core : epilogue + "(" + core + ")");
  if (!symbols.empty()) description += " (symbolic " + symbols + ")";

  nlohmann::json summary{{"template", "gemm"},
                         {"m", a.m},
                         {"n", a.n},
                         {"k", a.k},
                         {"batch", a.batch},
                         {"dtype", std::string(name(type))},
                         {"layout", a.layout_name},
                         {"epilogue", epilogue},
                         {"alpha", a.alpha},
                         {"bias", a.bias},
                         {"symbolic", a.symbolic}};
  const double flops = 2.0 * static_cast<double>(a.batch) * static_cast<double>(a.m) * static_cast<double>(a.n) *
                       static_cast<double>(a.k);
  return {rocm_template<templates::gemm_policy>(templates::gemm_policy(templates::gemm_options{act, a.alpha}),
                                                std::move(inputs), std::move(y)),
          std::move(hints), std::move(description), std::move(summary), flops};
}

/// The candidates the autotuner sees (the policy's first top_k configurations), rendered again
/// here for their sources and short names; keyed by the report's candidate id.
struct rendered_candidate {
  std::string short_name;  // gemm_config::name(): bm64_bn64_bk16_tm4_tn4_g8
  std::string source;
};

// The configurations in the order the autotuner takes them: ranked for the problem where the policy
// can (configs(context, hints)), else its plain list.
template <class Policy>
auto ranked_configs(const rocm_template<Policy>& tpl, const size_hints& hints) {
  if constexpr (requires { tpl.policy().configs(tpl.context(), hints); }) {
    return tpl.policy().configs(tpl.context(), hints);
  } else {
    return tpl.policy().configs();
  }
}

std::map<std::string, rendered_candidate> render_candidates(const gemm_problem& p, std::size_t top_k) {
  std::map<std::string, rendered_candidate> out;
  for (const auto& config : ranked_configs(p.tpl, p.hints)) {
    if (top_k != 0 && out.size() >= top_k) break;
    const auto caller = p.tpl.generate(config, p.hints);
    out.emplace(caller.hash_key(), rendered_candidate{config.name(), caller.source()});
  }
  return out;
}

std::string short_name(const std::map<std::string, rendered_candidate>& rendered, const candidate_report& c) {
  auto it = rendered.find(c.id);
  return it != rendered.end() ? it->second.short_name : c.config;
}

/// Candidates that ran first (fastest first), then the others, in the order print_table uses.
std::vector<const candidate_report*> ranked(const autotune_report& r) {
  std::vector<const candidate_report*> rows;
  for (const auto& c : r.candidates) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(), [](const candidate_report* a, const candidate_report* b) {
    const bool ao = a->result.status == candidate_status::ok && a->result.min_ms > 0;
    const bool bo = b->result.status == candidate_status::ok && b->result.min_ms > 0;
    if (ao != bo) return ao;
    return ao && a->result.min_ms < b->result.min_ms;
  });
  return rows;
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
void print_resource_table(std::ostream& os, const autotune_report& r,
                          const std::map<std::string, rendered_candidate>& rendered) {
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

// Creates the file's folder first, so that `--json out/report.json` works in a fresh tree.
void make_parent(const fs::path& file) {
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
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

void write_text(const fs::path& file, std::string_view text) {
  make_parent(file);
  rocmtpl::runtime::detail::write_file_atomic(file, text);  // a reader never sees half a report
}

void write_csv(const fs::path& file, const autotune_report& r,
               const std::map<std::string, rendered_candidate>& rendered) {
  std::string os =
      "rank,name,config,status,reason,min_ms,median_ms,spread,repetitions,verified,max_error,compile_seconds,"
      "compile_cached,max_vgprs,max_registers,spills,id,device,device_id\n";
  std::size_t rank = 0;
  for (const auto* c : ranked(r)) {
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
    os += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{},{}\n", rank,
                      csv_field(short_name(rendered, *c)), csv_field(c->config), to_string(m.status),
                      csv_field(m.reason), m.min_ms, m.median_ms, m.spread, m.repetitions, m.verified ? 1 : 0,
                      m.max_error, c->compile_seconds, c->compile_cached ? 1 : 0, vgprs, registers, spills ? 1 : 0,
                      csv_field(c->id), csv_field(m.device), csv_field(m.device_id));
  }
  write_text(file, os);
}

/// Writes the sources (and the portability header they include, so that they build on their own).
std::size_t emit_sources(const fs::path& dir, const autotune_report& r,
                         const std::map<std::string, rendered_candidate>& rendered, bool winner_only) {
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
  write_text(dir / std::string(device::portable_header_name), device::portable_header_source);
  return written;
}

/// Draws min and median times per candidate with gnuplot (runtime/tune/plot.hpp). Returns false when
/// the plot failed; a missing gnuplot or nothing to draw is a note on stderr, not a failure.
bool plot_times(const fs::path& file, const autotune_report& r,
                const std::map<std::string, rendered_candidate>& rendered, const std::string& title) {
  std::vector<candidate_point> points;
  for (const auto* c : ranked(r)) {
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

// The autotuner's options for the gemm arguments (shared by gemm and batch).
autotune_options tune_options(const gemm_args& a) {
  autotune_options o;
  o.jobs = a.jobs;
  o.bench.budget_ms = a.budget_ms;
  o.verify = !a.no_verify;
  o.isolate = !a.no_isolate;
  o.device_only = !a.shared_libraries;
  o.max_candidates = a.top_k;
  o.amd_archs = a.archs;
  if (!a.db.empty()) o.database = a.db;
  const auto& gpu = gpu_runtime::instance();
  if (gpu.available() && o.isolate && !find_worker()) {
    std::cerr << "rocmtpl-tune: rocmtpl-bench-worker not found (next to this program, on PATH or in "
                 "ROCMTPL_BENCH_WORKER); benchmarking in this process\n";
    o.isolate = false;
  }
  return o;
}

// A cache folder the compiler cannot be given fails every compile: say so once, up front.
void check_cache_folder() {
  const auto& gpu = gpu_runtime::instance();
  check_compiler_path(gpu.available() ? gpu.properties(gpu.current_device()).kind : platform::amd,
                      code_cache::default_root(), "cache folder");
}

int run_gemm(const gemm_args& a) {
  const auto problem = make_gemm_problem(a);
  check_cache_folder();
  const auto& gpu = gpu_runtime::instance();
  auto o = tune_options(a);
  const auto rendered = render_candidates(problem, a.top_k);
  std::cout << problem.description << ": " << rendered.size() << " candidate" << (rendered.size() == 1 ? "" : "s")
            << (gpu.available() ? "" : ", compiled for " + fmt::format("{}", fmt::join(a.archs, ","))) << '\n';

  const auto report = autotune(problem.tpl, problem.hints, o);

  std::size_t compiled_ok = 0;
  for (const auto& c : report.candidates) compiled_ok += c.result.status != candidate_status::compile_failed ? 1 : 0;
  bool failed = false;
  if (report.gpu) {
    report.print_table(std::cout);
    if (const auto* best = report.best()) {
      const double tflops = best->result.min_ms > 0 ? problem.flops / (best->result.min_ms * 1e-3) / 1e12 : 0.0;
      std::cout << fmt::format("winner: {} ({}), {:.4f} ms, {:.2f} TFLOP/s{}\n", short_name(rendered, *best),
                               best->name, best->result.min_ms, tflops, best->result.verified ? ", verified" : "");
    } else {
      std::cerr << "rocmtpl-tune: no candidate ran" << (o.verify ? " and verified" : "") << "; see the table\n";
      failed = true;
    }
    if (report.from_database) {
      std::cout << "answered from the tuning database: nothing compiled or run\n";
    } else {
      std::cout << fmt::format("compiled {}, benchmarked {} in {:.1f} s on {} ({})\n", report.compiled,
                               report.benchmarked, report.wall_seconds, report.key.device, report.key.arch);
    }
    std::cout << "tuning database " << (o.database.empty() ? tuning_db::default_path() : o.database).string()
              << " (rocmtpl-tune db list)\n";
  } else {
    print_resource_table(std::cout, report, rendered);
    std::cout << fmt::format("compiled {} of {} candidates in {:.1f} s ({} compiler runs)\n", compiled_ok,
                             report.candidates.size(), report.wall_seconds, report.compiled);
    std::cout << "benchmarking needs a GPU: " << report.gpu_status << '\n';
    if (compiled_ok == 0) {
      std::cerr << "rocmtpl-tune: no candidate compiled; see the table\n";
      failed = true;
    }
  }

  if (!a.json.empty()) {
    auto j = report.to_json();
    j["problem"] = problem.summary;
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
  if (!a.plot.empty() && !plot_times(a.plot, report, rendered, problem.description)) failed = true;
  return failed ? 1 : 0;
}

// ---- db -----------------------------------------------------------------------------------------

const measurement* winner_of(const tuning_record& rec) {
  if (!rec.winner) return nullptr;
  for (const auto& m : rec.measurements) {
    if (m.candidate == *rec.winner) return &m;
  }
  return nullptr;
}

int db_list(const tuning_db& db) {
  const auto records = db.list();
  std::cout << "tuning database " << db.path().string() << ": " << records.size() << " record"
            << (records.size() == 1 ? "" : "s") << '\n';
  if (records.empty()) {
    std::cout << "no tuning records\n";
    return 0;
  }
  std::cout << fmt::format("{:<12}  {:<10} {:<8} {:<26} {:>5} {:>4} {:>10}  {}\n", "digest", "template", "arch",
                           "device", "cands", "ok", "winner ms", "updated");
  for (const auto& rec : records) {
    std::size_t ok = 0;
    for (const auto& m : rec.measurements) ok += m.status == candidate_status::ok ? 1 : 0;
    const auto* w = winner_of(rec);
    std::string device = rec.key.device.size() > 26 ? rec.key.device.substr(0, 25) + "~" : rec.key.device;
    std::cout << fmt::format("{:<12}  {:<10} {:<8} {:<26} {:>5} {:>4} {:>10}  {}\n", rec.key.digest().substr(0, 12),
                             rec.key.template_name, rec.key.arch, device, rec.measurements.size(), ok,
                             w ? fmt::format("{:.4f}", w->min_ms) : std::string("-"), rec.updated_at);
  }
  return 0;
}

/// The one record whose digest starts with @p prefix.
tuning_record record_by_prefix(const tuning_db& db, const std::string& prefix) {
  std::vector<tuning_record> matches;
  for (auto& rec : db.list()) {
    if (rec.key.digest().starts_with(prefix)) matches.push_back(std::move(rec));
  }
  if (matches.empty()) {
    throw std::runtime_error("no tuning record whose digest starts with '" + prefix + "' in " + db.path().string() +
                             " (see rocmtpl-tune db list)");
  }
  if (matches.size() > 1) {
    std::string digests;
    for (const auto& r : matches) digests += (digests.empty() ? "" : ", ") + r.key.digest().substr(0, 12);
    throw std::runtime_error("digest prefix '" + prefix + "' matches " + std::to_string(matches.size()) + " records (" +
                             digests + "); give more digits");
  }
  return std::move(matches.front());
}

/// Where a measurement ran, in 32 columns at most: `<model> (GPU <id>)`, `-` when on no GPU.
std::string measured_on(const measurement& m) {
  if (m.device.empty() && m.device_id.empty()) return "-";
  std::string gpu = m.device_id.empty() ? std::string() : fmt::format(" (GPU {})", m.device_id);
  constexpr std::size_t width = 32;
  if (m.device.size() + gpu.size() <= width) return m.device + gpu;
  if (gpu.size() >= width / 2) gpu = gpu.substr(0, width / 2 - 2) + "~)";
  return m.device.substr(0, width - gpu.size() - 1) + "~" + gpu;
}

int db_show(const tuning_db& db, const std::string& prefix) {
  const auto rec = record_by_prefix(db, prefix);
  std::cout << "digest            " << rec.key.digest() << '\n'
            << "template          " << rec.key.template_name << '\n'
            << "problem           " << rec.key.problem << '\n'
            << "runtime args      " << rec.key.runtime_args << '\n'
            << "arch              " << rec.key.arch << '\n'
            << "device            " << rec.key.device << '\n'
            << "compiler          " << first_line(rec.key.compiler_version) << '\n'
            << "library version   " << rec.key.library_version << '\n'
            << "created           " << rec.created_at << '\n'
            << "updated           " << rec.updated_at << '\n'
            << "winner            " << rec.winner.value_or("none") << '\n';
  std::vector<const measurement*> rows;
  for (const auto& m : rec.measurements) rows.push_back(&m);
  std::stable_sort(rows.begin(), rows.end(), [](const measurement* a, const measurement* b) {
    const bool ao = a->status == candidate_status::ok && a->min_ms > 0;
    const bool bo = b->status == candidate_status::ok && b->min_ms > 0;
    if (ao != bo) return ao;
    return ao && a->min_ms < b->min_ms;
  });
  std::cout << fmt::format("{:>4}  {:<14} {:>10} {:>10} {:>7} {:>5}  {:<6} {:<32} {}\n", "rank", "status", "min ms",
                           "median", "spread", "reps", "verify", "device", "config");
  std::size_t rank = 0;
  for (const auto* m : rows) {
    ++rank;
    const bool won = rec.winner && *rec.winner == m->candidate;
    const bool timed = m->status == candidate_status::ok && m->repetitions > 0;
    auto ms = [&](double v) { return timed ? fmt::format("{:.4f}", v) : std::string("-"); };
    std::cout << fmt::format("{:>4}  {:<14} {:>10} {:>10} {:>7} {:>5}  {:<6} {:<32} {}{}{}\n", rank,
                             to_string(m->status), ms(m->min_ms), ms(m->median_ms),
                             timed ? fmt::format("{:.1f}%", 100.0 * m->spread) : std::string("-"), m->repetitions,
                             m->verified ? "ok" : "-", measured_on(*m), m->config, won ? "  <- winner" : "",
                             m->reason.empty() ? "" : "  (" + first_line(m->reason) + ")");
  }
  return 0;
}

int db_export(const tuning_db& db, const std::string& file) {
  const std::string text = db.to_json().dump(2) + "\n";
  if (file.empty() || file == "-") {
    std::cout << text;
  } else {
    write_text(file, text);
    std::cout << "wrote " << db.list().size() << " records to " << file << '\n';
  }
  return 0;
}

// A GEMM configuration's short name (bm64_bn64_...), else the configuration text.
std::string config_label(const tuning_record& rec, const measurement& m) {
  if (rec.key.template_name == "gemm") {
    try {
      return parse_gemm_config(m.config).name();
    } catch (const rocmtpl::error&) {
    }
  }
  return m.config;
}

/// With a digest prefix: that record's candidates (time against configuration, fastest first).
/// Without: every GEMM record's winner (TFLOP/s against shape, smallest problem first).
int db_plot(const tuning_db& db, const std::string& prefix, const std::string& file) {
  plot_result result;
  if (!prefix.empty()) {
    const auto rec = record_by_prefix(db, prefix);
    std::vector<const measurement*> ok;
    for (const auto& m : rec.measurements) {
      if (m.status == candidate_status::ok && m.min_ms > 0) ok.push_back(&m);
    }
    std::stable_sort(ok.begin(), ok.end(),
                     [](const measurement* a, const measurement* b) { return a->min_ms < b->min_ms; });
    std::vector<candidate_point> points;
    for (const auto* m : ok) points.push_back({config_label(rec, *m), m->min_ms, m->median_ms});
    result = plot_candidates(
        file, rec.key.template_name + " " + rec.key.digest().substr(0, 12) + " on " + rec.key.device, points);
  } else {
    struct row {
      double flops;
      winner_point point;
    };
    std::vector<row> rows;
    for (const auto& rec : db.list()) {
      const auto* w = winner_of(rec);
      const auto spec = rec.key.template_name == "gemm" ? parse_gemm_signature(rec.key.problem) : std::nullopt;
      if (w == nullptr || !spec || !(w->min_ms > 0)) continue;
      const double flops = 2.0 * static_cast<double>(spec->batch) * static_cast<double>(spec->m) *
                           static_cast<double>(spec->n) * static_cast<double>(spec->k);
      std::string shape = fmt::format("{}x{}x{} {}", spec->m, spec->n, spec->k, name(spec->type));
      if (spec->batch > 1) shape += fmt::format(" b{}", spec->batch);
      rows.push_back({flops, {shape, flops / (w->min_ms * 1e-3) / 1e12, config_label(rec, *w)}});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) { return a.flops < b.flops; });
    std::vector<winner_point> points;
    for (auto& r : rows) points.push_back(std::move(r.point));
    if (points.empty())
      throw std::runtime_error("db plot: no GEMM record with a timed winner in " + db.path().string());
    result = plot_winners(file, "winners in " + db.path().filename().string(), points);
  }
  if (!result.written) throw std::runtime_error("db plot: " + result.message);
  std::cout << result.message << '\n';
  return 0;
}

int db_clear(tuning_db& db, const std::optional<std::string>& template_name) {
  const auto removed = db.erase(template_name);
  std::cout << "removed " << removed << " tuning record" << (removed == 1 ? "" : "s")
            << (template_name ? " of template '" + *template_name + "'" : std::string()) << " from "
            << db.path().string() << '\n';
  return 0;
}

// ---- export -------------------------------------------------------------------------------------

struct export_args {
  std::string db;
  std::string header;
  std::string module;
  std::string name_space = "rocmtpl_pretuned";
  std::string device;
  std::string arch;
  bool header_only = false;
};

/// The dispatch header and the folder of compiled winners (runtime/aot/export.hpp).
int run_export(const export_args& x) {
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*");
  if (!std::regex_match(x.name_space, identifier)) {
    throw usage_error("--namespace '" + x.name_space + "' is not a C++ namespace name");
  }
  tuning_db database(x.db.empty() ? tuning_db::default_path() : fs::path(x.db));
  const auto found = collect_pretuned_gemms(database.list(), {x.device, x.arch});
  for (const auto& note : found.notes) std::cout << "left out " << note << '\n';
  const fs::path header = fs::absolute(x.header);
  const fs::path module = fs::absolute(x.module.empty() ? header.parent_path() / "pretuned" : fs::path(x.module));
  if (!x.header_only && !found.entries.empty()) {
    const auto copts = export_compile_options(found.entries.front().arch);
    const compiler cc = compiler::find(copts.platform);
    code_cache cache;
    const auto mod = build_pretuned_module(found.entries, module, cc, copts, cache);
    std::cout << fmt::format("wrote {} {} ({} compiled, the others from the code cache) and {}\n", mod.libraries,
                             mod.libraries == 1 ? "library" : "libraries", mod.compiled, mod.manifest.string());
  } else {
    fs::create_directories(module);
  }
  dispatch_header_options options;
  options.name_space = x.name_space;
  options.module_dir = module.string();
  options.origin = database.path().filename().string();
  write_text(header, render_dispatch_header(found.entries, options));
  std::cout << "wrote " << header.string() << ": " << found.entries.size() << " tuned GEMM problem"
            << (found.entries.size() == 1 ? "" : "s");
  if (!found.entries.empty())
    std::cout << " (" << found.entries.front().device << ", " << found.entries.front().arch << ")";
  std::cout << '\n';
  return 0;
}

// ---- command line -------------------------------------------------------------------------------

// "gfx90a", "gfx940", "gfx1030", with optional feature suffixes ("gfx90a:xnack+").
const CLI::Validator amd_arch_validator(
    [](std::string& value) -> std::string {
      static const std::regex pattern("gfx[0-9]{2,4}[a-z]?(:[a-z_-]+[+-])*");
      if (std::regex_match(value, pattern)) return {};
      return "'" + value + "' is not an AMD GPU target (gfx90a, gfx940, gfx1030, ...)";
    },
    "ARCH");

// A positive (or, with allow_zero, non-negative) integer, with a message that says so.
CLI::Validator count_validator(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& value) -> std::string {
        std::int64_t v = 0;
        const char* end = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), end, v);
        if (ec == std::errc() && ptr == end && (v > 0 || (allow_zero && v == 0))) return {};
        return "'" + value + "' is not a " + (allow_zero ? "non-negative" : "positive") + " integer";
      },
      allow_zero ? "INT>=0" : "INT>0");
}

// A positive finite number.
const CLI::Validator positive_real_validator(
    [](std::string& value) -> std::string {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (!value.empty() && end == value.c_str() + value.size() && v > 0 && std::isfinite(v)) return {};
      return "'" + value + "' is not a positive number";
    },
    "NUMBER>0");

const CLI::Validator plot_file_validator(
    [](std::string& value) -> std::string {
      const auto ext = fs::path(value).extension();
      if (ext == ".png" || ext == ".svg") return {};
      return "'" + value + "' must end in .png or .svg";
    },
    "FILE.png|FILE.svg");

const CLI::Validator hex_validator(
    [](std::string& value) -> std::string {
      if (!value.empty() && value.find_first_not_of("0123456789abcdef") == std::string::npos) return {};
      return "'" + value + "' is not a hex digest prefix (lowercase 0-9a-f, see rocmtpl-tune db list)";
    },
    "HEX");

// ---- batch --------------------------------------------------------------------------------------

struct batch_args {
  std::string file;
  std::string name;           // default: the file's stem
  std::string tuner;          // default: host:pid
  double lease_seconds = 60;  // a claim not renewed this long is taken over
  bool plain = false;         // plain lines even on a terminal
  bool status = false;        // show the batch's state and log, tune nothing
  gemm_args defaults;         // the tuning options every problem starts from
};

// The fields a batch problem may have: the gemm command's options, '-' or '_' in names.
const std::vector<std::string> batch_fields{
    "m",        "n",    "k",     "batch", "dtype",     "layout",    "epilogue",   "alpha",           "bias",
    "symbolic", "arch", "top_k", "jobs",  "budget_ms", "no_verify", "no_isolate", "shared_libraries"};

// --symbolic accepts m,n,k,b too; the symbols are the upper-case names, each once.
void normalize_symbols(std::vector<std::string>& symbols) {
  for (auto& s : symbols)
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  std::sort(symbols.begin(), symbols.end());
  symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
}

// A list field: a JSON array of strings, or one comma-separated string.
std::vector<std::string> string_list(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const auto& e : v) out.push_back(e.get<std::string>());
    return out;
  }
  std::string text = v.get<std::string>();
  for (std::size_t at = 0; at <= text.size();) {
    const auto comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

void check_member(const std::string& what, const std::string& value, std::initializer_list<std::string_view> allowed) {
  for (auto a : allowed) {
    if (value == a) return;
  }
  throw usage_error(fmt::format("{}: '{}' is not one of {}", what, value, fmt::join(allowed, ", ")));
}

std::int64_t positive(const std::string& what, const nlohmann::json& v, bool allow_zero = false) {
  const auto n = v.get<std::int64_t>();
  if (n < 0 || (n == 0 && !allow_zero)) {
    throw usage_error(fmt::format("{}: {} is not a {} integer", what, n, allow_zero ? "non-negative" : "positive"));
  }
  return n;
}

// One problem of a batch file as gemm arguments; an unknown field or a bad value is a usage error
// that names the problem.
gemm_args gemm_args_from_json(const nlohmann::json& spec, const gemm_args& defaults, const std::string& where) {
  gemm_args a = defaults;
  bool has_m = false, has_n = false, has_k = false;
  for (const auto& [raw_name, v] : spec.items()) {
    std::string f = raw_name;
    std::replace(f.begin(), f.end(), '-', '_');
    const std::string what = where + ": " + raw_name;
    try {
      if (f == "m")
        a.m = positive(what, v), has_m = true;
      else if (f == "n")
        a.n = positive(what, v), has_n = true;
      else if (f == "k")
        a.k = positive(what, v), has_k = true;
      else if (f == "batch")
        a.batch = positive(what, v);
      else if (f == "dtype")
        check_member(what, a.dtype_name = v.get<std::string>(), {"f32", "f16", "bf16"});
      else if (f == "layout")
        check_member(what, a.layout_name = v.get<std::string>(), {"rr", "rc", "cr", "cc"});
      else if (f == "epilogue")
        check_member(what, a.epilogue = v.get<std::string>(), {"none", "relu", "gelu", "silu", "sigmoid"});
      else if (f == "alpha")
        a.alpha = v.get<float>();
      else if (f == "bias")
        a.bias = v.get<bool>();
      else if (f == "symbolic") {
        a.symbolic = string_list(v);
        normalize_symbols(a.symbolic);
        for (const auto& s : a.symbolic) check_member(what, s, {"B", "K", "M", "N"});
      } else if (f == "arch") {
        a.archs = string_list(v);
        for (auto& arch : a.archs) {
          if (auto err = amd_arch_validator(arch); !err.empty()) throw usage_error(what + ": " + err);
        }
      } else if (f == "top_k")
        a.top_k = static_cast<std::size_t>(positive(what, v, true));
      else if (f == "jobs")
        a.jobs = static_cast<unsigned>(positive(what, v, true));
      else if (f == "budget_ms")
        a.budget_ms = v.get<double>();
      else if (f == "no_verify")
        a.no_verify = v.get<bool>();
      else if (f == "no_isolate")
        a.no_isolate = v.get<bool>();
      else if (f == "shared_libraries")
        a.shared_libraries = v.get<bool>();
      else {
        throw usage_error(fmt::format("{}: unknown field (the fields are {})", what, fmt::join(batch_fields, ", ")));
      }
    } catch (const nlohmann::json::exception&) {
      throw usage_error(fmt::format("{}: {} has the wrong type", what, v.dump()));
    }
  }
  if (!has_m || !has_n || !has_k) throw usage_error(where + ": m, n and k are required");
  return a;
}

// What this tuner tunes for: the GPU (name and arch), or the archs of a compile-only run. Tuners
// of one batch share work only when their targets agree.
std::string batch_target(const gemm_args& defaults) {
  auto device = cached_device_identity();
  if (!device) device = query_device_identity();
  if (device && gpu_runtime::instance().available()) return fmt::format("{} ({})", device->name, device->arch);
  return fmt::format("compile-only {}", fmt::join(defaults.archs, ","));
}

std::string default_tuner_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "host");
  return fmt::format("{}:{}", host, ::getpid());
}

// Tunes one problem (quietly: the batch draws the progress) and says how it went. `workers`: the
// batch's benchmark workers, started with its first isolated problem and kept for the others.
batch_outcome tune_batch_problem(const gemm_args& a, std::shared_ptr<worker_pool>& workers) {
  const auto problem = make_gemm_problem(a);
  auto o = tune_options(a);
  o.progress = false;
  if (o.isolate && !workers) workers = make_worker_pool(o);
  if (o.isolate) o.workers = workers;
  const auto report = autotune(problem.tpl, problem.hints, o);
  batch_outcome out;
  out.compiled = report.compiled;
  out.benchmarked = report.benchmarked;
  std::size_t compiled_ok = 0;
  for (const auto& c : report.candidates) compiled_ok += c.result.status != candidate_status::compile_failed ? 1 : 0;
  out.result = {
      {"problem", problem.summary}, {"description", problem.description},    {"key", report.key.digest()},
      {"gpu", report.gpu},          {"from_database", report.from_database}, {"candidates", report.candidates.size()},
      {"compiled_ok", compiled_ok}, {"compiler_runs", report.compiled},      {"benchmarked", report.benchmarked},
      {"winner", nullptr}};
  if (report.gpu) {
    const auto* best = report.best();
    out.ok = best != nullptr;
    if (best) {
      const double tflops = best->result.min_ms > 0 ? problem.flops / (best->result.min_ms * 1e-3) / 1e12 : 0.0;
      out.result["winner"] = {
          {"id", best->id}, {"config", best->config}, {"min_ms", best->result.min_ms}, {"tflops", tflops}};
      out.summary = fmt::format("{}: {:.4f} ms, {:.2f} TFLOP/s{}", problem.description, best->result.min_ms, tflops,
                                report.from_database ? " (from the tuning database)" : "");
    } else {
      out.summary = problem.description + ": no candidate ran (" + report.summary() + ")";
    }
  } else {
    out.ok = compiled_ok > 0;
    out.summary = fmt::format("{}: compiled {} of {} candidates, no GPU", problem.description, compiled_ok,
                              report.candidates.size());
  }
  return out;
}

int print_batch_status(tuning_db& db, const batch_args& b, const std::string& target) {
  const auto items = db.batch_items(b.name, target);
  std::cout << fmt::format("batch {} for {} in {}: {} problems\n", b.name, target, db.path().string(), items.size());
  std::cout << fmt::format("{:>3}  {:<16}  {:<8} {:>8}  {:<24} {}\n", "#", "problem", "state", "attempts", "by",
                           "result");
  for (const auto& it : items) {
    std::string result;
    if (it.result) result = nlohmann::json::parse(*it.result).value("summary", std::string());
    std::cout << fmt::format("{:>3}  {:<16}  {:<8} {:>8}  {:<24} {}\n", it.position, it.item, to_string(it.state),
                             it.attempts, it.finished_by.value_or(it.claimed_by.value_or("-")), result);
  }
  for (const auto& e : db.batch_events(b.name, target)) {
    std::cout << fmt::format("event {} {:<9} {} {}\n", e.at, e.event, e.item, e.tuner);
  }
  return 0;
}

std::atomic<bool> batch_interrupted{false};

int run_batch_command(batch_args& b) {
  std::vector<batch_problem> problems;
  try {
    problems = load_batch_file(b.file);
  } catch (const invalid_argument_error& e) {
    throw usage_error(without_library_prefix(e.what()));  // a bad batch file is bad input: exit code 2
  }
  std::vector<gemm_args> args;  // checked before anything is claimed
  for (std::size_t i = 0; i < problems.size(); ++i) {
    args.push_back(gemm_args_from_json(problems[i].spec, b.defaults, fmt::format("{}: problem {}", b.file, i)));
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < problems.size(); ++i) index.emplace(problems[i].id, i);
  if (b.name.empty()) b.name = fs::path(b.file).stem().string();
  tuning_db db(b.defaults.db.empty() ? tuning_db::default_path() : fs::path(b.defaults.db));
  const std::string target = batch_target(b.defaults);
  if (b.status) return print_batch_status(db, b, target);
  check_cache_folder();

  batch_options o;
  o.name = b.name;
  o.target = target;
  o.tuner = b.tuner.empty() ? default_tuner_name() : b.tuner;
  o.lease = std::chrono::milliseconds(static_cast<std::int64_t>(b.lease_seconds * 1000));
  o.poll = std::min(std::chrono::milliseconds(1000), o.lease / 4);
  o.tty = !b.plain && ::isatty(1) != 0;
  o.interrupt = &batch_interrupted;
  o.on_interrupt = [] { std::_Exit(130); };  // the claim is released; the compilers get the signal too
  std::signal(SIGINT, [](int) { batch_interrupted = true; });
  std::signal(SIGTERM, [](int) { batch_interrupted = true; });
  std::cout << fmt::format("batch {}: {} problems for {}, tuner {}, database {}\n", o.name, problems.size(), target,
                           o.tuner, db.path().string())
            << std::flush;

  std::shared_ptr<worker_pool> workers;  // one worker per GPU for the whole batch
  const auto s = run_batch(db, problems, o, [&](const batch_claim& claim, const nlohmann::json& spec) {
    if (auto it = index.find(claim.item); it != index.end()) return tune_batch_problem(args[it->second], workers);
    // A problem another tuner added from a different file: check it the same way.
    return tune_batch_problem(gemm_args_from_json(spec, b.defaults, fmt::format("problem {}", claim.item)), workers);
  });
  std::cout << fmt::format(
      "batch {}: {} problems: {} done, {} failed{}; this tuner: {} tuned, {} failed, {} taken over, {} lost; "
      "compiled {}, benchmarked {} in {:.1f} s\n",
      o.name, s.total, s.done, s.failed, s.done_before > 0 ? fmt::format(" ({} before this run)", s.done_before) : "",
      s.tuned_here, s.failed_here, s.reclaimed, s.lost, s.compiled, s.benchmarked, s.seconds);
  if (s.interrupted) return 130;
  return s.failed > 0 ? 1 : 0;
}

int run(int argc, char** argv) {
  CLI::App app{"rocmtpl-tune: tune rocmtpl kernel templates and inspect the tuning database", "rocmtpl-tune"};
  app.set_version_flag("--version", std::string("rocmtpl-tune ") + version_string);

  gemm_args g;
  auto* gemm = app.add_subcommand(
      "gemm", "Tune the GEMM template for one problem: Y = act(alpha * X @ W + bias), X [M, K], W [K, N]");
  gemm->add_option("--m", g.m, "rows of X and Y")->required()->check(count_validator(false));
  gemm->add_option("--n", g.n, "columns of W and Y")->required()->check(count_validator(false));
  gemm->add_option("--k", g.k, "columns of X, rows of W")->required()->check(count_validator(false));
  gemm->add_option("--batch", g.batch, "batch count (adds a leading batch dimension when > 1)")
      ->check(count_validator(false))
      ->capture_default_str();
  gemm->add_option("--dtype", g.dtype_name, "element type of X, W, bias and Y")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}))
      ->capture_default_str();
  gemm->add_option("--layout", g.layout_name, "X and W storage: r = row-major, c = column-major")
      ->check(CLI::IsMember({"rr", "rc", "cr", "cc"}))
      ->capture_default_str();
  gemm->add_option("--epilogue", g.epilogue, "activation applied after the bias")
      ->check(CLI::IsMember({"none", "relu", "gelu", "silu", "sigmoid"}))
      ->capture_default_str();
  gemm->add_option("--alpha", g.alpha, "scale of X @ W")->capture_default_str();
  gemm->add_flag("--bias", g.bias, "add a bias of N values broadcast along the rows");
  gemm->add_option("--symbolic", g.symbolic,
                   "sizes that are kernel arguments instead of constants (M,N,K,B); --m/--n/--k/--batch give their "
                   "values for benchmarking")
      ->delimiter(',')
      ->check(CLI::IsMember({"M", "N", "K", "B"}, CLI::ignore_case));
  gemm->add_option("--arch", g.archs, "AMD targets compiled for when there is no GPU")
      ->delimiter(',')
      ->check(amd_arch_validator)
      ->capture_default_str();
  gemm->add_option("--top-k", g.top_k, "candidates tried: the template's first N ranked configurations (0: all)")
      ->check(count_validator(true))
      ->capture_default_str();
  gemm->add_option("--jobs", g.jobs, "parallel compiles (0: two per core)")->check(count_validator(true));
  gemm->add_option("--budget-ms", g.budget_ms, "GPU time spent timing each candidate")
      ->check(positive_real_validator)
      ->capture_default_str();
  gemm->add_flag("--no-verify", g.no_verify, "do not check candidates against the reference kernel");
  gemm->add_flag("--no-isolate", g.no_isolate, "benchmark in this process instead of rocmtpl-bench-worker");
  gemm->add_flag("--shared-libraries", g.shared_libraries,
                 "compile candidates as shared libraries called through their C entry, not as device-only code "
                 "objects launched through the module API");
  gemm->add_option("--db", g.db,
                   "tuning database: a file or a postgresql:// URL (default: ROCMTPL_TUNING_DB, else "
                   "<cache>/tuning.sqlite3, ROCMTPL_CACHE_DIR)");
  gemm->add_option("--json", g.json, "write the full report as JSON");
  gemm->add_option("--csv", g.csv, "write the ranked candidates as CSV");
  gemm->add_option("--emit-source", g.emit_source,
                   "write the winner's HIP source into DIR (every candidate's when there is no winner)")
      ->type_name("DIR");
  gemm->add_option("--plot", g.plot, "draw the candidates' times with gnuplot (PNG or SVG by extension)")
      ->check(plot_file_validator);

  std::string db_file;
  auto* db = app.add_subcommand("db", "Inspect or clear the tuning database");
  db->add_option("--db", db_file,
                 "database: a file or a postgresql:// URL (default: ROCMTPL_TUNING_DB, else <cache>/tuning.sqlite3, "
                 "ROCMTPL_CACHE_DIR)");
  db->fallthrough();
  auto* db_list_cmd = db->add_subcommand("list", "One line per tuning record");
  std::string show_prefix;
  auto* db_show_cmd = db->add_subcommand("show", "Everything about one record");
  db_show_cmd->add_option("digest-prefix", show_prefix, "leading digits of the record's digest")
      ->required()
      ->check(hex_validator);
  std::string export_file;
  auto* db_export_cmd = db->add_subcommand("export", "All records as JSON");
  db_export_cmd->add_option("file", export_file, "output file (default: standard output)");
  std::string plot_prefix;
  std::string plot_file;
  auto* db_plot_cmd = db->add_subcommand(
      "plot",
      "Draw one record's candidates (time against configuration), or without a digest every GEMM record's "
      "winner (TFLOP/s against shape)");
  db_plot_cmd->add_option("digest-prefix", plot_prefix, "leading digits of the record's digest")->check(hex_validator);
  db_plot_cmd->add_option("--output,-o", plot_file, "the picture (PNG or SVG by extension)")
      ->required()
      ->check(plot_file_validator);
  std::string clear_template;
  auto* db_clear_cmd = db->add_subcommand("clear", "Remove records");
  auto* template_option = db_clear_cmd->add_option("--template", clear_template, "only this template's records");

  batch_args b;
  auto* batch_cmd = app.add_subcommand(
      "batch",
      "Tune a list of GEMM problems (a JSON array of objects with the gemm options' fields), resumable, shared "
      "without overlap by several tuners of one database");
  batch_cmd->add_option("file", b.file, "the problems (JSON)")->required()->check(CLI::ExistingFile);
  batch_cmd->add_option("--db", b.defaults.db,
                        "tuning database: a file or a postgresql:// URL; tuners on several hosts share a batch "
                        "through one PostgreSQL database (default: ROCMTPL_TUNING_DB, else <cache>/tuning.sqlite3)");
  batch_cmd->add_option("--name", b.name, "the batch's name in the database (default: the file name without .json)");
  batch_cmd
      ->add_option("--lease", b.lease_seconds,
                   "seconds a claim holds without renewal; a dead tuner's problem is taken over after this")
      ->check(positive_real_validator)
      ->capture_default_str();
  batch_cmd->add_option("--tuner-id", b.tuner, "this tuner's name in the database (default: host:pid)");
  batch_cmd->add_flag("--plain", b.plain, "progress as plain lines even on a terminal");
  batch_cmd->add_flag("--status", b.status, "show each problem's state and the batch's log; tune nothing");
  batch_cmd->add_option("--arch", b.defaults.archs, "AMD targets compiled for when there is no GPU")
      ->delimiter(',')
      ->check(amd_arch_validator)
      ->capture_default_str();
  batch_cmd->add_option("--top-k", b.defaults.top_k, "candidates per problem (0: all); a problem's top_k wins")
      ->check(count_validator(true))
      ->capture_default_str();
  batch_cmd->add_option("--jobs", b.defaults.jobs, "parallel compiles (0: one per core)")->check(count_validator(true));
  batch_cmd->add_option("--budget-ms", b.defaults.budget_ms, "GPU time spent timing each candidate")
      ->check(positive_real_validator)
      ->capture_default_str();
  batch_cmd->add_flag("--no-verify", b.defaults.no_verify, "do not check candidates against the reference kernel");
  batch_cmd->add_flag("--no-isolate", b.defaults.no_isolate,
                      "benchmark in this process instead of rocmtpl-bench-worker");

  export_args x;
  auto* exp = app.add_subcommand(
      "export",
      "Write a C++ dispatch header (tuned problem -> winner, nearest-shape fallback) and the compiled "
      "winners from the tuning database, for an application that starts with no compile and no tuning");
  exp->add_option("--db", x.db,
                  "database: a file or a postgresql:// URL (default: ROCMTPL_TUNING_DB, else <cache>/tuning.sqlite3, "
                  "ROCMTPL_CACHE_DIR)");
  exp->add_option("--header", x.header, "the header to write")->required();
  exp->add_option("--module", x.module, "folder of the winners' shared libraries (default: <header folder>/pretuned)")
      ->type_name("DIR");
  exp->add_option("--namespace", x.name_space, "namespace of the table")->capture_default_str();
  exp->add_option("--device", x.device, "only records of this device (needed when the database holds several)");
  exp->add_option("--arch", x.arch, "only records of this arch");
  exp->add_flag("--header-only", x.header_only, "write the header only, compile nothing");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    std::cerr << "rocmtpl-tune: " << first_line(e.what()) << " (see rocmtpl-tune --help)\n";
    return 2;
  }

  if (exp->parsed()) return run_export(x);
  if (!gemm->parsed() && !db->parsed() && !batch_cmd->parsed()) {
    throw usage_error("a command is required: gemm, batch, db or export");
  }
  if (gemm->parsed()) {
    if (g.layout_name.size() != 2) throw usage_error("--layout must be rr, rc, cr or cc");
    normalize_symbols(g.symbolic);
    return run_gemm(g);
  }
  if (batch_cmd->parsed()) return run_batch_command(b);
  tuning_db database(db_file.empty() ? tuning_db::default_path() : fs::path(db_file));
  if (db_list_cmd->parsed()) return db_list(database);
  if (db_show_cmd->parsed()) return db_show(database, show_prefix);
  if (db_export_cmd->parsed()) return db_export(database, export_file);
  if (db_plot_cmd->parsed()) return db_plot(database, plot_prefix, plot_file);
  if (db_clear_cmd->parsed()) {
    return db_clear(database, template_option->count() > 0 ? std::optional<std::string>(clear_template) : std::nullopt);
  }
  throw usage_error("db: a command is required: list, show, export, plot or clear");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "rocmtpl-tune: " << e.what() << " (see rocmtpl-tune --help)\n";
    return 2;
  } catch (const rocmtpl::runtime::compile_error& e) {
    // The log can be long: the compiler's own first error line only.
    std::cerr << "rocmtpl-tune: " << without_library_prefix(e.first_error_line()) << '\n';
    return 1;
  } catch (const rocmtpl::error& e) {
    std::cerr << "rocmtpl-tune: " << without_library_prefix(e.what()) << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "rocmtpl-tune: " << without_library_prefix(e.what()) << '\n';
    return 1;
  }
}
