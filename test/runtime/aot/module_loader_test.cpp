// SPDX-License-Identifier: MIT
// Modules with the real compiler, no GPU needed: a three-node module with a symbolic size built with
// hipcc (once: the second compile is a cache hit), only its entry point exported, the workspace
// query and the status codes of the entry point, the ahead-of-time artifact (library + manifest)
// saved, loaded and rejected when broken, and the standalone runner built as an executable.
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/aot/module_loader.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::temp_dir;
using templates::activation;
using templates::elementwise_config;
using templates::elementwise_policy;
using templates::gemm_config;
using templates::gemm_policy;

const sym_expr m_sym = sym_expr::symbol("M");

// gemm [M,64]x[64,96] -> bias + gelu -> gemm [M,96]x[96,32].
module_source mlp_module() {
  const buffer x("x", layout::row_major(dtype::f32, {m_sym, 64}));
  const buffer w1("w1", layout::row_major(dtype::f32, {64, 96}));
  const buffer b1("b1", layout::row_major(dtype::f32, {96}));
  const buffer w2("w2", layout::row_major(dtype::f32, {96, 32}));
  const auto hidden = layout::row_major(dtype::f32, {m_sym, 96});
  const size_hints hints{{"M", 100}};
  rocm_template<gemm_policy> up(gemm_policy(), {x, w1}, hidden);
  rocm_template<elementwise_policy> act(elementwise_policy({activation::gelu}), {buffer("h", hidden), b1}, hidden);
  rocm_template<gemm_policy> down(gemm_policy(), {buffer("a", hidden), w2}, layout::row_major(dtype::f32, {m_sym, 32}));
  module_graph g("mlp");
  g.add_input(x).add_input(w1).add_input(b1).add_input(w2);
  g.add_node("h", up.generate(gemm_config{}, hints).output_node());
  g.add_node("a", act.generate(elementwise_config{}, hints).output_node());
  g.add_node("y", down.generate(gemm_config{}, hints).output_node());
  g.add_output("y");
  module_options o;
  o.runner_sizes = {{"M", 512}};
  o.runner_iterations = 5;
  return emit_module(g, o);
}

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// One build of the module per test program (hipcc takes seconds); every test reads it.
struct built_module {
  temp_dir dir;
  module_source source = mlp_module();
  std::optional<compiler> cc;
  std::optional<code_cache> cache;
  std::optional<loaded_module> module;
  std::string skip;

  built_module() {
    try {
      cc = compiler::find(platform::amd);
    } catch (const compiler_not_found_error& e) {
      skip = e.what();
      return;
    }
    // Shared by the test processes (ctest runs each test in its own): one compile for all of them.
    cache.emplace(std::filesystem::path(ROCMTPL_TEST_BINARY_DIR) / "module_loader_test_cache");
    module.emplace(loaded_module::compile(source, *cc, amd_compile_options({"gfx90a"}), *cache));
  }
};

built_module& shared_build() {
  static built_module b;
  return b;
}

#define REQUIRE_MODULE(var)   \
  auto& var = shared_build(); \
  if (!var.module) GTEST_SKIP() << "no hipcc: " << var.skip

TEST(ModuleRuntime, CompilesOnceThroughTheCache) {
  REQUIRE_MODULE(b);
  ASSERT_TRUE(b.module->build_record());
  EXPECT_EQ(b.module->build_record()->log.find("redefined"), std::string::npos) << b.module->build_record()->log;
  const auto compiles = b.cache->compiles();
  auto again = loaded_module::compile(b.source, *b.cc, amd_compile_options({"gfx90a"}), *b.cache);
  ASSERT_TRUE(again.build_record());
  EXPECT_TRUE(again.build_record()->cached);
  EXPECT_EQ(b.cache->compiles(), compiles);
  EXPECT_EQ(again.library_path(), b.module->library_path());
}

TEST(ModuleRuntime, OnlyTheEntryPointIsExported) {
  REQUIRE_MODULE(b);
  const auto& lib = *b.module->library();
  EXPECT_TRUE(lib.has_symbol("mlp"));
  EXPECT_TRUE(lib.has_symbol("mlp_packed"));
  EXPECT_EQ(kernel_entry::exported_signature(lib, "mlp"), b.source.entry.declaration("mlp"));
  ASSERT_EQ(b.source.kernels.size(), 3U);
  for (const auto& k : b.source.kernels) {
    EXPECT_FALSE(lib.has_symbol(k.name)) << k.name << " is exported";
    EXPECT_FALSE(lib.has_symbol(k.name + "_packed")) << k.name << "_packed is exported";
  }
  EXPECT_FALSE(lib.has_symbol("main"));
}

TEST(ModuleRuntime, WorkspaceHoldsBothIntermediates) {
  REQUIRE_MODULE(b);
  // h and a are alive together (a = f(h)): two slots of M*96 floats; the kernels need no workspace.
  for (std::int64_t m : {100, 3, 1}) {
    EXPECT_EQ(b.module->workspace_size({{"M", m}}), 2 * aligned(static_cast<std::size_t>(m) * 96 * 4)) << "M=" << m;
  }
  EXPECT_EQ(b.module->workspace_size({{"M", 0}}), 0U);
  EXPECT_THROW((void)b.module->workspace_size({{"N", 3}}), invalid_argument_error);
}

TEST(ModuleRuntime, WorkspaceSizesThatOverflowAreRefused) {
  REQUIRE_MODULE(b);
  const auto& mod = *b.module;
  const std::vector<const void*> no_inputs(4, nullptr);
  const std::vector<void*> no_outputs(1, nullptr);
  // The tensors' element counts fit in int64 (64*M, 96*M, 32*M), but the workspace does not fit in
  // size_t: with M = 2^56 one intermediate's bytes (96*4*M) overflow, with M = 2^55 each fits and
  // the sum of the two slots overflows. Both the query and the launch refuse them.
  for (const std::int64_t m : {std::int64_t{1} << 56, std::int64_t{1} << 55}) {
    std::size_t bytes = 7;
    EXPECT_EQ(mod.call(no_inputs, no_outputs, {{"M", m}}, &bytes, nullptr, nullptr),
              kernel_status::unsupported_argument)
        << "M=" << m;
    EXPECT_EQ(bytes, 7U) << "M=" << m;
    EXPECT_EQ(mod.call(no_inputs, no_outputs, {{"M", m}}, nullptr, nullptr, nullptr),
              kernel_status::unsupported_argument)
        << "M=" << m;
  }
  // A large M whose workspace still fits is answered.
  const std::int64_t fits = std::int64_t{1} << 50;
  EXPECT_EQ(mod.workspace_size({{"M", fits}}), 2 * aligned(static_cast<std::size_t>(fits) * 96 * 4));
}

TEST(ModuleRuntime, EntryPointChecksItsArgumentsWithoutAGpu) {
  REQUIRE_MODULE(b);
  const auto& mod = *b.module;
  const std::vector<const void*> no_inputs(4, nullptr);
  const std::vector<void*> no_outputs(1, nullptr);
  std::size_t bytes = 0;
  EXPECT_EQ(mod.call(no_inputs, no_outputs, {{"M", -1}}, &bytes, nullptr, nullptr),
            kernel_status::unsupported_argument);  // unsupported size
  EXPECT_EQ(mod.call(no_inputs, no_outputs, {{"M", 8}}, nullptr, nullptr, nullptr),
            kernel_status::workspace_too_small);  // workspace missing
  std::vector<std::uint8_t> host_workspace(mod.workspace_size({{"M", 8}}));
  EXPECT_EQ(mod.call(no_inputs, no_outputs, {{"M", 8}}, nullptr, host_workspace.data(), nullptr),
            kernel_status::null_argument);  // null tensors
  // An empty batch needs no workspace, x and y may be null, and nothing is launched; the weights
  // (static sizes) must still be there (host memory here: never read).
  std::vector<float> weights(64 * 96);
  const std::vector<const void*> only_weights{nullptr, weights.data(), weights.data(), weights.data()};
  EXPECT_EQ(mod.call(only_weights, no_outputs, {{"M", 0}}, nullptr, nullptr, nullptr), kernel_status::ok);
  EXPECT_EQ(mod.call(no_inputs, no_outputs, {{"M", 0}}, nullptr, nullptr, nullptr),
            kernel_status::null_argument);  // w1 is null
  try {
    mod.run(no_inputs, no_outputs, {{"M", 8}}, host_workspace.data(), nullptr);
    FAIL() << "expected kernel_status_error";
  } catch (const kernel_status_error& e) {
    EXPECT_EQ(e.code(), kernel_status::null_argument);
  }
  EXPECT_THROW((void)mod.call({nullptr}, no_outputs, {{"M", 8}}, nullptr, nullptr, nullptr), invalid_argument_error);
}

TEST(ModuleRuntime, SavesAndLoadsTheAheadOfTimeArtifact) {
  REQUIRE_MODULE(b);
  temp_dir out;
  const auto manifest_path = b.module->save(out.path() / "artifact");
  EXPECT_EQ(manifest_path, out.path() / "artifact" / "mlp.json");
  EXPECT_TRUE(std::filesystem::is_regular_file(out.path() / "artifact" / "mlp.so"));
  const auto j = nlohmann::json::parse(test::read_file(manifest_path));
  EXPECT_EQ(j.at("kind"), "rocmtpl.module");
  EXPECT_EQ(j.at("name"), "mlp");
  EXPECT_EQ(j.at("library"), "mlp.so");
  EXPECT_EQ(j.at("size_args"), nlohmann::json::array({"M"}));
  EXPECT_EQ(j.at("platform"), "amd");
  EXPECT_EQ(j.at("archs"), nlohmann::json::array({"gfx90a"}));
  EXPECT_EQ(j.at("signature"), b.source.signature);
  ASSERT_EQ(j.at("inputs").size(), 4U);
  EXPECT_EQ(j.at("inputs")[0].at("sizes"), nlohmann::json::array({"M", "64"}));
  EXPECT_EQ(j.at("outputs")[0].at("strides"), nlohmann::json::array({"32", "1"}));
  EXPECT_EQ(j.at("kernels").size(), 3U);
  // The cache may be cleared now: the artifact stands alone.
  for (const auto& path : {manifest_path, out.path() / "artifact" / "mlp.so"}) {
    const auto loaded = loaded_module::load(path);
    EXPECT_FALSE(loaded.build_record());
    EXPECT_EQ(loaded.workspace_size({{"M", 77}}), b.module->workspace_size({{"M", 77}}));
    EXPECT_EQ(loaded.manifest().inputs, b.source.inputs);
    EXPECT_EQ(loaded.manifest().outputs, b.source.outputs);
    const auto meta = loaded.input_meta(0, {{"M", 5}});
    EXPECT_EQ(meta.sizes, (std::vector<std::int64_t>{5, 64}));
    EXPECT_EQ(loaded.output_meta(0, {{"M", 5}}).storage_bytes(), 5U * 32 * 4);
    EXPECT_THROW((void)loaded.input_meta(4, {{"M", 5}}), out_of_range_error);
  }
}

TEST(ModuleRuntime, BrokenArtifactsAreRejectedWithAReason) {
  REQUIRE_MODULE(b);
  temp_dir out;
  const auto manifest_path = b.module->save(out.path());
  const auto good = nlohmann::json::parse(test::read_file(manifest_path));
  auto expect_error = [&](const std::string& text, const std::string& reason) {
    test::write_file(manifest_path, text);
    try {
      (void)loaded_module::load(manifest_path);
      ADD_FAILURE() << "accepted: " << text.substr(0, 80);
    } catch (const module_error& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  expect_error("{", "not valid JSON");
  auto other = good;
  other["format"] = 2;
  expect_error(other.dump(), "format 2 is not 1");
  other = good;
  other.erase("size_args");
  expect_error(other.dump(), "size_args");
  other = good;
  other["library"] = "../elsewhere.so";
  expect_error(other.dump(), "must be a file name");
  other = good;
  other["inputs"][0]["sizes"][0] = "M +* 2";
  expect_error(other.dump(), "cannot read the expression 'M +* 2'");
  EXPECT_THROW((void)loaded_module::load(out.path() / "absent.json"), module_error);
  other = good;
  other["library"] = "absent.so";
  test::write_file(manifest_path, other.dump());
  EXPECT_THROW((void)loaded_module::load(manifest_path), library_load_error);
  // A manifest that describes another entry than the library has: refused, both declarations named.
  other = good;
  other["inputs"][0]["dtype"] = "float16";
  test::write_file(manifest_path, other.dump());
  try {
    (void)loaded_module::load(manifest_path);
    ADD_FAILURE() << "a manifest with another input dtype was accepted";
  } catch (const signature_mismatch_error& e) {
    EXPECT_EQ(e.actual(), b.source.entry.declaration("mlp"));
    EXPECT_NE(e.expected().find("const uint16_t* u_x"), std::string::npos) << e.expected();
  }
}

TEST(ModuleManifest, ExpressionsSurviveTheRoundTrip) {
  const auto n = sym_expr::symbol("N");
  const auto k = sym_expr::symbol("K");
  const buffer odd("odd", layout(dtype::bf16, {floor_div(n + 7, 8), mod(k, 3) + 1, n * k},
                                 {n * k * 2 - 4, sym_expr(1), ceil_div(n, 4)}, floor_div(k, 2) * -3 + 9000000000LL));
  module_manifest m;
  m.name = "odd";
  m.library = "odd.so";
  m.platform = "nvidia";
  m.archs = {"sm_90"};
  m.inputs = {odd};
  m.outputs = {buffer("y", layout::row_major(dtype::f16, {n, k}))};
  m.size_args = {"N", "K"};
  m.kernels = {{"rocm_fused_odd_0", {}, "0123456789abcdef", {{"y", "odd"}}}};
  const auto back = module_manifest::from_json(nlohmann::json::parse(m.to_json().dump()));
  ASSERT_EQ(back.inputs.size(), 1U);
  EXPECT_EQ(back.inputs[0], odd) << back.inputs[0].get_layout().to_string() << " vs " << odd.get_layout().to_string();
  EXPECT_EQ(back.outputs, m.outputs);
  EXPECT_EQ(back.size_args, m.size_args);
  ASSERT_EQ(back.kernels.size(), 1U);
  EXPECT_EQ(back.kernels[0].origins, m.kernels[0].origins);
  EXPECT_EQ(back.kernels[0].source_hash, "0123456789abcdef");
}

TEST(ModuleRuntime, StandaloneRunnerBuildsAsAnExecutable) {
  REQUIRE_MODULE(b);
  temp_dir out;
  const auto exe = build_standalone_runner(b.source, *b.cc, amd_compile_options({"gfx90a"}), out.path() / "mlp_runner");
  ASSERT_TRUE(runtime::detail::proc::is_executable_file(exe));
  auto help = run_process({exe.string(), "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("usage: "), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("M = 512"), std::string::npos) << help.output;
  auto bad = run_process({exe.string(), "bogus"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("unknown argument 'bogus'"), std::string::npos) << bad.output;
  auto negative = run_process({exe.string(), "M=-4"});
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
  const auto& rt = gpu_runtime::instance();
  if (rt.available() && rt.kind() == platform::amd) {
    auto run = run_process({exe.string(), "M=300", "--iters=3"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("ms per run (3 runs)"), std::string::npos) << run.output;
  } else {
    auto run = run_process({exe.string(), "M=300"});
    EXPECT_NE(run.exit_code, 0) << "ran without an AMD GPU: " << run.output;
  }
  // A module emitted without the runner cannot build one.
  auto plain = b.source;
  plain.source = plain.source.substr(0, plain.source.find("#ifdef ROCMTPL_STANDALONE_RUNNER"));
  EXPECT_THROW((void)build_standalone_runner(plain, *b.cc, amd_compile_options({"gfx90a"}), out.path() / "none"),
               invalid_argument_error);
}

TEST(ModuleRuntime, CompileErrorsCarryTheModuleSource) {
  REQUIRE_MODULE(b);
  auto broken = b.source;
  broken.source += "\nthis is not C++;\n";
  try {
    (void)loaded_module::compile(broken, *b.cc, amd_compile_options({"gfx90a"}), *b.cache);
    FAIL() << "expected compile_error";
  } catch (const compile_error& e) {
    EXPECT_NE(e.source().find("extern \"C\" PT_EXPORT int mlp("), std::string::npos);
  }
}

}  // namespace
