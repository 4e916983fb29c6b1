// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Per-kernel register, LDS/shared-memory, scratch and spill figures, read from the
/// compiler's own log (clang's `-Rpass-analysis=kernel-resource-usage` remarks on AMD,
/// `ptxas -v` on NVIDIA).
///
/// The autotuner uses them to drop or flag candidates that spill, and reports print them next to
/// the timing, so that a slow candidate explains itself.

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cxxabi.h>

namespace rocmtpl::runtime {

/// @brief Resources one kernel uses on one architecture, as the compiler reported them.
///
/// AMD fields come from clang's resource-usage remarks, NVIDIA fields from `ptxas -v`;
/// the fields of the other platform stay 0.
struct kernel_resource_usage {
  /// @brief Demangled kernel name, for display (`scale_kernel(float const*, float*, long)`).
  std::string kernel{};
  /// @brief The kernel's symbol as the compiler printed it (`_Z12scale_kernelPKfPfl`).
  std::string mangled_name{};
  /// @brief Architecture the figures belong to (`gfx90a`, `sm_90`); empty when the log did not
  /// allow a sure attribution.
  std::string arch{};
  // AMD (clang remarks).
  int vgprs = 0;          ///< AMD: vector registers per work-item ("VGPRs")
  int sgprs = 0;          ///< AMD: scalar registers per wave ("SGPRs" / "TotalSGPRs")
  int agprs = 0;          ///< AMD: accumulation registers per work-item ("AGPRs", gfx90a/gfx940 MFMA)
  int lds_bytes = 0;      ///< AMD: LDS per work-group ("LDS Size [bytes/block]")
  int scratch_bytes = 0;  ///< AMD: private memory per lane ("ScratchSize [bytes/lane]")
  int occupancy = 0;      ///< AMD: waves per SIMD the register/LDS use allows ("Occupancy [waves/SIMD]")
  int sgpr_spills = 0;    ///< AMD: SGPRs spilled ("SGPRs Spill")
  int vgpr_spills = 0;    ///< AMD: VGPRs spilled to scratch ("VGPRs Spill")
  // NVIDIA (ptxas -v).
  int registers = 0;          ///< NVIDIA: registers per thread ("Used N registers")
  int shared_bytes = 0;       ///< NVIDIA: static shared memory ("X bytes smem")
  int stack_bytes = 0;        ///< NVIDIA: stack frame ("N bytes stack frame")
  int spill_store_bytes = 0;  ///< NVIDIA: "A bytes spill stores"
  int spill_load_bytes = 0;   ///< NVIDIA: "B bytes spill loads"
  int barriers = 0;           ///< NVIDIA: named barriers used ("used M barriers")
  int const_bytes = 0;        ///< NVIDIA: constant bank 0 ("Y bytes cmem[0]")

  /// @brief True when the compiler spilled registers (SGPR/VGPR spills or ptxas spill stores/loads).
  [[nodiscard]] bool spills() const noexcept {
    return sgpr_spills > 0 || vgpr_spills > 0 || spill_store_bytes > 0 || spill_load_bytes > 0;
  }

  /// @brief Field-wise equality.
  friend bool operator==(const kernel_resource_usage&, const kernel_resource_usage&) = default;
};

/// @brief Demangles an Itanium C++ symbol (`_Z12scale_kernelPKfPfl` -> `scale_kernel(float const*, float*, long)`).
/// @return the demangled name, or the input unchanged when it is not a mangled name
[[nodiscard]] inline std::string demangle(std::string_view mangled) {
  const std::string name(mangled);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return name;
  return std::string(out.get());
}

/// @brief One line for reports, e.g. `gfx90a scale_kernel(...): 6 VGPRs, 15 SGPRs, 0 AGPRs, 1024 B LDS, ...`.
[[nodiscard]] inline std::string to_string(const kernel_resource_usage& r) {
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

inline std::string_view trim(std::string_view s) {
  constexpr std::string_view space = " \t\r\n";
  const auto b = s.find_first_not_of(space);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(space);
  return s.substr(b, e - b + 1);
}

template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// Leading decimal integer of s (after spaces); false when there is none.
inline bool leading_int(std::string_view s, int& value, std::string_view* rest = nullptr) {
  s = trim(s);
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc{}) return false;
  if (rest != nullptr) *rest = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return true;
}

// Text between the first pair of single quotes at or after `from`.
inline std::string_view quoted(std::string_view s, std::size_t from = 0) {
  const auto a = s.find('\'', from);
  if (a == std::string_view::npos) return {};
  const auto b = s.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return s.substr(a + 1, b - a - 1);
}

// `-target-cpu gfx90a` in a `clang -v` / `hipcc -v` job line: the arch of the remarks that follow.
inline std::string_view target_cpu_hint(std::string_view line) {
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

/// @brief Reads the per-kernel blocks clang prints with `-Rpass-analysis=kernel-resource-usage`.
///
/// hipcc runs one device compilation per offload arch and each prints one block per kernel
/// ("Function Name: X", "SGPRs: n", "VGPRs: n", "AGPRs: n", "ScratchSize [bytes/lane]: n",
/// "Occupancy [waves/SIMD]: n", "SGPRs Spill: n", "VGPRs Spill: n", "LDS Size [bytes/block]: n").
/// The remarks themselves do not name the arch, so it is attributed as follows:
/// 1. a `-target-cpu <arch>` job line (present when `-v` was passed) names the arch of the blocks after it;
/// 2. otherwise the blocks are split into one group per device compilation (a group ends where a
///    kernel name repeats) and, when there is one group per arch and every group lists the same
///    kernels, the groups are matched to `offload_archs` in the order clang runs them: sorted by
///    name, not command-line order (checked against the installed clang by the tests);
/// 3. otherwise (kernels that exist for some archs only) `arch` stays empty rather than guessed.
/// @param log the compiler's merged output
/// @param offload_archs the `--offload-arch` values of the compile (any order)
/// @return one entry per kernel and arch, in log order
[[nodiscard]] inline std::vector<kernel_resource_usage> parse_amd_resource_usage(
    std::string_view log, std::span<const std::string> offload_archs = {}) {
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

/// @brief Reads `ptxas -v` output (nvcc `-Xptxas -v`).
///
/// Understands "Compiling entry function '<mangled>' for 'sm_90'", the "Function properties for X"
/// line followed by "N bytes stack frame, A bytes spill stores, B bytes spill loads" (only when X
/// is the entry being compiled, not a device function it calls), and "Used N registers, used M
/// barriers, X bytes smem, Y bytes cmem[0]" (any subset, any order).
/// @param log the compiler's merged output
/// @return one entry per kernel and arch, in log order
[[nodiscard]] inline std::vector<kernel_resource_usage> parse_nvidia_resource_usage(std::string_view log) {
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
