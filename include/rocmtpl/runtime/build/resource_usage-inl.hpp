// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/resource_usage.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <cxxabi.h>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE std::string demangle(std::string_view mangled) {
  const std::string name(mangled);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return name;
  return std::string(out.get());
}

ROCMTPL_INLINE std::string to_string(const kernel_resource_usage& r) {
  std::string s = r.arch.empty() ? std::string() : r.arch + " ";
  s += r.kernel.empty() ? r.mangled_name : r.kernel;
  s += ": ";
  if (r.registers > 0 || r.shared_bytes > 0 || r.stack_bytes > 0 || r.spill_store_bytes > 0 || r.spill_load_bytes > 0) {
    s += std::to_string(r.registers) + " registers, " + std::to_string(r.shared_bytes) + " B smem, " +
         std::to_string(r.stack_bytes) + " B stack, spill stores/loads " + std::to_string(r.spill_store_bytes) + "/" +
         std::to_string(r.spill_load_bytes) + " B";
  } else {
    s += std::to_string(r.vgprs) + " VGPRs, " + std::to_string(r.sgprs) + " SGPRs, " + std::to_string(r.agprs) +
         " AGPRs, " + std::to_string(r.lds_bytes) + " B LDS, " + std::to_string(r.scratch_bytes) +
         " B scratch/lane, occupancy " + std::to_string(r.occupancy) + ", spills SGPR/VGPR " +
         std::to_string(r.sgpr_spills) + "/" + std::to_string(r.vgpr_spills);
  }
  return s;
}

namespace detail::rusage {

ROCMTPL_INLINE std::string_view trim(std::string_view s) {
  constexpr std::string_view space = " \t\r\n";
  const auto b = s.find_first_not_of(space);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(space);
  return s.substr(b, e - b + 1);
}

// Leading decimal integer of s (after spaces); false when there is none.
ROCMTPL_INLINE bool leading_int(std::string_view s, int& value, std::string_view* rest) {
  s = trim(s);
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc{}) return false;
  if (rest != nullptr) *rest = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return true;
}

// Text between the first pair of single quotes at or after `from`.
ROCMTPL_INLINE std::string_view quoted(std::string_view s, std::size_t from) {
  const auto a = s.find('\'', from);
  if (a == std::string_view::npos) return {};
  const auto b = s.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return s.substr(a + 1, b - a - 1);
}

// `-target-cpu gfx90a` in a `clang -v` / `hipcc -v` job line: the arch of the remarks that follow.
ROCMTPL_INLINE std::string_view target_cpu_hint(std::string_view line) {
  const auto p = line.find("-target-cpu");
  if (p == std::string_view::npos) return {};
  auto rest = line.substr(p + 11);
  const auto b = rest.find_first_not_of(" \"");
  if (b == std::string_view::npos) return {};
  rest = rest.substr(b);
  const auto e = rest.find_first_of(" \"");
  return rest.substr(0, e);
}

}  // namespace detail::rusage

ROCMTPL_INLINE std::vector<kernel_resource_usage> parse_amd_resource_usage(std::string_view log,
                                                                           std::span<const std::string> offload_archs) {
  std::vector<kernel_resource_usage> out;
  std::vector<bool> hinted;
  std::string current_hint;
  detail::rusage::for_each_line(log, [&](std::string_view line) {
    if (const auto hint = detail::rusage::target_cpu_hint(line); !hint.empty()) {
      current_hint = std::string(hint);
      return;
    }
    const auto r = line.find("remark:");
    if (r == std::string_view::npos) return;
    auto body = line.substr(r + 7);
    if (const auto tag = body.find(" [-R"); tag != std::string_view::npos) body = body.substr(0, tag);
    body = detail::rusage::trim(body);
    constexpr std::string_view fn_key = "Function Name:";
    if (body.starts_with(fn_key)) {
      kernel_resource_usage k;
      k.mangled_name = std::string(detail::rusage::trim(body.substr(fn_key.size())));
      k.kernel = demangle(k.mangled_name);
      k.arch = current_hint;
      hinted.push_back(!current_hint.empty());
      out.push_back(std::move(k));
      return;
    }
    if (out.empty()) return;
    const auto colon = body.rfind(':');
    if (colon == std::string_view::npos) return;
    const auto key = detail::rusage::trim(body.substr(0, colon));
    int value = 0;
    if (!detail::rusage::leading_int(body.substr(colon + 1), value)) return;
    auto& k = out.back();
    if (key == "SGPRs" || key == "TotalSGPRs") {
      k.sgprs = value;
    } else if (key == "VGPRs") {
      k.vgprs = value;
    } else if (key == "AGPRs") {
      k.agprs = value;
    } else if (key == "ScratchSize [bytes/lane]" || key == "ScratchSize") {
      k.scratch_bytes = value;
    } else if (key == "Occupancy [waves/SIMD]" || key == "Occupancy") {
      k.occupancy = value;
    } else if (key == "SGPRs Spill") {
      k.sgpr_spills = value;
    } else if (key == "VGPRs Spill") {
      k.vgpr_spills = value;
    } else if (key == "LDS Size [bytes/block]" || key == "LDS Size") {
      k.lds_bytes = value;
    }
  });

  // Attribute the blocks that no -target-cpu line named.
  std::vector<std::string> archs(offload_archs.begin(), offload_archs.end());
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!hinted[i]) todo.push_back(i);
  if (archs.empty() || todo.empty()) return out;
  if (archs.size() == 1) {
    for (auto i : todo) out[i].arch = archs.front();
    return out;
  }
  // Groups: a new device compilation starts where a kernel name repeats within the current one.
  std::vector<std::vector<std::size_t>> groups(1);
  for (auto i : todo) {
    auto& g = groups.back();
    const bool repeat =
        std::any_of(g.begin(), g.end(), [&](std::size_t j) { return out[j].mangled_name == out[i].mangled_name; });
    if (repeat) groups.emplace_back();
    groups.back().push_back(i);
  }
  // Every device compilation must show the same kernels; when kernels exist for only some archs
  // (#if __gfx940__ around one) the split is ambiguous: leave the blocks unattributed, never guess.
  if (groups.size() != archs.size()) return out;
  auto names = [&](const std::vector<std::size_t>& g) {
    std::vector<std::string_view> n;
    for (auto i : g) n.emplace_back(out[i].mangled_name);
    std::sort(n.begin(), n.end());
    return n;
  };
  const auto first = names(groups.front());
  for (const auto& g : groups)
    if (names(g) != first) return out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (auto i : groups[g]) out[i].arch = archs[g];
  return out;
}

ROCMTPL_INLINE std::vector<kernel_resource_usage> parse_nvidia_resource_usage(std::string_view log) {
  std::vector<kernel_resource_usage> out;
  std::string properties_of;  // function named by the last "Function properties for" line
  bool in_entry = false;
  auto apply_items = [](kernel_resource_usage& k, std::string_view items) {
    while (!items.empty()) {
      const auto comma = items.find(',');
      auto item = detail::rusage::trim(items.substr(0, comma));
      items = comma == std::string_view::npos ? std::string_view{} : items.substr(comma + 1);
      if (item.starts_with("Used ") || item.starts_with("used ")) item.remove_prefix(5);
      int value = 0;
      std::string_view unit;
      if (!detail::rusage::leading_int(item, value, &unit)) continue;
      if (unit == "registers") {
        k.registers = value;
      } else if (unit == "barriers") {
        k.barriers = value;
      } else if (unit == "bytes smem") {
        k.shared_bytes = value;
      } else if (unit == "bytes cmem[0]") {
        k.const_bytes = value;
      } else if (unit == "bytes stack frame") {
        k.stack_bytes = value;
      } else if (unit == "bytes spill stores") {
        k.spill_store_bytes = value;
      } else if (unit == "bytes spill loads") {
        k.spill_load_bytes = value;
      }
    }
  };
  detail::rusage::for_each_line(log, [&](std::string_view line) {
    if (const auto p = line.find("Compiling entry function"); p != std::string_view::npos) {
      kernel_resource_usage k;
      const auto name = detail::rusage::quoted(line, p);
      k.mangled_name = std::string(name);
      k.kernel = demangle(name);
      if (const auto f = line.find(" for ", p); f != std::string_view::npos)
        k.arch = std::string(detail::rusage::quoted(line, f));
      out.push_back(std::move(k));
      in_entry = true;
      properties_of.clear();
      return;
    }
    if (const auto p = line.find("Function properties for "); p != std::string_view::npos) {
      properties_of = std::string(detail::rusage::trim(line.substr(p + 24)));
      return;
    }
    if (line.find("bytes stack frame") != std::string_view::npos) {
      if (in_entry && !out.empty() && properties_of == out.back().mangled_name) apply_items(out.back(), line);
      return;
    }
    if (const auto p = line.find("Used ");
        p != std::string_view::npos && line.find("registers", p) != std::string_view::npos) {
      if (in_entry && !out.empty()) apply_items(out.back(), line.substr(p));
      return;
    }
    if (line.find("bytes gmem") != std::string_view::npos) in_entry = false;  // next arch / module starts
  });
  return out;
}

}  // namespace rocmtpl::runtime
