// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/bench/measure.hpp: included at its end (header-only) or compiled once by
// src/runtime/bench.cpp, after it (so it does not include it back).

#include <string.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

namespace rocmtpl::runtime {

namespace detail {
ROCMTPL_INLINE nlohmann::json meta_to_json(const tensor_meta& m) {
  return {{"name", m.name},
          {"dtype", dtype_code(m.type)},
          {"sizes", m.sizes},
          {"strides", m.strides},
          {"offset", m.offset}};
}
ROCMTPL_INLINE nlohmann::json signature_to_json(const entry_signature& sig) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : sig.params) out.push_back({{"name", p.name}, {"kind", to_string(p.kind)}, {"type", p.type}});
  return out;
}
ROCMTPL_INLINE entry_signature signature_from_json(const nlohmann::json& j) {
  entry_signature sig;
  for (const auto& p : j) {
    const auto kind = p.at("kind").get<std::string>();
    std::optional<param_kind> k;
    for (auto c : {param_kind::tensor_in, param_kind::tensor_out, param_kind::size, param_kind::runtime_arg}) {
      if (kind == to_string(c)) k = c;
    }
    if (!k) {
      throw worker_protocol_error("rocmtpl: worker: parameter kind '" + kind +
                                  "' is not tensor_in, tensor_out, size or runtime_arg");
    }
    sig.params.push_back({p.at("name").get<std::string>(), *k, p.at("type").get<std::string>()});
  }
  sig.validate();
  return sig;
}
ROCMTPL_INLINE tensor_meta meta_from_json(const nlohmann::json& j) {
  tensor_meta m;
  m.name = j.at("name").get<std::string>();
  m.type = dtype_from_code(j.at("dtype").get<std::int64_t>());
  m.sizes = j.at("sizes").get<std::vector<std::int64_t>>();
  m.strides = j.at("strides").get<std::vector<std::int64_t>>();
  m.offset = j.at("offset").get<std::int64_t>();
  return m;
}
}  // namespace detail

ROCMTPL_INLINE nlohmann::json launch_to_json(const bound_launch& b) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : b.variants) {
    nlohmann::json aligns = nlohmann::json::array();
    for (const auto& a : v.alignments) aligns.push_back({a.tensor, a.byte_offset, a.alignment});
    nlohmann::json launches = nlohmann::json::array();
    for (const auto& l : v.launches) {
      nlohmann::json params = nlohmann::json::array();
      for (const auto& p : l.params) {
        nlohmann::json jp = {{"kind", static_cast<int>(p.kind)},
                             {"index", p.index},
                             {"scalar", static_cast<int>(p.scalar)},
                             {"value", p.value}};
        if (p.map) {
          const auto& m = *p.map;
          jp["map"] = {m.tensor, dtype_code(m.element), m.offset, m.rows, m.cols, m.pitch, m.box_rows, m.box_cols};
        }
        params.push_back(std::move(jp));
      }
      launches.push_back({{"symbol", l.symbol},
                          {"grid", l.grid},
                          {"sm_cap", l.grid_x_at_most_sm_count},
                          {"block", l.block},
                          {"shared", l.shared_bytes},
                          {"params", std::move(params)}});
    }
    variants.push_back({{"index", v.index}, {"alignments", std::move(aligns)}, {"launches", std::move(launches)}});
  }
  return {{"workspace_bytes", b.workspace_bytes}, {"variants", std::move(variants)}};
}

ROCMTPL_INLINE bound_launch launch_from_json(const nlohmann::json& j) {
  bound_launch b;
  b.workspace_bytes = j.at("workspace_bytes").get<std::int64_t>();
  for (const auto& jv : j.at("variants")) {
    bound_variant v;
    v.index = jv.at("index").get<std::size_t>();
    for (const auto& a : jv.at("alignments")) {
      v.alignments.push_back({a.at(0).get<std::size_t>(), a.at(1).get<std::int64_t>(), a.at(2).get<std::int64_t>()});
    }
    for (const auto& jl : jv.at("launches")) {
      bound_kernel_launch l;
      l.symbol = jl.at("symbol").get<std::string>();
      l.grid = jl.at("grid").get<std::array<std::int64_t, 3>>();
      l.grid_x_at_most_sm_count = jl.at("sm_cap").get<bool>();
      l.block = jl.at("block").get<std::array<std::int64_t, 3>>();
      l.shared_bytes = jl.at("shared").get<std::int64_t>();
      for (const auto& jp : jl.at("params")) {
        bound_param p;
        p.kind = static_cast<launch_param_kind>(jp.at("kind").get<int>());
        p.index = jp.at("index").get<std::size_t>();
        p.scalar = static_cast<launch_scalar>(jp.at("scalar").get<int>());
        p.value = jp.at("value").get<std::int64_t>();
        if (jp.contains("map")) {
          const auto& m = jp.at("map");
          p.map = bound_tensor_map{m.at(0).get<std::size_t>(),  dtype_from_code(m.at(1).get<std::int64_t>()),
                                   m.at(2).get<std::int64_t>(), m.at(3).get<std::int64_t>(),
                                   m.at(4).get<std::int64_t>(), m.at(5).get<std::int64_t>(),
                                   m.at(6).get<std::int64_t>(), m.at(7).get<std::int64_t>()};
        }
        l.params.push_back(std::move(p));
      }
      v.launches.push_back(std::move(l));
    }
    b.variants.push_back(std::move(v));
  }
  return b;
}

ROCMTPL_INLINE nlohmann::json request_to_json(const rocm_benchmark_request& r) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& m : r.input_tensor_meta) inputs.push_back(detail::meta_to_json(m));
  return {{"kernel_name", r.kernel_name},
          {"signature", detail::signature_to_json(r.signature)},
          {"inputs", inputs},
          {"output", detail::meta_to_json(r.output_tensor_meta)},
          {"extra_args", r.extra_args},
          {"size_arg_count", r.size_arg_count}};
}

ROCMTPL_INLINE rocm_benchmark_request request_from_json(const nlohmann::json& j) {
  rocm_benchmark_request r;
  r.kernel_name = j.at("kernel_name").get<std::string>();
  r.signature = detail::signature_from_json(j.at("signature"));
  for (const auto& m : j.at("inputs")) r.input_tensor_meta.push_back(detail::meta_from_json(m));
  r.output_tensor_meta = detail::meta_from_json(j.at("output"));
  r.extra_args = j.at("extra_args").get<std::vector<std::int64_t>>();
  r.size_arg_count = j.at("size_arg_count").get<std::size_t>();
  return r;
}

ROCMTPL_INLINE nlohmann::json options_to_json(const benchmark_options& o) {
  return {{"budget_ms", o.budget_ms},
          {"estimate_runs", o.estimate_runs},
          {"min_repetitions", o.min_repetitions},
          {"max_repetitions", o.max_repetitions},
          {"flush_l2", o.flush_l2},
          {"settle_ms", o.settle_ms},
          {"seed", o.seed}};
}

ROCMTPL_INLINE benchmark_options options_from_json(const nlohmann::json& j) {
  benchmark_options o;
  o.budget_ms = j.at("budget_ms").get<double>();
  o.estimate_runs = j.at("estimate_runs").get<int>();
  o.min_repetitions = j.at("min_repetitions").get<int>();
  o.max_repetitions = j.at("max_repetitions").get<int>();
  o.flush_l2 = j.at("flush_l2").get<bool>();
  o.settle_ms = j.at("settle_ms").get<double>();
  o.seed = j.at("seed").get<std::uint64_t>();
  return o;
}

namespace detail {
// The `retime` command's candidates (each a binary as in `measure`, with its extra_args) timed in
// the state of sustained use on the bench (bench::time_settled()): one {min_ms, median_ms, spread,
// repetitions} each.
ROCMTPL_INLINE nlohmann::json retime_candidates(bench& b, const nlohmann::json& candidates) {
  const auto& request = b.request();
  std::vector<std::vector<std::int64_t>> extras;
  for (const auto& c : candidates) extras.push_back(c.at("extra_args").get<std::vector<std::int64_t>>());
  std::vector<std::shared_ptr<const void>> kernels;  // alive while the calls run
  std::vector<timed_call> calls;
  for (std::size_t i = 0; i < extras.size(); ++i) {
    with_worker_kernel(candidates[i], request, request.signature, extras[i], [&](const auto& k) {
      auto held = std::make_shared<const std::decay_t<decltype(k)>>(k);
      calls.push_back(b.call(*held, extras[i]));
      kernels.push_back(std::move(held));
      return 0;
    });
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : b.time_settled(calls)) {
    out.push_back(
        {{"min_ms", t.min_ms}, {"median_ms", t.median_ms}, {"spread", t.spread}, {"repetitions", t.repetitions}});
  }
  return out;
}

// Carries out one worker command; the reply (without the trailing newline).
ROCMTPL_INLINE nlohmann::json worker_command(worker_state& w, const nlohmann::json& cmd) {
  const auto op = cmd.at("op").get<std::string>();
  if (op == "setup") {
    const bool code_object = cmd.contains("utility_code_object");
    w.b.reset();  // a later setup (the pool's next round): the bench goes before the helpers it uses
    w.util = std::make_unique<utility_kernels>(compiled_binary{
        cmd.at(code_object ? "utility_code_object" : "utility_library").get<std::string>(), code_object});
    const auto request = request_from_json(cmd.at("request"));
    w.b = std::make_unique<bench>(request, *w.util, options_from_json(cmd.at("options")));
    if (cmd.contains("reference_library") && !cmd.at("reference_library").get<std::string>().empty()) {
      auto lib = std::make_shared<shared_library>(cmd.at("reference_library").get<std::string>());
      w.b->run_reference(kernel_entry(lib, request.kernel_name, reference_signature(request)));
    }
    // The device model: a pool of workers refuses to mix models (worker_pool.hpp).
    const auto& rt = gpu_runtime::instance();
    return {{"ok", true}, {"device", rt.available() ? rt.properties(rt.current_device()).name : std::string()}};
  }
  if (op != "measure" && op != "verify" && op != "reference" && op != "retime") {
    throw worker_protocol_error("rocmtpl: worker: unknown op '" + op +
                                "'; expected setup, reference, measure, verify or retime");
  }
  if (!w.b) throw worker_protocol_error("rocmtpl: worker: " + op + " before setup; send a setup command first");
  const auto& request = w.b->request();
  if (op == "reference") {
    const std::vector<std::int64_t> sizes(
        request.extra_args.begin(), request.extra_args.begin() + static_cast<std::ptrdiff_t>(request.size_arg_count));
    with_worker_kernel(cmd, request, reference_signature(request), sizes, [&](const auto& k) {
      w.b->run_reference(k);
      return 0;
    });
    return {{"ok", true}};
  }
  if (op == "retime") return {{"ok", true}, {"timings", retime_candidates(*w.b, cmd.at("candidates"))}};
  const auto extra = cmd.at("extra_args").get<std::vector<std::int64_t>>();
  const auto tolerance = cmd.at("tolerance").get<double>();
  if (op == "verify" && !w.b->has_reference()) {
    throw worker_protocol_error("rocmtpl: worker: verify before reference; send a reference command first");
  }
  const measurement m = with_worker_kernel(cmd, request, request.signature, extra, [&](const auto& k) {
    return op == "verify" ? verify_candidate(*w.b, k, extra, tolerance) : measure_candidate(*w.b, k, extra, tolerance);
  });
  return {{"ok", true}, {"measurement", m}};
}
}  // namespace detail

ROCMTPL_INLINE int run_worker(std::FILE* in, std::FILE* out) {
  // The GPU context and the driver's module API first: the tuner starts the worker while its
  // candidates still compile, so this overlaps with them.
  try {
    auto& rt = gpu_runtime::instance();
    if (rt.available()) {
      rt.set_device(rt.current_device());
      (void)module_api();
    }
  } catch (const std::exception&) {
    // setup reports what is missing
  }
  detail::worker_state state;
  std::string line;
  for (;;) {
    line.clear();
    int ch = 0;
    while ((ch = std::fgetc(in)) != EOF && ch != '\n') line.push_back(static_cast<char>(ch));
    if (line.empty() && ch == EOF) return 0;
    nlohmann::json reply;
    try {
      reply = detail::worker_command(state, nlohmann::json::parse(line));
    } catch (const std::exception& e) {
      reply = {{"ok", false}, {"error", e.what()}};
    }
    const auto text = reply.dump() + "\n";
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
  }
}

ROCMTPL_INLINE std::optional<std::filesystem::path> find_worker() {
  namespace fs = std::filesystem;
  constexpr std::string_view name = "rocmtpl-bench-worker";
  if (const char* env = std::getenv("ROCMTPL_BENCH_WORKER"); env && *env) return fs::path(env);
  std::vector<fs::path> folders;
  std::error_code ec;
  if (const auto self = fs::read_symlink("/proc/self/exe", ec); !ec) {
    folders.push_back(self.parent_path());
    folders.push_back(self.parent_path().parent_path() / "tools");
  }
#ifdef ROCMTPL_WORKER_DIRS
  for (const char* d : {ROCMTPL_WORKER_DIRS}) folders.emplace_back(d);
#endif
  for (const auto& folder : folders) {
    if (auto found = find_executable((folder / name).string())) return found;
  }
  return find_executable(name);  // PATH
}

ROCMTPL_INLINE std::optional<nlohmann::json> worker_process::request(const nlohmann::json& command,
                                                                     std::chrono::milliseconds timeout, failure& why,
                                                                     std::string& detail) {
  why = failure::none;
  if (!child_.write(command.dump() + "\n")) {
    why = failure::crashed;
    detail = reap();
    return std::nullopt;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return nlohmann::json::parse(line);
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const auto got = left.count() > 0 ? child_.read_some(buffer_, left) : child_process::read_status::timed_out;
    if (got == child_process::read_status::timed_out) {
      why = failure::timed_out;
      child_.kill();
      detail = "no reply within " + std::to_string(timeout.count()) + " ms";
      return std::nullopt;
    }
    if (got == child_process::read_status::end_of_file) {
      why = failure::crashed;
      detail = reap();
      return std::nullopt;
    }
  }
}

ROCMTPL_INLINE std::string worker_process::reap() {
  const auto r = child_.wait();
  if (r.signal != 0) return "worker killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
  if (r.exit_code >= 0) return "worker exited with code " + std::to_string(r.exit_code);
  return "worker ended";
}

}  // namespace rocmtpl::runtime
