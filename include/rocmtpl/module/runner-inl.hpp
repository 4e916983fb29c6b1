// SPDX-License-Identifier: MIT
#pragma once

// The implementation of module/runner.hpp: included at its end (header-only) or compiled once by src/module.cpp, after
// it (so it does not include it back).

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl::detail::module_impl {

// Writes `head {`, the lines one level deeper, then `}`.
ROCMTPL_INLINE void write_block(indented_buffer& out, const std::string& head,
                                std::initializer_list<std::string> lines) {
  out.writeline(head + " {");
  {
    auto body = out.indent();
    for (const auto& l : lines) out.writeline(l);
  }
  out.writeline("}");
}

// The size symbols (with their defaults; -1: must be given) and the number of timed runs.
ROCMTPL_INLINE void write_runner_defaults(indented_buffer& out, const module_source& m, const module_options& options) {
  for (const auto& s : m.size_args) {
    const auto it = options.runner_sizes.find(s);
    out.writeline("int64_t " + user_identifier(s) + " = " +
                  (it == options.runner_sizes.end() ? std::string("-1") : std::to_string(it->second)) + ";");
  }
  out.writeline("int rocmtpl_iters = " + std::to_string(options.runner_iterations) + ";");
}

// The loop over argv: --help, --iters=N and NAME=value for each size symbol.
ROCMTPL_INLINE void write_runner_arguments(indented_buffer& out, const module_source& m) {
  const auto& syms = m.size_args;
  std::string usage = "usage: %s";
  for (const auto& s : syms) usage += " [" + s + "=<n>]";
  usage += " [--iters=<n>]\\n";
  out.writeline("for (int rocmtpl_i = 1; rocmtpl_i < argc; ++rocmtpl_i) {");
  {
    auto loop = out.indent();
    out.writeline("const char* rocmtpl_arg = argv[rocmtpl_i];");
    out.writeline("if (std::strcmp(rocmtpl_arg, \"--help\") == 0 || std::strcmp(rocmtpl_arg, \"-h\") == 0) {");
    {
      auto h = out.indent();
      out.writeline("std::printf(\"" + usage + "\", argv[0]);");
      out.writeline("std::printf(\"runs module " + m.name +
                    " on random inputs; sizes:" + (syms.empty() ? std::string(" none") : std::string()) + "\\n\");");
      for (const auto& s : syms)
        out.writeline("std::printf(\"  " + s + " = %lld\\n\", static_cast<long long>(" + user_identifier(s) + "));");
      out.writeline("return 0;");
    }
    out.writeline("}");
    write_block(out, "if (std::strncmp(rocmtpl_arg, \"--iters=\", 8) == 0)",
                {"rocmtpl_iters = std::atoi(rocmtpl_arg + 8);", "continue;"});
    for (const auto& s : syms) {
      const auto n = std::to_string(s.size() + 1);
      write_block(out, "if (std::strncmp(rocmtpl_arg, \"" + s + "=\", " + n + ") == 0)",
                  {user_identifier(s) + " = std::atoll(rocmtpl_arg + " + n + ");", "continue;"});
    }
    out.writeline("std::fprintf(stderr, \"rocmtpl runner: unknown argument '%s'; " + usage.substr(0, usage.size() - 2) +
                  "\\n\", rocmtpl_arg, argv[0]);");
    out.writeline("return 2;");
  }
  out.writeline("}");
}

// Refuses sizes that were not given and a run count below one.
ROCMTPL_INLINE void write_runner_checks(indented_buffer& out, const module_source& m) {
  for (const auto& s : m.size_args) {
    write_block(
        out, "if (" + user_identifier(s) + " < 0)",
        {"std::fprintf(stderr, \"rocmtpl runner: give the size " + s + " as " + s + "=<n>\\n\");", "return 2;"});
  }
  write_block(out, "if (rocmtpl_iters < 1)",
              {"std::fprintf(stderr, \"rocmtpl runner: --iters must be at least 1\\n\");", "return 2;"});
}

// Allocates the tensors (rocmtpl_t<i>, inputs random, outputs zeroed); returns the call arguments.
// Sizes whose bytes overflow are refused.
ROCMTPL_INLINE runner_call_args write_runner_tensors(indented_buffer& out, const module_source& m) {
  runner_call_args args;
  const std::string ok_flag(sizes_ok_flag);
  out.writeline("bool " + ok_flag + " = true;");
  std::size_t index = 0;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    const bool is_input = list == &m.inputs;
    for (const auto& b : *list) {
      const auto i = std::to_string(index++);
      const std::string dev = "rocmtpl_t" + i;
      const std::string bytes = "rocmtpl_t" + i + "_bytes";
      out.writeline("const size_t " + bytes + " = " + bytes_expr(b, sizes_ok_flag) + ";  // " + b.name());
      if (!b.get_layout().storage_size().is_constant()) {
        write_block(
            out, "if (!" + ok_flag + ")",
            {"std::fprintf(stderr, \"rocmtpl runner: the bytes of " + b.name() + " overflow\\n\");", "return 2;"});
      }
      out.writeline("void* " + dev + " = nullptr;");
      if (is_input) {
        out.writeline("if (!rocmtpl_runner::make_input(&" + dev + ", " + bytes + ", " + dtype_code_macro(b.type()) +
                      ", rocmtpl_rng)) return 1;");
      } else {
        out.writeline("if (!rocmtpl_runner::make_output(&" + dev + ", " + bytes + ")) return 1;");
      }
      const std::string type = std::string(storage_type(b.type())) + "*";
      args.call.push_back("static_cast<" + (is_input ? "const " + type : type) + ">(" + dev + ")");
      args.query.emplace_back("nullptr");
    }
  }
  for (const auto& s : m.size_args) {  // user names: user_identifier() in generated code
    args.call.push_back(user_identifier(s));
    args.query.push_back(user_identifier(s));
  }
  return args;
}

// Queries and allocates the workspace, warms up, then times the runs with events.
ROCMTPL_INLINE void write_runner_timing(indented_buffer& out, const module_source& m, const runner_call_args& args) {
  auto query = args.query;
  query.insert(query.end(), {"&rocmtpl_ws_bytes", "nullptr", "0"});
  auto call = args.call;
  call.insert(call.end(), {"nullptr", "static_cast<uint8_t*>(rocmtpl_ws)", "0"});
  out.writeline("size_t rocmtpl_ws_bytes = 0;");
  out.writeline("int rocmtpl_status = " + m.name + "(" + detail::join(query) + ");");
  out.splice(R"(
      if (rocmtpl_status != ROCMTPL_STATUS_OK) {
          std::fprintf(stderr, "rocmtpl runner: workspace query returned status %d\n", rocmtpl_status);
          return 3;
      }
      void* rocmtpl_ws = nullptr;
      if (rocmtpl_ws_bytes > 0 && !rocmtpl_runner::ok(hipMalloc(&rocmtpl_ws, rocmtpl_ws_bytes), "hipMalloc")) return 1;
      hipEvent_t rocmtpl_start = nullptr;
      hipEvent_t rocmtpl_stop = nullptr;
      if (!rocmtpl_runner::ok(rocmtpl_runner::event_create(&rocmtpl_start), "hipEventCreate") ||
          !rocmtpl_runner::ok(rocmtpl_runner::event_create(&rocmtpl_stop), "hipEventCreate")) return 1;
  )",
             true);
  const std::string run = "rocmtpl_status = " + m.name + "(" + detail::join(call) + ");";
  out.writeline("for (int rocmtpl_i = 0; rocmtpl_i < 3 && rocmtpl_status == ROCMTPL_STATUS_OK; ++rocmtpl_i) " + run);
  out.writeline("if (!rocmtpl_runner::ok(hipDeviceSynchronize(), \"hipDeviceSynchronize\")) return 1;");
  out.writeline(
      "if (!rocmtpl_runner::ok(rocmtpl_runner::event_record(rocmtpl_start, 0), \"hipEventRecord\")) return 1;");
  out.writeline(
      "for (int rocmtpl_i = 0; rocmtpl_i < rocmtpl_iters && rocmtpl_status == ROCMTPL_STATUS_OK; ++rocmtpl_i) " + run);
  out.splice(R"(
      if (!rocmtpl_runner::ok(rocmtpl_runner::event_record(rocmtpl_stop, 0), "hipEventRecord") ||
          !rocmtpl_runner::ok(rocmtpl_runner::event_synchronize(rocmtpl_stop), "hipEventSynchronize")) return 1;
      if (rocmtpl_status != ROCMTPL_STATUS_OK) {
          std::fprintf(stderr, "rocmtpl runner: the module returned status %d\n", rocmtpl_status);
          return 3;
      }
      float rocmtpl_ms = 0.0f;
      if (!rocmtpl_runner::ok(rocmtpl_runner::event_elapsed_ms(&rocmtpl_ms, rocmtpl_start, rocmtpl_stop), "hipEventElapsedTime")) return 1;
  )",
             true);
}

// Prints the time per run and each output's checksum, then frees everything.
ROCMTPL_INLINE void write_runner_report(indented_buffer& out, const module_source& m) {
  const auto& syms = m.size_args;
  std::string fmt = m.name + ":";
  std::string fmt_args;
  for (const auto& s : syms) {
    fmt += " " + s + "=%lld";
    fmt_args += ", static_cast<long long>(" + user_identifier(s) + ")";
  }
  out.writeline("std::printf(\"" + fmt + " %.4f ms per run (%d runs), workspace %zu bytes\\n\"" + fmt_args +
                ", static_cast<double>(rocmtpl_ms) / rocmtpl_iters, rocmtpl_iters, rocmtpl_ws_bytes);");
  std::size_t index = m.inputs.size();
  for (const auto& b : m.outputs) {
    const auto i = std::to_string(index++);
    out.writeline("std::printf(\"checksum(" + b.name() + ") = %.6e\\n\", rocmtpl_runner::checksum(rocmtpl_t" + i +
                  ", rocmtpl_t" + i + "_bytes, " + dtype_code_macro(b.type()) + "));");
  }
  for (std::size_t i = 0; i < m.inputs.size() + m.outputs.size(); ++i) {
    out.writeline("(void)hipFree(rocmtpl_t" + std::to_string(i) + ");");
  }
  out.writeline("(void)hipFree(rocmtpl_ws);");
  out.writeline("(void)rocmtpl_runner::event_destroy(rocmtpl_start);");
  out.writeline("(void)rocmtpl_runner::event_destroy(rocmtpl_stop);");
  out.writeline("return 0;");
}

// The standalone runner: its helpers and main() under #ifdef ROCMTPL_STANDALONE_RUNNER.
ROCMTPL_INLINE void write_runner(indented_buffer& out, const module_source& m, const module_options& options) {
  out.splice(runner_helpers_source, true);
  out.write_verbatim(dtype_code_defines());
  out.writeline("");
  out.splice(runner_helpers_body, true);
  out.writeline("");
  out.writeline("int main(int argc, char** argv) {");
  {
    auto body = out.indent();
    write_runner_defaults(out, m, options);
    write_runner_arguments(out, m);
    write_runner_checks(out, m);
    out.writeline("std::mt19937 rocmtpl_rng(2024u);");
    const auto args = write_runner_tensors(out, m);
    write_runner_timing(out, m, args);
    write_runner_report(out, m);
  }
  out.writeline("}");
  out.writeline("#endif  // ROCMTPL_STANDALONE_RUNNER");
}

}  // namespace rocmtpl::detail::module_impl
