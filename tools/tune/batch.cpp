// SPDX-License-Identifier: MIT
// rocmtpl-tune batch: tune a list of GEMM problems (a JSON array of objects with the gemm options'
// fields) with claims in the tuning database: resumable, and shared without overlap by several tuners
// (on several hosts with a postgresql:// database).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/tune/tune_batch.hpp>

#include "commands.hpp"
#include "gemm_problem.hpp"

#include <unistd.h>

namespace rocmtpl_tune {

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl::runtime;

/// The batch options.
struct batch_args {
  std::string file;
  std::string db;
  std::string name;             // default: the file's stem
  std::string tuner;            // default: host:pid
  double lease_seconds = 60;    // a claim not renewed this long is taken over
  bool plain = false;           // plain lines even on a terminal
  bool status = false;          // show the batch's state and log, tune nothing
  tuning_settings defaults;     // the tuning options every problem starts from
  CLI::Option* arch = nullptr;  // --arch: given, it names the target --status shows
};

/// One problem of a batch: the problem, and the tuning settings it starts from or overrides.
struct batch_job {
  gemm_problem_args problem;
  tuning_settings tuning;
};

// The fields a batch problem may have: the gemm command's options, '-' or '_' in names.
const std::vector<std::string> batch_fields{
    "m",        "n",    "k",     "batch", "dtype",     "layout",    "epilogue",  "alpha",      "bias",
    "symbolic", "arch", "top_k", "jobs",  "budget_ms", "finalists", "no_verify", "no_isolate", "shared_libraries"};

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

// The text of each floating-point number of a batch file, by value, so that a message names a value
// as it was written (40.5, 1e30, 18446744073709551616), not as the double prints. nlohmann::json
// keeps only the double; its SAX interface hands over the text too.
class float_literals : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit float_literals(const std::string& file) {
    std::ifstream in(file);
    (void)nlohmann::json::sax_parse(in, this);  // the file parsed before: errors cannot happen here
  }

  // The number as written in the file; as the double prints when the file does not have it.
  [[nodiscard]] std::string text(const nlohmann::json& v) const {
    if (v.is_number_float()) {
      if (auto it = text_.find(v.get<double>()); it != text_.end()) return it->second;
    }
    return v.dump();
  }

  bool number_float(number_float_t value, const string_t& text) override {
    text_.emplace(value, text);
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool /*value*/) override { return true; }
  bool number_integer(number_integer_t /*value*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*value*/) override { return true; }
  bool string(string_t& /*value*/) override { return true; }
  bool binary(binary_t& /*value*/) override { return true; }
  bool start_object(std::size_t /*elements*/) override { return true; }
  bool key(string_t& /*value*/) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*elements*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

 private:
  std::map<double, std::string> text_;
};

// How a problem's values are read: the file's float literals, for messages.
struct value_reader {
  const float_literals* literals = nullptr;

  [[nodiscard]] std::string text(const nlohmann::json& v) const { return literals ? literals->text(v) : v.dump(); }

  // A number, else the wrong type (true, "8", null: never converted).
  void require_number(const std::string& what, const nlohmann::json& v) const {
    if (!v.is_number()) throw usage_error(fmt::format("{}: {} has the wrong type", what, text(v)));
  }

  // An integer field in [min, max]: a JSON integer (no fraction, no exponent), within range.
  [[nodiscard]] std::int64_t integer(const std::string& what, const nlohmann::json& v, std::int64_t min,
                                     std::int64_t max = std::numeric_limits<std::int64_t>::max()) const {
    require_number(what, v);
    const std::string kind = min > 0 ? "positive" : "non-negative";
    const auto out_of_range = [&](const std::string& value) {
      return usage_error(fmt::format("{}: {} is out of range (a {} integer, at most {})", what, value, kind, max));
    };
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d) || d != std::trunc(d)) {
        throw usage_error(fmt::format("{}: {} is not an integer", what, text(v)));
      }
      if (d < static_cast<double>(min) || d >= static_cast<double>(max) + 1.0) throw out_of_range(text(v));
      throw usage_error(
          fmt::format("{}: {} is not written as an integer (write {})", what, text(v), static_cast<std::int64_t>(d)));
    }
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      throw out_of_range(text(v));
    }
    const auto n = v.get<std::int64_t>();
    if (n < min) throw usage_error(fmt::format("{}: {} is not a {} integer", what, n, kind));
    if (n > max) throw out_of_range(text(v));
    return n;
  }

  // A number (integer or not) that is finite as a float: rendered into the kernel as a literal.
  [[nodiscard]] float finite_float(const std::string& what, const nlohmann::json& v) const {
    require_number(what, v);
    const auto f = static_cast<float>(v.get<double>());
    if (!std::isfinite(f)) {
      throw usage_error(fmt::format(
          "{}: {} is not a finite float (NaN and infinities cannot be rendered into a kernel)", what, text(v)));
    }
    return f;
  }

  // A positive finite number.
  [[nodiscard]] double positive_real(const std::string& what, const nlohmann::json& v) const {
    require_number(what, v);
    const double d = v.get<double>();
    if (!(d > 0) || !std::isfinite(d)) throw usage_error(fmt::format("{}: {} is not a positive number", what, text(v)));
    return d;
  }
};

void check_member(const std::string& what, const std::string& value, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed) {
    if (value == a) return;
  }
  throw usage_error(fmt::format("{}: '{}' is not one of {}", what, value, fmt::join(allowed, ", ")));
}

// Sets problem field @p f (a name of batch_fields); false when it is not a problem field.
bool set_problem_field(gemm_problem_args& p, const std::string& f, const std::string& what, const nlohmann::json& v,
                       const value_reader& r) {
  if (f == "m")
    p.m = r.integer(what, v, 1);
  else if (f == "n")
    p.n = r.integer(what, v, 1);
  else if (f == "k")
    p.k = r.integer(what, v, 1);
  else if (f == "batch")
    p.batch = r.integer(what, v, 1);
  else if (f == "dtype") {
    p.dtype_name = v.get<std::string>();
    if (const auto why = gemm_dtype_error(p.dtype_name); !why.empty()) throw usage_error(what + ": " + why);
  } else if (f == "layout")
    check_member(what, p.layout_name = v.get<std::string>(), {"rr", "rc", "cr", "cc"});
  else if (f == "epilogue")
    check_member(what, p.epilogue = v.get<std::string>(), activation_names());
  else if (f == "alpha")
    p.alpha = r.finite_float(what, v);
  else if (f == "bias")
    p.bias = v.get<bool>();
  else if (f == "symbolic") {
    p.symbolic = string_list(v);
    normalize_symbols(p.symbolic);
    for (const auto& s : p.symbolic) check_member(what, s, {"B", "K", "M", "N"});
  } else {
    return false;
  }
  return true;
}

// Sets tuning field @p f; false when it is not a tuning field.
bool set_tuning_field(tuning_settings& t, const std::string& f, const std::string& what, const nlohmann::json& v,
                      const value_reader& r) {
  if (f == "arch") {
    t.archs = string_list(v);
    for (auto& arch : t.archs) {
      if (auto err = amd_arch_error(arch); !err.empty()) throw usage_error(what + ": " + err);
    }
  } else if (f == "top_k")
    t.top_k = static_cast<std::size_t>(r.integer(what, v, 0));
  else if (f == "jobs")
    t.jobs = static_cast<unsigned>(r.integer(what, v, 0, std::numeric_limits<unsigned>::max()));
  else if (f == "budget_ms")
    t.budget_ms = r.positive_real(what, v);
  else if (f == "finalists")
    t.finalists = static_cast<std::size_t>(r.integer(what, v, 0));
  else if (f == "no_verify")
    t.no_verify = v.get<bool>();
  else if (f == "no_isolate")
    t.no_isolate = v.get<bool>();
  else if (f == "shared_libraries")
    t.shared_libraries = v.get<bool>();
  else
    return false;
  return true;
}

// One problem of a batch file; an unknown field or a bad value is a usage error that names the
// problem, the field and the value as written.
batch_job job_from_json(const nlohmann::json& spec, const tuning_settings& defaults, const std::string& where,
                        const value_reader& r = {}) {
  batch_job job{{}, defaults};
  int sizes = 0;  // m, n and k seen
  for (const auto& [raw_name, v] : spec.items()) {
    std::string f = raw_name;
    std::replace(f.begin(), f.end(), '-', '_');
    const std::string what = where + ": " + raw_name;
    try {
      if (!set_problem_field(job.problem, f, what, v, r) && !set_tuning_field(job.tuning, f, what, v, r)) {
        throw usage_error(fmt::format("{}: unknown field (the fields are {})", what, fmt::join(batch_fields, ", ")));
      }
    } catch (const nlohmann::json::exception&) {
      throw usage_error(fmt::format("{}: {} has the wrong type", what, r.text(v)));
    }
    sizes += f == "m" || f == "n" || f == "k" ? 1 : 0;
  }
  if (sizes < 3) throw usage_error(where + ": m, n and k are required");
  return job;
}

// What this tuner tunes for: the GPU (name and arch), or the archs of a compile-only run. Tuners
// of one batch share work only when their targets agree.
std::string batch_target(const tuning_settings& defaults) {
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

void print_batch_target_status(tuning_db& db, const std::string& name, const std::string& target) {
  const auto items = db.batch_items(name, target);
  std::cout << fmt::format("batch {} for {} in {}: {} problems\n", name, target, db.path().string(), items.size());
  std::cout << fmt::format("{:>3}  {:<16}  {:<8} {:>8}  {:<24} {}\n", "#", "problem", "state", "attempts", "by",
                           "result");
  for (const auto& it : items) {
    std::string result;
    if (it.result) result = nlohmann::json::parse(*it.result).value("summary", std::string());
    std::cout << fmt::format("{:>3}  {:<16}  {:<8} {:>8}  {:<24} {}\n", it.position, it.item, to_string(it.state),
                             it.attempts, it.finished_by.value_or(it.claimed_by.value_or("-")), result);
  }
  for (const auto& e : db.batch_events(name, target)) {
    std::cout << fmt::format("event {} {:<9} {} {}\n", e.at, e.event, e.item, e.tuner);
  }
}

// The problems of a batch and its log, per target it was run for: the targets the database
// records for the batch (each tuner adds the problems under its own target), or the one --arch names.
int print_batch_status(tuning_db& db, const std::string& name, const std::vector<std::string>& targets) {
  if (targets.empty()) {
    std::cout << fmt::format("batch {} in {}: 0 problems (no tuner has run it with this database)\n", name,
                             db.path().string());
    return 0;
  }
  for (const auto& target : targets) print_batch_target_status(db, name, target);
  return 0;
}

int run_batch_status(tuning_db& db, const batch_args& b) {
  if (b.arch != nullptr && b.arch->count() > 0) {
    const std::string target = batch_target(b.defaults);
    if (db.batch_items(b.name, target).empty()) {
      const auto recorded = db.batch_targets(b.name);
      if (!recorded.empty()) {
        std::cout << fmt::format("batch {} was run for {}; not for {}\n", b.name, fmt::join(recorded, "; "), target);
      }
    }
    return print_batch_status(db, b.name, {target});
  }
  return print_batch_status(db, b.name, db.batch_targets(b.name));
}

std::atomic<bool> batch_interrupted{false};

// How the batch runs: its name, this tuner, the claims' lease, the progress display, Ctrl-C.
batch_options make_batch_options(const batch_args& b, const std::string& target) {
  batch_options o;
  o.name = b.name;
  o.target = target;
  o.tuner = b.tuner.empty() ? default_tuner_name() : b.tuner;
  o.lease = std::chrono::milliseconds(static_cast<std::int64_t>(b.lease_seconds * 1000));
  o.poll = std::min(std::chrono::milliseconds(1000), o.lease / 4);
  o.tty = !b.plain && ::isatty(1) != 0;
  o.interrupt = &batch_interrupted;
  o.on_interrupt = [] { std::_Exit(130); };  // the claim is released; the compilers get the signal too
  return o;
}

// The file's problems, each checked before anything is claimed.
std::vector<batch_job> load_jobs(const std::string& file, const std::vector<batch_problem>& problems,
                                 const tuning_settings& defaults) {
  const float_literals literals(file);
  std::vector<batch_job> jobs;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    jobs.push_back(job_from_json(problems[i].spec, defaults, fmt::format("{}: problem {}", file, i), {&literals}));
  }
  return jobs;
}

int run_batch_command(batch_args& b) {
  std::vector<batch_problem> problems;
  try {
    problems = load_batch_file(b.file);
  } catch (const rocmtpl::invalid_argument_error& e) {
    throw usage_error(without_library_prefix(e.what()));  // a bad batch file is bad input: exit code 2
  }
  const auto jobs = load_jobs(b.file, problems, b.defaults);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < problems.size(); ++i) index.emplace(problems[i].id, i);
  if (b.name.empty()) b.name = fs::path(b.file).stem().string();
  if (b.status) {
    tuning_db db = existing_database(b.db);  // --status reads: it creates no database
    return run_batch_status(db, b);
  }
  tuning_db db(database_path(b.db));
  const std::string target = batch_target(b.defaults);
  check_cache_folder();

  const batch_options o = make_batch_options(b, target);
  std::signal(SIGINT, [](int) { batch_interrupted = true; });
  std::signal(SIGTERM, [](int) { batch_interrupted = true; });
  std::cout << fmt::format("batch {}: {} problems for {}, tuner {}, database {}\n", o.name, problems.size(), target,
                           o.tuner, db.path().string())
            << std::flush;

  batch_gemm_tuner tuner;  // one worker per GPU for the whole batch
  const auto s = run_batch(db, problems, o, [&](const batch_claim& claim, const nlohmann::json& spec) {
    // A problem another tuner added from a different file is checked the same way.
    const auto it = index.find(claim.item);
    const batch_job job =
        it != index.end() ? jobs[it->second] : job_from_json(spec, b.defaults, fmt::format("problem {}", claim.item));
    return tuner.tune(job.problem, job.tuning, b.db);
  });
  std::cout << fmt::format(
      "batch {}: {} problems: {} done, {} failed{}; this tuner: {} tuned, {} failed, {} taken over, {} lost; "
      "compiled {}, benchmarked {} in {:.1f} s\n",
      o.name, s.total, s.done, s.failed, s.done_before > 0 ? fmt::format(" ({} before this run)", s.done_before) : "",
      s.tuned_here, s.failed_here, s.reclaimed, s.lost, s.compiled, s.benchmarked, s.seconds);
  if (s.interrupted) return 130;
  return s.failed > 0 ? 1 : 0;
}

}  // namespace

command register_batch(CLI::App& app) {
  auto b = std::make_shared<batch_args>();
  auto* cmd = app.add_subcommand(
      "batch",
      "Tune a list of GEMM problems (a JSON array of objects with the gemm options' fields), resumable, shared "
      "without overlap by several tuners of one database");
  cmd->add_option("file", b->file, "the problems (JSON)")->required()->check(CLI::ExistingFile);
  add_database_option(*cmd, b->db,
                      "tuning database: a file or a postgresql:// URL; tuners on several hosts share a batch "
                      "through one PostgreSQL database (default: ROCMTPL_TUNING_DB, else <cache>/tuning.sqlite3)");
  cmd->add_option("--name", b->name, "the batch's name in the database (default: the file name without .json)");
  cmd->add_option("--lease", b->lease_seconds,
                  "seconds a claim holds without renewal; a dead tuner's problem is taken over after this")
      ->check(positive_real_validator())
      ->capture_default_str();
  cmd->add_option("--tuner-id", b->tuner, "this tuner's name in the database (default: host:pid)");
  cmd->add_flag("--plain", b->plain, "progress as plain lines even on a terminal");
  cmd->add_flag("--status", b->status,
                "show each problem's state and the batch's log, for every target the database records the batch "
                "under (with --arch: that target's); tune nothing");
  add_tuning_options(
      *cmd, b->defaults,
      {"candidates per problem (0: all); a problem's top_k wins", "parallel compiles (0: one per core)"});
  b->arch = cmd->get_option("--arch");
  return {cmd, [b] { return run_batch_command(*b); }};
}

}  // namespace rocmtpl_tune
