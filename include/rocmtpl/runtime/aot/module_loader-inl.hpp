// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/aot/module_loader.hpp: included at its end (header-only) or compiled once by
// src/runtime/aot.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/module/emitter.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <unistd.h>

namespace rocmtpl::runtime {

namespace detail::module_loader_impl {

ROCMTPL_INLINE sym_expr expr_parser::parse() {
  auto e = expr();
  skip_space();
  if (pos_ != text_.size()) fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
  return e;
}

ROCMTPL_INLINE sym_expr expr_parser::expr() {
  auto e = term();
  for (;;) {
    skip_space();
    if (accept('+')) {
      e = e + term();
    } else if (accept('-')) {
      e = e - term();
    } else {
      return e;
    }
  }
}

ROCMTPL_INLINE sym_expr expr_parser::term() {
  auto e = unary();
  for (;;) {
    skip_space();
    if (!accept('*')) return e;
    e = e * unary();
  }
}

ROCMTPL_INLINE sym_expr expr_parser::unary() {
  skip_space();
  if (accept('-')) return -unary();
  return primary();
}

ROCMTPL_INLINE sym_expr expr_parser::primary() {
  skip_space();
  if (accept('(')) {
    auto e = expr();
    skip_space();
    if (!accept(')')) fail("expected ')'");
    return e;
  }
  if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
    std::int64_t v = 0;
    const auto* first = text_.data() + pos_;
    const auto [ptr, ec] = std::from_chars(first, text_.data() + text_.size(), v);
    if (ec != std::errc()) fail("integer out of range");
    pos_ += static_cast<std::size_t>(ptr - first);
    if (text_.substr(pos_, 2) == "LL") pos_ += 2;
    return v;
  }
  const auto start = pos_;
  while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_'))
    ++pos_;
  if (pos_ == start) fail("expected a number, a name or '('");
  const auto name = text_.substr(start, pos_ - start);
  if (name == "rocmtpl_floordiv" || name == "rocmtpl_mod") {
    skip_space();
    if (!accept('(')) fail("expected '(' after " + std::string(name));
    auto a = expr();
    skip_space();
    if (!accept(',')) fail("expected ','");
    auto b = expr();
    skip_space();
    if (!accept(')')) fail("expected ')'");
    return name == "rocmtpl_mod" ? mod(a, b) : floor_div(a, b);
  }
  return sym_expr::symbol(name);
}

ROCMTPL_INLINE void expr_parser::skip_space() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
}

ROCMTPL_INLINE bool expr_parser::accept(char c) {
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

ROCMTPL_INLINE void expr_parser::fail(const std::string& what) const {
  throw module_error("rocmtpl: module manifest: cannot read the expression '" + std::string(text_) + "' at column " +
                     std::to_string(pos_ + 1) + ": " + what);
}

ROCMTPL_INLINE nlohmann::ordered_json buffer_to_json(const buffer& b) {
  const auto& l = b.get_layout();
  std::vector<std::string> sizes;
  std::vector<std::string> strides;
  for (const auto& s : l.sizes()) sizes.push_back(s.to_string());
  for (const auto& s : l.strides()) strides.push_back(s.to_string());
  return {{"name", b.name()},
          {"dtype", std::string(rocmtpl::name(l.type()))},
          {"sizes", sizes},
          {"strides", strides},
          {"offset", l.offset().to_string()}};
}

ROCMTPL_INLINE buffer buffer_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    std::vector<sym_expr> sizes;
    std::vector<sym_expr> strides;
    for (const auto& s : j.at("sizes")) sizes.push_back(expr_parser(s.get<std::string>()).parse());
    for (const auto& s : j.at("strides")) strides.push_back(expr_parser(s.get<std::string>()).parse());
    const auto offset = expr_parser(j.at("offset").get<std::string>()).parse();
    return {j.at("name").get<std::string>(),
            layout(parse_dtype(j.at("dtype").get<std::string>()), std::move(sizes), std::move(strides), offset)};
  } catch (const nlohmann::json::exception& e) {
    throw module_error("rocmtpl: module manifest: " + where + ": " + e.what());
  } catch (const module_error& e) {
    throw module_error(std::string(e.what()) + " (in " + where + ")");
  } catch (const error& e) {
    throw module_error("rocmtpl: module manifest: " + where + ": " + e.what());
  }
}

}  // namespace detail::module_loader_impl

ROCMTPL_INLINE module_manifest module_manifest::from_source(const module_source& m, const compile_options& options) {
  module_manifest r;
  r.name = m.name;
  r.library = m.name + ".so";
  r.signature = m.signature;
  r.platform = std::string(to_string(options.platform));
  r.archs = compiler::resolved_archs(options);
  r.inputs = m.inputs;
  r.outputs = m.outputs;
  r.size_args = m.size_args;
  r.workspace_alignment = m.workspace_alignment;
  for (const auto& k : m.kernels) r.kernels.push_back({k.name, {}, k.source_hash, k.origins});
  r.source_hash = m.source_hash();
  r.rocmtpl_version = version_string;
  return r;
}

ROCMTPL_INLINE nlohmann::ordered_json module_manifest::to_json() const {
  namespace impl = detail::module_loader_impl;
  using ojson = nlohmann::ordered_json;
  ojson ins = ojson::array();
  ojson outs = ojson::array();
  ojson ks = ojson::array();
  for (const auto& b : inputs) ins.push_back(impl::buffer_to_json(b));
  for (const auto& b : outputs) outs.push_back(impl::buffer_to_json(b));
  for (const auto& k : kernels) {
    ojson origins = ojson::array();
    for (const auto& o : k.origins) origins.push_back({{"node", o.node}, {"op", o.op}});
    ks.push_back({{"name", k.name}, {"source_hash", k.source_hash}, {"origins", origins}});
  }
  return {{"format", current_format},
          {"kind", "rocmtpl.module"},
          {"name", name},
          {"library", library},
          {"signature", signature},
          {"platform", platform},
          {"archs", archs},
          {"inputs", ins},
          {"outputs", outs},
          {"size_args", size_args},
          {"workspace_alignment", workspace_alignment},
          {"kernels", ks},
          {"source_hash", source_hash},
          {"rocmtpl_version", rocmtpl_version}};
}

ROCMTPL_INLINE module_manifest module_manifest::from_json(const nlohmann::json& j, const std::string& where) {
  namespace impl = detail::module_loader_impl;
  auto bad = [&](const std::string& what) { return module_error("rocmtpl: module manifest " + where + ": " + what); };
  if (!j.is_object()) throw bad("not a JSON object");
  if (j.value("kind", "") != "rocmtpl.module") throw bad("'kind' is not \"rocmtpl.module\"");
  if (j.value("format", 0) != current_format) {
    throw bad("format " + j.value("format", nlohmann::json()).dump() + " is not " + std::to_string(current_format) +
              " (written by another rocmtpl version; rebuild the module)");
  }
  module_manifest r;
  try {
    r.name = j.at("name").get<std::string>();
    r.library = j.at("library").get<std::string>();
    r.signature = j.value("signature", "");
    r.platform = j.at("platform").get<std::string>();
    r.archs = j.at("archs").get<std::vector<std::string>>();
    r.size_args = j.at("size_args").get<std::vector<std::string>>();
    r.workspace_alignment = j.value("workspace_alignment", std::size_t{256});
    r.source_hash = j.value("source_hash", "");
    r.rocmtpl_version = j.value("rocmtpl_version", "");
    for (const auto& k : j.value("kernels", nlohmann::json::array())) {
      kernel_definition d;
      d.name = k.at("name").get<std::string>();
      d.source_hash = k.value("source_hash", "");
      for (const auto& o : k.value("origins", nlohmann::json::array())) {
        d.origins.push_back({o.at("node").get<std::string>(), o.at("op").get<std::string>()});
      }
      r.kernels.push_back(std::move(d));
    }
    std::size_t i = 0;
    for (const auto& b : j.at("inputs"))
      r.inputs.push_back(impl::buffer_from_json(b, where + " inputs[" + std::to_string(i++) + "]"));
    i = 0;
    for (const auto& b : j.at("outputs"))
      r.outputs.push_back(impl::buffer_from_json(b, where + " outputs[" + std::to_string(i++) + "]"));
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  }
  if (!is_identifier(r.name)) throw bad("name '" + r.name + "' is not a C identifier");
  if (r.library.empty() || r.library.find('/') != std::string::npos || r.library == "." || r.library == "..") {
    throw bad("library '" + r.library + "' must be a file name next to the manifest");
  }
  for (const auto& s : r.size_args) {
    if (!is_identifier(s)) throw bad("size argument '" + s + "' is not a C identifier");
  }
  if (r.platform != "amd" && r.platform != "nvidia") throw bad("platform '" + r.platform + "' is not amd or nvidia");
  return r;
}

ROCMTPL_INLINE loaded_module loaded_module::compile(const module_source& m, const compiler& cc,
                                                    const compile_options& options, code_cache& cache) {
  auto built = cache.get_or_compile(cc, m.source, options);
  auto manifest = module_manifest::from_source(m, options);
  auto path = built.library;
  return loaded_module(std::move(manifest), std::move(path), std::move(built));
}

ROCMTPL_INLINE loaded_module loaded_module::load(const std::filesystem::path& path) {
  auto manifest_path = path;
  if (path.extension() != ".json") manifest_path.replace_extension(".json");
  std::ifstream in(manifest_path, std::ios::binary);
  if (!in) throw module_error("rocmtpl: module: cannot read the manifest " + manifest_path.string());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw module_error("rocmtpl: module manifest " + manifest_path.string() + ": not valid JSON");
  auto manifest = module_manifest::from_json(j, manifest_path.string());
  auto library = manifest_path.parent_path() / manifest.library;
  return loaded_module(std::move(manifest), std::move(library), std::nullopt);
}

ROCMTPL_INLINE std::filesystem::path loaded_module::save(const std::filesystem::path& dir) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw module_error("rocmtpl: module: cannot create " + dir.string() + ": " + ec.message());
  const auto library = dir / manifest_.library;
  if (fs::absolute(library).lexically_normal() != fs::absolute(library_path_).lexically_normal()) {
    std::ifstream in(library_path_, std::ios::binary);
    if (!in) throw module_error("rocmtpl: module: cannot read " + library_path_.string());
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    detail::write_file_atomic(library, bytes, detail::file_sync::durable);
  }
  const auto manifest = dir / (manifest_.name + ".json");
  detail::write_file_atomic(manifest, manifest_.to_json().dump(2) + "\n", detail::file_sync::durable);
  return manifest;
}

ROCMTPL_INLINE std::vector<std::int64_t> loaded_module::size_values(const size_hints& sizes) const {
  std::vector<std::int64_t> out;
  for (const auto& s : manifest_.size_args) {
    const auto it = sizes.find(s);
    if (it == sizes.end()) {
      throw invalid_argument_error("rocmtpl: module " + manifest_.name + ": no value for the size argument '" + s +
                                   "'");
    }
    out.push_back(it->second);
  }
  return out;
}

ROCMTPL_INLINE kernel_status loaded_module::call(const std::vector<const void*>& inputs,
                                                 const std::vector<void*>& outputs, const size_hints& sizes,
                                                 std::size_t* workspace_size, void* workspace, void* stream) const {
  if (inputs.size() != manifest_.inputs.size() || outputs.size() != manifest_.outputs.size()) {
    throw invalid_argument_error("rocmtpl: module " + manifest_.name + " takes " +
                                 std::to_string(manifest_.inputs.size()) + " inputs and " +
                                 std::to_string(manifest_.outputs.size()) + " outputs, got " +
                                 std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  }
  std::vector<const void*> tensors(inputs.begin(), inputs.end());
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  return entry_->call(tensors, size_values(sizes), workspace_size, workspace, stream);
}

ROCMTPL_INLINE loaded_module::loaded_module(module_manifest manifest, std::filesystem::path library,
                                            std::optional<compile_result> build)
    : manifest_(std::move(manifest)),
      library_path_(std::move(library)),
      build_(std::move(build)),
      library_(std::make_shared<shared_library>(library_path_)),
      entry_(std::make_shared<kernel_entry>(
          library_, manifest_.name, module_entry_signature(manifest_.inputs, manifest_.outputs, manifest_.size_args))) {
}

ROCMTPL_INLINE const buffer& loaded_module::at(const std::vector<buffer>& list, std::size_t i, const char* what) const {
  if (i >= list.size()) {
    throw out_of_range_error("rocmtpl: module " + manifest_.name + " has " + std::to_string(list.size()) + " " + what +
                             "s; index " + std::to_string(i) + " is out of range");
  }
  return list[i];
}

ROCMTPL_INLINE std::filesystem::path build_standalone_runner(const module_source& m, const compiler& cc,
                                                             compile_options options,
                                                             const std::filesystem::path& executable) {
  namespace fs = std::filesystem;
  if (m.source.find("#ifdef ROCMTPL_STANDALONE_RUNNER") == std::string::npos) {
    throw invalid_argument_error("rocmtpl: build_standalone_runner: module " + m.name +
                                 " has no runner; emit it with module_options::standalone_runner");
  }
  const auto exe = fs::absolute(executable).lexically_normal();
  std::error_code ec;
  fs::create_directories(exe.parent_path(), ec);
  const auto source = fs::path(exe.string() + ".hip");
  detail::write_file_atomic(source, m.source);
  options.resource_usage = false;
  options.dependency_file.clear();
  options.defines.emplace_back("ROCMTPL_STANDALONE_RUNNER");
  auto argv = cc.command(options, source, exe);
  argv.erase(std::remove(argv.begin(), argv.end(), "-shared"), argv.end());
  process_options po;
  po.working_dir = exe.parent_path();
  po.env = cc.environment();
  po.timeout = options.timeout;
  const auto r = run_process(argv, po);
  if (r.timed_out) {
    throw compile_timeout_error(argv, r.output, m.source,
                                std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout), source);
  }
  if (!r.ok()) throw compile_error(argv, r.output, m.source, r.exit_code, source);
  return exe;
}

}  // namespace rocmtpl::runtime
