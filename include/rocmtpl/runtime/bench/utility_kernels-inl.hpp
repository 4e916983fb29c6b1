// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/bench/utility_kernels.hpp: included at its end (header-only) or compiled once by
// src/runtime/bench.cpp, after it (so it does not include it back).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/identifier.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE std::string device_compile_arch(platform kind, const std::string& device_arch) {
  if (kind == platform::nvidia && device_arch == "sm_90") return "sm_90a";
  return device_arch;
}

ROCMTPL_INLINE compile_options compile_options_for(const device_properties& device) {
  compile_options o;
  o.platform = device.kind;
  o.archs = {device_compile_arch(device.kind, device.arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

ROCMTPL_INLINE compile_options amd_compile_options(std::vector<std::string> archs) {
  compile_options o;
  o.platform = platform::amd;
  o.archs = std::move(archs);
  o.include_dirs = {device_include_dir()};
  return o;
}

namespace detail {
// The integer parameters of a helper, by symbol name, in entry order. The launch descriptions
// below treat every one as a size symbol (so bind() takes the entry's integers as they come), and
// the entries name them user_identifier(symbol), as sym_expr::to_cpp() prints them.
ROCMTPL_INLINE const std::vector<std::string>& fill_ints() {
  static const std::vector<std::string> ints{"dtype", "n", "seed"};
  return ints;
}

ROCMTPL_INLINE const std::vector<std::string>& compare_ints() {
  static const std::vector<std::string> ints = [] {
    std::vector<std::string> v{"out_dtype", "ref_dtype", "rank"};
    for (const char* prefix : {"s", "o", "r"}) {
      for (int d = 0; d < 6; ++d) {
        std::string name(prefix);  // appended in steps: g++ 12 -O3 reports a false -Wrestrict on "lit" + string
        name += std::to_string(d);
        v.push_back(std::move(name));
      }
    }
    v.emplace_back("out_offset");
    v.emplace_back("ref_offset");
    return v;
  }();
  return ints;
}

// A helper's signature: its pointers, then its integers as int64_t runtime arguments.
ROCMTPL_INLINE entry_signature helper_signature(std::vector<entry_param> pointers,
                                                const std::vector<std::string>& ints) {
  entry_signature sig{std::move(pointers)};
  for (const auto& i : ints) sig.params.push_back({user_identifier(i), param_kind::runtime_arg, "int64_t"});
  return sig;
}

ROCMTPL_INLINE entry_signature fill_signature() {
  return helper_signature({{"data", param_kind::tensor_out, "void*"}}, fill_ints());
}

ROCMTPL_INLINE entry_signature compare_signature() {
  return helper_signature({{"out", param_kind::tensor_in, "const void*"},
                           {"ref", param_kind::tensor_in, "const void*"},
                           {"sums", param_kind::tensor_out, "void*"},
                           {"counts", param_kind::tensor_out, "void*"}},
                          compare_ints());
}

// One helper kernel's launch: `rocmtpl_<suffix>` with the `tensors` pointers and every integer as
// parameters, 256 threads a block, one thread per element of `elements` (a grid-stride loop
// covers the rest) and at most `max_blocks` blocks; no workspace.
ROCMTPL_INLINE launch_description helper_launch(std::string suffix, const std::vector<std::string>& tensors,
                                                const std::vector<std::string>& ints, const sym_expr& elements,
                                                std::int64_t max_blocks) {
  launch_description d;
  d.kernel_name = "rocmtpl";
  d.size_symbols = ints;
  d.tensor_types.assign(tensors.size(), dtype::u8);
  kernel_launch l;
  l.suffix = std::move(suffix);
  l.grid[0] = {.sizes = floor_div(elements + sym_expr(255), sym_expr(256)), .at_most = max_blocks};
  l.block = {256, 1, 1};
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    l.params.push_back({.kind = launch_param_kind::tensor, .index = t, .name = tensors[t]});
  }
  for (std::size_t i = 0; i < ints.size(); ++i) {
    l.params.push_back({.kind = launch_param_kind::size, .index = i, .name = user_identifier(ints[i])});
  }
  d.variants.push_back({{}, {std::move(l)}});
  return d;
}

ROCMTPL_INLINE const launch_description& fill_launch() {
  static const launch_description d = helper_launch("fill_kernel", {"data"}, fill_ints(), sym_expr::symbol("n"), 65536);
  return d;
}

ROCMTPL_INLINE const launch_description& compare_launch() {
  static const launch_description d = [] {
    sym_expr elements(1);
    for (int i = 0; i < 6; ++i) {
      std::string name("s");  // appended in steps: g++ 12 -O3 reports a false -Wrestrict on "lit" + string
      name += std::to_string(i);
      elements = elements * sym_expr::symbol(name);
    }
    return helper_launch("compare_kernel", {"out", "ref", "sums", "counts"}, compare_ints(), elements, 4096);
  }();
  return d;
}

// One helper entry as parts of its own: declared from its signature, its body rendered from its
// launch description (codegen/launch.hpp), so the shared library and the code object launch alike.
ROCMTPL_INLINE std::string utility_entry(std::string_view name, entry_signature signature,
                                         const launch_description& d) {
  rendered_source entry;
  entry.entry_name = std::string(name);
  entry.signature = std::move(signature);
  std::vector<std::string> tensor_names;
  for (const auto& p : entry.signature.params) {
    if (p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out) tensor_names.push_back(p.name);
  }
  indented_buffer body;
  {
    auto indent = body.indent();
    write_workspace_query(body, d);
    write_launches(body, d, tensor_names);
  }
  entry.entry_body = std::move(body).str();
  return entry.entry();
}

// The helpers' full source: the shared dtype numbering, the includes, PT_EXPORT, the status codes,
// the size and launch helpers, the kernels, then the two entries.
ROCMTPL_INLINE std::string make_utility_source() {
  std::string out = dtype_code_defines();
  out += utility_source_head;
  out += pt_export_block;
  out += kernel_status_defines;
  out += sym_expr_cpp_helpers;
  out += launch_cpp_helpers;
  out += utility_device_code;
  out += '\n';
  // The entries launch ROCMTPL_KERNEL_SYMBOL(fill_kernel) etc. (codegen/launch.hpp): rocmtpl_fill_kernel.
  out += "#define ";
  out += device_symbol_macro;
  out += "(suffix) rocmtpl_##suffix\n";
  out += utility_entry("rocmtpl_fill_uniform", fill_signature(), fill_launch());
  out += '\n';
  out += utility_entry("rocmtpl_compare", compare_signature(), compare_launch());
  out += "#undef ";
  out += device_symbol_macro;
  out += '\n';
  return out;
}
ROCMTPL_INLINE symbol_sets helper_symbols(bool code_object) {
  if (!code_object) return {{"rocmtpl_fill_uniform", "rocmtpl_compare"}};
  std::vector<std::string> all;  // each helper has one variant: all of them are needed
  for (const auto* d : {&fill_launch(), &compare_launch()}) {
    for (const auto& v : d->variants) {
      for (const auto& l : v.launches) all.push_back(device_symbol(*d, l));
    }
  }
  return {all};
}
}  // namespace detail

ROCMTPL_INLINE utility_kernels::utility_kernels(const compiled_binary& binary) {
  if (binary.code_object) {
    module_ = std::make_shared<code_object>(binary.path);
    amd_ = module_api().kind == platform::amd;
  } else {
    library_ = std::make_shared<shared_library>(binary.path);
    fill_ = std::make_unique<kernel_entry>(library_, "rocmtpl_fill_uniform", detail::fill_signature());
    compare_ = std::make_unique<kernel_entry>(library_, "rocmtpl_compare", detail::compare_signature());
  }
}

ROCMTPL_INLINE void utility_kernels::fill(void* data, const tensor_meta& meta, std::uint64_t seed, void* stream) const {
  launch(fill_.get(), detail::fill_launch(), {data},
         {dtype_code(meta.type), meta.storage_elements(), static_cast<std::int64_t>(seed)}, stream);
}

ROCMTPL_INLINE comparison utility_kernels::compare(const void* out, const tensor_meta& out_meta, const void* ref,
                                                   const tensor_meta& ref_meta, void* stream) const {
  if (out_meta.sizes != ref_meta.sizes || out_meta.sizes.size() > 6) {
    throw invalid_argument_error("rocmtpl: compare: outputs must have equal sizes and rank <= 6");
  }
  const auto& rt = gpu_runtime::instance();
  device_buffer sums(2 * sizeof(double));
  device_buffer counts(2 * sizeof(std::uint64_t));
  rt.memset(sums.get(), 0, sums.size(), stream);
  rt.memset(counts.get(), 0, counts.size(), stream);
  launch(compare_.get(), detail::compare_launch(), {out, ref, sums.get(), counts.get()},
         compare_arguments(out_meta, ref_meta), stream);
  rt.synchronize(stream);
  double s[2];
  std::uint64_t c[2];
  sums.copy_to_host(s);
  counts.copy_to_host(c);
  comparison r;
  r.relative_l2 = s[1] > 0 ? std::sqrt(s[0] / s[1]) : std::sqrt(s[0]);
  std::memcpy(&r.max_abs, &c[1], sizeof(double));
  r.nonfinite = c[0];
  return r;
}

ROCMTPL_INLINE std::vector<std::int64_t> utility_kernels::compare_arguments(const tensor_meta& out_meta,
                                                                            const tensor_meta& ref_meta) {
  std::vector<std::int64_t> extra{dtype_code(out_meta.type), dtype_code(ref_meta.type),
                                  static_cast<std::int64_t>(out_meta.sizes.size())};
  auto pad = [&](const std::vector<std::int64_t>& v, std::int64_t fill) {
    for (std::size_t i = 0; i < 6; ++i) extra.push_back(i < v.size() ? v[i] : fill);
  };
  pad(out_meta.sizes, 1);
  pad(out_meta.strides, 0);
  pad(ref_meta.strides, 0);
  extra.push_back(out_meta.offset);
  extra.push_back(ref_meta.offset);
  return extra;
}

// Through the library's C entry, or the code object's kernel bound to these integers.
ROCMTPL_INLINE void utility_kernels::launch(const kernel_entry* entry, const launch_description& d,
                                            const std::vector<const void*>& tensors,
                                            const std::vector<std::int64_t>& extra, void* stream) const {
  if (entry != nullptr) {
    entry->launch(tensors, extra, nullptr, stream);
    return;
  }
  const module_kernel k(module_, bind(d, extra, {}, amd_), extra);
  k.launch(tensors, extra, nullptr, stream);
}

}  // namespace rocmtpl::runtime
