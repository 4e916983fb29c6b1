// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/aot/export.hpp: a tuning database holding what a tune stores (the
// candidates' real ids, configs and source hashes; times made up, since there is no GPU here) is
// exported to a dispatch header, which is compiled with the host compiler and run (exact and
// nearest-shape lookups), and to a folder of compiled winners (hipcc, skipped without it).
// g++ 12 at -O3 reports a false -Werror=restrict inside operator+(const char*, std::string&&) once
// this test inlines the autotuner's detail::problem_signature() (COMMON.md's known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <rocmtpl/runtime/aot/export.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace rt = rocmtpl::runtime;
using rocmtpl::templates::activation;

struct temp_dir {
  fs::path path;
  temp_dir() {
    std::string pattern = (fs::temp_directory_path() / "rocmtpl-export-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

rocmtpl::templates::gemm_problem spec(std::int64_t m, std::int64_t n, std::int64_t k, std::vector<std::string> symbolic,
                                      std::string layout = "rr", activation act = activation::none, bool bias = false) {
  return {
      .m = m, .n = n, .k = k, .layout = std::move(layout), .act = act, .bias = bias, .symbolic = std::move(symbolic)};
}

// Stores what the autotuner stores for the problem (key from the candidates, one measurement per
// candidate), with made-up times where candidate `winner` is the fastest; returns the winner's config.
rocmtpl::templates::gemm_config store_tuned(rt::tuning_db& db, const rocmtpl::templates::gemm_problem& s,
                                            std::size_t winner, bool with_descriptor = true) {
  const auto tpl = rocmtpl::templates::make_template(s);
  rt::autotune_options options;
  options.max_candidates = 3;
  const auto callers = rt::detail::collect_candidates(tpl, s.hints(), options);
  auto candidates = rt::detail::describe_candidates(callers);
  std::vector<std::string> hashes;
  for (const auto& c : callers) hashes.push_back(c.bmreq().source_hash());
  rt::tuning_key key{"gemm",
                     rt::detail::problem_signature(callers.front().bmreq(), s.hints(), hashes),
                     "-",
                     "gfx90a",
                     "none (export test)",
                     "clang 15",
                     "0.1.0"};
  if (with_descriptor) key.descriptor = rt::detail::problem_descriptor_of(tpl, s.hints());
  std::vector<rt::measurement> ms;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto m = candidates[i].result;
    m.status = rt::candidate_status::ok;
    m.min_ms = m.median_ms = i == winner ? 0.5 : 1.0 + static_cast<double>(i);
    m.repetitions = 10;
    m.verified = true;
    ms.push_back(m);
  }
  db.record(key, ms, candidates.at(winner).id);
  return rt::parse_gemm_config(candidates.at(winner).config);
}

TEST(Export, TheKeyCarriesTheProblemAsItsDescriptor) {
  const auto s = spec(300, 200, 100, {"K", "M"}, "rc", activation::relu, true);
  const auto text = rt::detail::problem_descriptor_of(rocmtpl::templates::make_template(s), s.hints());
  const auto back = rt::read_descriptor<rocmtpl::templates::gemm_problem>(text);
  ASSERT_TRUE(back.has_value()) << text;
  EXPECT_EQ(*back, s);
  // A template no gemm_problem describes (a residual) has none.
  const auto m = rocmtpl::sym_expr::symbol("M");
  const rocmtpl::rocm_template<rocmtpl::templates::gemm_policy> residual(
      rocmtpl::templates::gemm_policy({.residual = true}),
      {rocmtpl::buffer("x", rocmtpl::layout::row_major(rocmtpl::dtype::f32, {m, 8})),
       rocmtpl::buffer("w", rocmtpl::layout::row_major(rocmtpl::dtype::f32, {8, 8})),
       rocmtpl::buffer("r", rocmtpl::layout::row_major(rocmtpl::dtype::f32, {m, 8}))},
      rocmtpl::layout::row_major(rocmtpl::dtype::f32, {m, 8}));
  EXPECT_EQ(rt::detail::problem_descriptor_of(residual, {{"M", 8}}), "");
}

TEST(Export, RecordsWithoutADescriptorOrWithAlphaAreLeftOutWithANote) {
  temp_dir dir;
  rt::tuning_db db(dir.path / "tuning.sqlite3");
  (void)store_tuned(db, spec(64, 64, 64, {}), 0, false);
  auto scaled = spec(96, 64, 64, {});
  scaled.alpha = 0.5F;
  (void)store_tuned(db, scaled, 0);
  const auto found = rt::collect_pretuned_gemms(db.list());
  EXPECT_TRUE(found.entries.empty());
  ASSERT_EQ(found.notes.size(), 2U);
  const auto all = found.notes[0] + "\n" + found.notes[1];
  EXPECT_NE(all.find("no GEMM problem descriptor"), std::string::npos) << all;
  EXPECT_NE(all.find("alpha is not 1"), std::string::npos) << all;
}

TEST(Export, ParsesTheConfigTextBack) {
  namespace tpl = rocmtpl::templates;
  auto skinny_n = tpl::skinny_path::search_space().back();
  skinny_n.side = tpl::skinny_side::n;
  auto skinny_mma_n = tpl::skinny_mma_path::search_space().front();
  skinny_mma_n.side = tpl::skinny_side::n;
  skinny_mma_n.split_k = 4;
  for (const auto& c : {tpl::gemm_config{}, tpl::gemm_config(tpl::simt_config{128, 64, 8, 8, 4, 1}),
                        tpl::gemm_config(tpl::mma_path::search_space().back()),
                        tpl::gemm_config(tpl::wgmma_path::search_space().front()).with_split_k(2),
                        tpl::gemm_config(tpl::skinny_path::search_space().front()), tpl::gemm_config(skinny_n),
                        tpl::gemm_config(skinny_mma_n)}) {
    std::string text;
    for (const auto& [k, v] : tpl::describe(c)) text += (text.empty() ? "" : " ") + k + "=" + v;
    EXPECT_EQ(rt::parse_gemm_config(text), c) << text;
  }
  // Records name the math wherever their writer put it.
  EXPECT_EQ(rt::parse_gemm_config("block_m=128 math=simt"), tpl::gemm_config(tpl::simt_config{.block_m = 128}));
  EXPECT_THROW((void)rt::parse_gemm_config("block_q=3"), rocmtpl::invalid_argument_error);  // no math
  EXPECT_THROW((void)rt::parse_gemm_config("math=simt block_q=3"), rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)rt::parse_gemm_config("math=simt block_m"), rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)rt::parse_gemm_config("math=tensor block_m=64"), rocmtpl::invalid_argument_error);
}

TEST(Export, RebuildsEachWinnerWithItsLayoutAndEpilogue) {
  temp_dir dir;
  rt::tuning_db db(dir.path / "tuning.sqlite3");
  const auto a = store_tuned(db, spec(128, 128, 64, {"K", "M", "N"}), 1);
  const auto b = store_tuned(db, spec(256, 256, 256, {}, "rc", activation::gelu, true), 2);
  const auto found = rt::collect_pretuned_gemms(db.list());
  ASSERT_EQ(found.entries.size(), 2U);
  EXPECT_TRUE(found.notes.empty());
  for (const auto& e : found.entries) {
    if (e.problem.symbolic.empty()) {
      EXPECT_EQ(e.config, b);
      EXPECT_EQ(e.problem.layout, "rc");
      EXPECT_EQ(e.problem.act, activation::gelu);
      EXPECT_TRUE(e.problem.bias);
      EXPECT_TRUE(e.size_args.empty());
    } else {
      EXPECT_EQ(e.config, a);
      EXPECT_EQ(e.size_args.size(), 3U);
    }
    EXPECT_EQ(e.tuned_ms, 0.5);
    EXPECT_NE(e.source.find(e.symbol), std::string::npos);
  }
}

TEST(Export, RefusesToMixDevices) {
  temp_dir dir;
  rt::tuning_db db(dir.path / "tuning.sqlite3");
  (void)store_tuned(db, spec(64, 64, 64, {}), 0);
  auto records = db.list();
  auto other = records.front();
  other.key.device = "another GPU";
  db.record(other.key, other.measurements, other.winner);
  EXPECT_THROW((void)rt::collect_pretuned_gemms(db.list()), rocmtpl::invalid_argument_error);
  EXPECT_EQ(rt::collect_pretuned_gemms(db.list(), {.device = "another GPU", .arch = ""}).entries.size(), 1U);
}

// The program that includes the exported header: compile-time and run-time lookups.
constexpr std::string_view dispatch_check = R"hip(
#include "pretuned.hpp"
#include <cstdio>
using namespace test_pretuned;
constexpr gemm_key key(std::string_view layout, std::string_view epi, bool bias, std::int64_t m, std::int64_t n,
                       std::int64_t k) { return {"float32", layout, epi, bias, 1, m, n, k}; }
static_assert(gemm_table.size() == 3);
// Tuned shapes: exact.
static_assert(find_gemm(key("rr", "none", false, 128, 128, 64)).exact);
static_assert(find_gemm(key("rr", "none", false, 2048, 2048, 1024)).exact);
static_assert(find_gemm(key("rc", "gelu", true, 256, 256, 256)).exact);
// Untuned shapes: the nearest symbolic entry (distance = product of max/min ratios).
// The table is sorted by dtype, layout, epilogue, bias, batch, m, n, k: rc/gelu first.
static_assert(find_gemm(key("rr", "none", false, 200, 130, 64)).entry == &gemm_table[1]);
static_assert(find_gemm(key("rr", "none", false, 1500, 2048, 1024)).entry == &gemm_table[2]);
static_assert(find_gemm(key("rr", "none", false, 256, 128, 64)).distance == 2.0);
// A static kernel runs only its own shape; other dtypes, layouts and epilogues find nothing.
static_assert(find_gemm(key("rc", "gelu", true, 256, 256, 512)).entry == nullptr);
static_assert(find_gemm(key("rr", "relu", false, 128, 128, 64)).entry == nullptr);
static_assert(find_gemm({"float16", "rr", "none", false, 1, 128, 128, 64}).entry == nullptr);
int main(int argc, char**) {
  // The same at run time, with a size the compiler cannot see.
  const auto c = find_gemm(key("rr", "none", false, 700 + argc, 700, 400));
  if (c.entry != &gemm_table[2] || c.exact) return 1;
  std::printf("%.*s %.*s\n", static_cast<int>(c.entry->symbol.size()), c.entry->symbol.data(),
              static_cast<int>(c.entry->config.size()), c.entry->config.data());
  return 0;
}
)hip";

TEST(Export, TheHeaderCompilesAndDispatchesToTheNearestShape) {
  temp_dir dir;
  rt::tuning_db db(dir.path / "tuning.sqlite3");
  (void)store_tuned(db, spec(128, 128, 64, {"K", "M", "N"}), 0);
  (void)store_tuned(db, spec(2048, 2048, 1024, {"K", "M", "N"}), 2);
  (void)store_tuned(db, spec(256, 256, 256, {}, "rc", activation::gelu, true), 1);
  const auto found = rt::collect_pretuned_gemms(db.list());
  ASSERT_EQ(found.entries.size(), 3U);
  const auto header = rt::render_dispatch_header(
      found.entries,
      {.name_space = "test_pretuned", .module_dir = (dir.path / "mod").string(), .origin = "the export test"});
  { std::ofstream(dir.path / "pretuned.hpp") << header; }
  { std::ofstream(dir.path / "main.cpp") << dispatch_check; }
  const auto cxx = rt::find_executable("c++");
  if (!cxx) GTEST_SKIP() << "no host C++ compiler (c++) on PATH";
  const auto built = rt::run_process({cxx->string(), "-std=c++20", "-Wall", "-Wextra", "-Werror",
                                      (dir.path / "main.cpp").string(), "-o", (dir.path / "main").string()});
  ASSERT_TRUE(built.ok()) << built.output << "\n" << header;
  const auto ran = rt::run_process({(dir.path / "main").string()});
  ASSERT_TRUE(ran.ok()) << ran.output << "\n" << header;
  for (const auto& e : found.entries) {
    if (e.problem.m == 2048) {
      EXPECT_NE(ran.output.find(e.symbol + " " + e.config.name()), std::string::npos) << ran.output;
    }
  }
}

// A skinny winner (made for few rows) serves the nearest shapes within its regime only while a
// tiled entry can take the others, even a tiled entry farther away.
constexpr std::string_view skinny_check = R"hip(
#include "pretuned.hpp"
using namespace test_pretuned;
constexpr gemm_key key(std::int64_t m, std::int64_t n, std::int64_t k) { return {"float32", "rr", "none", false, 1, m, n, k}; }
static_assert(gemm_table.size() == 2);
constexpr const gemm_entry* skinny = gemm_table[0].max_m != 0 ? &gemm_table[0] : &gemm_table[1];
constexpr const gemm_entry* tiled = skinny == &gemm_table[0] ? &gemm_table[1] : &gemm_table[0];
static_assert(skinny->key.m == 16 && skinny->max_m == 64 && tiled->max_m == 0);
static_assert(find_gemm(key(16, 4096, 4096)).entry == skinny && find_gemm(key(16, 4096, 4096)).exact);
static_assert(find_gemm(key(48, 4096, 4096)).entry == skinny && find_gemm(key(48, 4096, 4096)).made_for);
// 128 rows: the skinny entry is nearer (distance 8) than the tiled one (distance 32), but not made for it.
static_assert(gemm_distance(key(128, 4096, 4096), *skinny) < gemm_distance(key(128, 4096, 4096), *tiled));
static_assert(find_gemm(key(128, 4096, 4096)).entry == tiled && find_gemm(key(128, 4096, 4096)).made_for);
int main() { return 0; }
)hip";

TEST(Export, ASkinnyWinnerServesOnlyShapesItIsMadeForWhileATiledOneCan) {
  temp_dir dir;
  rt::tuning_db db(dir.path / "tuning.sqlite3");
  const auto skinny = store_tuned(db, spec(16, 4096, 4096, {"K", "M", "N"}), 0);
  // Ranked first at 16 rows: a skinny configuration on side m.
  const auto side = skinny.visit([](const auto& c) -> std::optional<rocmtpl::templates::skinny_side> {
    if constexpr (requires { c.side; }) return c.side;
    return std::nullopt;
  });
  ASSERT_EQ(side, rocmtpl::templates::skinny_side::m) << skinny.name();
  const auto tiled = store_tuned(db, spec(4096, 4096, 4096, {"K", "M", "N"}), 0);
  ASSERT_FALSE(tiled.holds<rocmtpl::templates::skinny_config>() || tiled.holds<rocmtpl::templates::skinny_mma_config>())
      << tiled.name();
  const auto found = rt::collect_pretuned_gemms(db.list());
  ASSERT_EQ(found.entries.size(), 2U);
  const auto header = rt::render_dispatch_header(
      found.entries,
      {.name_space = "test_pretuned", .module_dir = (dir.path / "mod").string(), .origin = "the export test"});
  { std::ofstream(dir.path / "pretuned.hpp") << header; }
  { std::ofstream(dir.path / "main.cpp") << skinny_check; }
  const auto cxx = rt::find_executable("c++");
  if (!cxx) GTEST_SKIP() << "no host C++ compiler (c++) on PATH";
  const auto built = rt::run_process({cxx->string(), "-std=c++20", "-Wall", "-Wextra", "-Werror",
                                      (dir.path / "main.cpp").string(), "-o", (dir.path / "main").string()});
  ASSERT_TRUE(built.ok()) << built.output << "\n" << header;
}

TEST(Export, AnEmptyDatabaseGivesAnEmptyTableThatCompiles) {
  const auto header = rt::render_dispatch_header({}, {.name_space = "empty_pretuned", .module_dir = "", .origin = ""});
  EXPECT_NE(header.find("std::array<gemm_entry, 0> gemm_table{}"), std::string::npos) << header;
}

std::string manifest_library(const fs::path& manifest) {
  return nlohmann::json::parse(std::ifstream(manifest)).at("entries").at(0).at("library").get<std::string>();
}

TEST(Export, TheModuleFolderHoldsEachWinnerOnce) {
  temp_dir dir;
  rt::tuning_db db(dir.path / "tuning.sqlite3");
  (void)store_tuned(db, spec(128, 128, 64, {"K", "M", "N"}), 0);
  const auto found = rt::collect_pretuned_gemms(db.list());
  ASSERT_EQ(found.entries.size(), 1U);
  std::optional<rt::compiler> cc;
  try {
    cc = rt::compiler::find(rt::platform::amd);
  } catch (const rocmtpl::error& e) {
    GTEST_SKIP() << "no hipcc: " << e.what();
  }
  rt::code_cache cache(dir.path / "cache");
  const auto mod =
      rt::build_pretuned_module(found.entries, dir.path / "mod", *cc, rt::export_compile_options("gfx90a"), cache);
  EXPECT_EQ(mod.libraries, 1U);
  EXPECT_EQ(mod.compiled, 1U);
  const auto lib = dir.path / "mod" / manifest_library(mod.manifest);
  ASSERT_TRUE(fs::exists(lib));
  const rt::shared_library so(lib);
  EXPECT_TRUE(so.has_symbol(found.entries[0].symbol + "_packed"));
  const auto manifest = nlohmann::json::parse(std::ifstream(mod.manifest));
  EXPECT_EQ(manifest.at("entries").size(), 1U);
  EXPECT_EQ(manifest.at("entries")[0].at("config"), found.entries[0].config.name());
  // A second export compiles nothing (the code cache has it).
  const auto again =
      rt::build_pretuned_module(found.entries, dir.path / "mod2", *cc, rt::export_compile_options("gfx90a"), cache);
  EXPECT_EQ(again.compiled, 0U);
  // Exporting another winner into the same folder replaces the first one's library.
  (void)store_tuned(db, spec(128, 128, 64, {"K", "M", "N"}), 1);
  const auto second = rt::collect_pretuned_gemms(db.list());
  ASSERT_EQ(second.entries.size(), 1U);
  ASSERT_NE(second.entries[0].source_hash, found.entries[0].source_hash);
  (void)rt::build_pretuned_module(second.entries, dir.path / "mod", *cc, rt::export_compile_options("gfx90a"), cache);
  EXPECT_FALSE(fs::exists(lib));
  EXPECT_TRUE(fs::exists(dir.path / "mod" / manifest_library(mod.manifest)));
}

TEST(Export, CompileOptionsFollowTheRecordedArch) {
  EXPECT_EQ(rt::export_compile_options("gfx90a,gfx940").archs, (std::vector<std::string>{"gfx90a", "gfx940"}));
  EXPECT_EQ(rt::export_compile_options("gfx90a,gfx940").platform, rt::platform::amd);
  EXPECT_EQ(rt::export_compile_options("sm_90").archs, (std::vector<std::string>{"sm_90a"}));
  EXPECT_EQ(rt::export_compile_options("sm_90").platform, rt::platform::nvidia);
}

}  // namespace
