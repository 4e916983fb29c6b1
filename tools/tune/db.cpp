// SPDX-License-Identifier: MIT
// rocmtpl-tune db list | show <digest-prefix> | export [FILE] | plot [<digest-prefix>] | clear:
// inspect or clear the tuning database.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/tune/plot.hpp>

#include "commands.hpp"
#include "gemm_problem.hpp"

namespace rocmtpl_tune {

namespace {

using namespace rocmtpl;
using namespace rocmtpl::runtime;

/// The db options, its subcommands and their arguments.
struct db_args {
  std::string db;
  CLI::App* list = nullptr;
  CLI::App* show = nullptr;
  CLI::App* export_json = nullptr;
  CLI::App* plot = nullptr;
  CLI::App* clear = nullptr;
  CLI::Option* clear_template_option = nullptr;
  std::string show_prefix;
  std::string export_file;
  std::string plot_prefix;
  std::string plot_file;
  std::string clear_template;
};

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

void print_record_key(const tuning_record& rec) {
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
}

/// The measurements that ran first (fastest first), then the others.
std::vector<const measurement*> ranked(const tuning_record& rec) {
  std::vector<const measurement*> rows;
  for (const auto& m : rec.measurements) rows.push_back(&m);
  std::stable_sort(rows.begin(), rows.end(), [](const measurement* a, const measurement* b) {
    const bool ao = a->status == candidate_status::ok && a->min_ms > 0;
    const bool bo = b->status == candidate_status::ok && b->min_ms > 0;
    if (ao != bo) return ao;
    return ao && a->min_ms < b->min_ms;
  });
  return rows;
}

int db_show(const tuning_db& db, const std::string& prefix) {
  const auto rec = record_by_prefix(db, prefix);
  print_record_key(rec);
  std::cout << fmt::format("{:>4}  {:<14} {:>10} {:>10} {:>7} {:>5}  {:<6} {:<32} {}\n", "rank", "status", "min ms",
                           "median", "spread", "reps", "verify", "device", "config");
  std::size_t rank = 0;
  for (const auto* m : ranked(rec)) {
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
    if (auto name = gemm_config_name(m.config)) return *name;
  }
  return m.config;
}

/// One record's candidates: time against configuration, fastest first.
plot_result plot_record_candidates(const tuning_db& db, const std::string& prefix, const std::string& file) {
  const auto rec = record_by_prefix(db, prefix);
  std::vector<const measurement*> ok;
  for (const auto& m : rec.measurements) {
    if (m.status == candidate_status::ok && m.min_ms > 0) ok.push_back(&m);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [](const measurement* a, const measurement* b) { return a->min_ms < b->min_ms; });
  std::vector<candidate_point> points;
  for (const auto* m : ok) points.push_back({config_label(rec, *m), m->min_ms, m->median_ms});
  return plot_candidates(file, rec.key.template_name + " " + rec.key.digest().substr(0, 12) + " on " + rec.key.device,
                         points);
}

/// Every GEMM record's winner: TFLOP/s against shape, smallest problem first.
plot_result plot_all_winners(const tuning_db& db, const std::string& file) {
  struct row {
    double flops;
    winner_point point;
  };
  std::vector<row> rows;
  for (const auto& rec : db.list()) {
    const auto* w = winner_of(rec);
    const auto shape = rec.key.template_name == "gemm" ? read_gemm_record_shape(rec.key) : std::nullopt;
    if (w == nullptr || !shape || !(w->min_ms > 0)) continue;
    rows.push_back({shape->flops, {shape->label, shape->flops / (w->min_ms * 1e-3) / 1e12, config_label(rec, *w)}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) { return a.flops < b.flops; });
  std::vector<winner_point> points;
  for (auto& r : rows) points.push_back(std::move(r.point));
  if (points.empty()) throw std::runtime_error("db plot: no GEMM record with a timed winner in " + db.path().string());
  return plot_winners(file, "winners in " + db.path().filename().string(), points);
}

/// With a digest prefix: that record's candidates. Without: every GEMM record's winner.
int db_plot(const tuning_db& db, const std::string& prefix, const std::string& file) {
  const plot_result result = prefix.empty() ? plot_all_winners(db, file) : plot_record_candidates(db, prefix, file);
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

int run_db(const db_args& a) {
  if (!a.list->parsed() && !a.show->parsed() && !a.export_json->parsed() && !a.plot->parsed() && !a.clear->parsed()) {
    throw usage_error("db: a command is required: list, show, export, plot or clear");
  }
  tuning_db database = existing_database(a.db);  // each db command reads: none creates a database
  if (a.list->parsed()) return db_list(database);
  if (a.show->parsed()) return db_show(database, a.show_prefix);
  if (a.export_json->parsed()) return db_export(database, a.export_file);
  if (a.plot->parsed()) return db_plot(database, a.plot_prefix, a.plot_file);
  if (a.clear->parsed()) {
    const bool one_template = a.clear_template_option->count() > 0;
    return db_clear(database, one_template ? std::optional<std::string>(a.clear_template) : std::nullopt);
  }
  throw usage_error("db: a command is required: list, show, export, plot or clear");
}

}  // namespace

command register_db(CLI::App& app) {
  auto a = std::make_shared<db_args>();
  auto* db = app.add_subcommand("db", "Inspect or clear the tuning database");
  add_database_option(*db, a->db, std::string(database_help));
  db->fallthrough();
  a->list = db->add_subcommand("list", "One line per tuning record");
  a->show = db->add_subcommand("show", "Everything about one record");
  a->show->add_option("digest-prefix", a->show_prefix, "leading digits of the record's digest")
      ->required()
      ->check(hex_validator());
  a->export_json = db->add_subcommand("export", "All records as JSON");
  a->export_json->add_option("file", a->export_file, "output file (default: standard output)");
  a->plot = db->add_subcommand(
      "plot",
      "Draw one record's candidates (time against configuration), or without a digest every GEMM record's "
      "winner (TFLOP/s against shape)");
  a->plot->add_option("digest-prefix", a->plot_prefix, "leading digits of the record's digest")->check(hex_validator());
  a->plot->add_option("--output,-o", a->plot_file, "the picture (PNG or SVG by extension)")
      ->required()
      ->check(plot_file_validator());
  a->clear = db->add_subcommand("clear", "Remove records");
  a->clear_template_option = a->clear->add_option("--template", a->clear_template, "only this template's records");
  return {db, [a] { return run_db(*a); }};
}

}  // namespace rocmtpl_tune
