// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Per-kernel register, LDS/shared-memory, scratch and spill figures, read from the
/// compiler's own log (clang's `-Rpass-analysis=kernel-resource-usage` remarks on AMD,
/// `ptxas -v` on NVIDIA).
///
/// The autotuner uses them to drop or flag candidates that spill, and reports print them next to
/// the timing, so that a slow candidate explains itself.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/core/config.hpp>

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
[[nodiscard]] std::string demangle(std::string_view mangled);

/// @brief One line for reports, e.g. `gfx90a scale_kernel(...): 6 VGPRs, 15 SGPRs, 0 AGPRs, 1024 B LDS, ...`.
[[nodiscard]] std::string to_string(const kernel_resource_usage& r);

namespace detail::rusage {

std::string_view trim(std::string_view s);

template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

bool leading_int(std::string_view s, int& value, std::string_view* rest = nullptr);

std::string_view quoted(std::string_view s, std::size_t from = 0);

std::string_view target_cpu_hint(std::string_view line);

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
[[nodiscard]] std::vector<kernel_resource_usage> parse_amd_resource_usage(
    std::string_view log, std::span<const std::string> offload_archs = {});

/// @brief Reads `ptxas -v` output (nvcc `-Xptxas -v`).
///
/// Understands "Compiling entry function '<mangled>' for 'sm_90'", the "Function properties for X"
/// line followed by "N bytes stack frame, A bytes spill stores, B bytes spill loads" (only when X
/// is the entry being compiled, not a device function it calls), and "Used N registers, used M
/// barriers, X bytes smem, Y bytes cmem[0]" (any subset, any order).
/// @param log the compiler's merged output
/// @return one entry per kernel and arch, in log order
[[nodiscard]] std::vector<kernel_resource_usage> parse_nvidia_resource_usage(std::string_view log);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/resource_usage-inl.hpp>
#endif
