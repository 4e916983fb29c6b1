// SPDX-License-Identifier: MIT
// 05_aot_module: describe a small graph of template nodes, y = gelu(x @ w1 + b1) @ w2 with a batch
// size M known only at run time, emit it as one HIP translation unit with one C entry point, compile
// it once (cached), save the ahead-of-time artifact (<dir>/mlp.so + <dir>/mlp.json), then do what a
// deployed program does: load it from that path, query the workspace and, where a GPU exists, run it
// and check rows of the result on the host.
//
// Usage: 05_aot_module [artifact folder]   (default: <temp>/rocmtpl-05-aot-module)
//
// Without a GPU it compiles for gfx90a with hipcc, saves, loads and queries; running needs a GPU and
// says so. The same source also builds as a standalone timing program (printed at the end).
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime.hpp>
#include <rocmtpl/runtime/aot/module_loader.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <vector>

namespace {
constexpr std::int64_t k_in = 256;
constexpr std::int64_t hidden = 512;
constexpr std::int64_t n_out = 128;
}  // namespace

int main(int argc, char** argv) {
  using namespace rocmtpl;
  using namespace rocmtpl::runtime;
  namespace fs = std::filesystem;
  const fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "rocmtpl-05-aot-module";
  try {
    // 1. The graph. Every template renders for its own buffers; the module binds them by name:
    //    h = x @ w1, a = gelu(h + b1), y = a @ w2. M is symbolic: an argument of the entry point.
    const auto m = sym_expr::symbol("M");
    const buffer x("x", layout::row_major(dtype::f32, {m, k_in}));
    const buffer w1("w1", layout::row_major(dtype::f32, {k_in, hidden}));
    const buffer b1("b1", layout::row_major(dtype::f32, {hidden}));
    const buffer w2("w2", layout::row_major(dtype::f32, {hidden, n_out}));
    const auto h = layout::row_major(dtype::f32, {m, hidden});
    const size_hints hints{{"M", 1000}};  // for choosing and benchmarking configurations only
    const rocm_template<templates::gemm_policy> up(templates::gemm_policy{}, {x, w1}, h);
    const rocm_template<templates::elementwise_policy> act(templates::elementwise_policy({templates::activation::gelu}),
                                                           {buffer("h", h), b1}, h);
    const rocm_template<templates::gemm_policy> down(templates::gemm_policy{}, {buffer("a", h), w2},
                                                     layout::row_major(dtype::f32, {m, n_out}));
    module_graph graph("mlp");
    graph.add_input(x).add_input(w1).add_input(b1).add_input(w2);
    graph.add_node("h", up.generate(templates::gemm_config{}, hints).output_node());
    graph.add_node("a", act.generate(templates::elementwise_config{}, hints).output_node());
    graph.add_node("y", down.generate(templates::gemm_config{}, hints).output_node());
    graph.add_output("y");

    module_options options;
    options.runner_sizes = {{"M", 1000}};
    const module_source source = emit_module(graph, options);
    std::cout << "module " << source.name << ": " << source.calls.size() << " calls of " << source.kernels.size()
              << " kernels, one entry point:\n  " << source.signature << '\n';
    for (const auto& k : source.kernels) {
      std::cout << "  kernel " << k.name << " for";
      for (const auto& o : k.origins) std::cout << ' ' << o.node << " (" << o.op << ')';
      std::cout << '\n';
    }
    for (const auto& note : source.notes) std::cout << "  " << note << '\n';

    // 2. Compile once for the GPU here (or, without one, for gfx90a) and save the artifact.
    const auto& gpu = gpu_runtime::instance();
    const compile_options compile =
        gpu.available() ? compile_options_for(gpu.properties(gpu.current_device())) : amd_compile_options({"gfx90a"});
    const compiler cc = compiler::find(compile.platform);
    code_cache cache;
    const auto built = loaded_module::compile(source, cc, compile, cache);
    std::cout << "compiled " << built.library_path().string()
              << (built.build_record()->cached ? " (from the cache)" : "") << '\n';
    const fs::path manifest = built.save(dir);
    std::cout << "saved " << manifest.string() << " and " << (dir / built.manifest().library).string() << '\n';

    // 3. A deployed program needs only the path: the manifest says what the entry point takes.
    const loaded_module mod = loaded_module::load(manifest);
    const std::int64_t rows = 1000;
    const size_hints sizes{{"M", rows}};
    std::cout << "loaded " << mod.manifest().name << ": " << mod.manifest().inputs.size() << " inputs, "
              << mod.manifest().outputs.size() << " output, size arguments";
    for (const auto& s : mod.manifest().size_args) std::cout << ' ' << s;
    std::cout << "; workspace for M=" << rows << ": " << mod.workspace_size(sizes) << " bytes\n";
    std::cout << "(the module source also builds as a timing program: runtime::build_standalone_runner)\n";

    if (!gpu.available()) {
      std::cout << "running needs a GPU: " << gpu.status() << '\n';
      return 0;
    }

    // 4. Run: inputs allocated from the manifest's layouts, small exact values, one stream.
    std::vector<std::vector<float>> host;
    std::vector<device_buffer> device;
    std::vector<const void*> in;
    for (std::size_t i = 0; i < mod.manifest().inputs.size(); ++i) {
      const auto meta = mod.input_meta(i, sizes);
      std::vector<float> v(static_cast<std::size_t>(meta.storage_elements()));
      for (std::size_t j = 0; j < v.size(); ++j)
        v[j] = static_cast<float>(static_cast<int>((j * 7 + i) % 9) - 4) / 16.0F;
      device.emplace_back(meta.storage_bytes());
      device.back().copy_from_host(v.data());
      in.push_back(device.back().get());
      host.push_back(std::move(v));
    }
    const auto y_meta = mod.output_meta(0, sizes);
    device_buffer dy(y_meta.storage_bytes());
    device_buffer workspace(mod.workspace_size(sizes));
    const stream s;
    mod.run(in, {dy.get()}, sizes, workspace.get(), s.get());
    s.synchronize();
    std::vector<float> y(static_cast<std::size_t>(y_meta.storage_elements()));
    dy.copy_to_host(y.data());

    // 5. Check three rows against the host.
    int wrong = 0;
    for (std::int64_t r : {std::int64_t{0}, rows / 2, rows - 1}) {
      std::vector<double> a(hidden);
      for (std::int64_t j = 0; j < hidden; ++j) {
        double v = host[2][static_cast<std::size_t>(j)];
        for (std::int64_t k = 0; k < k_in; ++k) {
          v += static_cast<double>(host[0][static_cast<std::size_t>(r * k_in + k)]) *
               host[1][static_cast<std::size_t>(k * hidden + j)];
        }
        a[static_cast<std::size_t>(j)] = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      }
      for (std::int64_t n = 0; n < n_out; ++n) {
        double expected = 0;
        for (std::int64_t j = 0; j < hidden; ++j) {
          expected += a[static_cast<std::size_t>(j)] * host[3][static_cast<std::size_t>(j * n_out + n)];
        }
        const double got = y[static_cast<std::size_t>(r * n_out + n)];
        if (std::abs(got - expected) > 1e-3 * (1.0 + std::abs(expected))) ++wrong;
      }
      std::printf("y[%lld, 0] = %g\n", static_cast<long long>(r),
                  static_cast<double>(y[static_cast<std::size_t>(r * n_out)]));
    }
    if (wrong != 0) {
      std::cerr << "05_aot_module: " << wrong << " elements differ from the host result\n";
      return 1;
    }
    std::cout << "result matches the host on " << gpu.properties(gpu.current_device()).name << '\n';
  } catch (const compiler_not_found_error& e) {
    std::cout << "compiling needs hipcc or nvcc: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "05_aot_module: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
