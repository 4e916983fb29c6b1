// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Checks what a compiler wrote before anything trusts it: the file's format (an ELF shared
/// object for this host, an AMD GPU code object, a CUDA cubin or fat binary) and the symbols it must
/// define (the C entry, the kernels). A compiler that exits 0 after writing garbage, an empty file or
/// a file without the expected kernel is then a compile failure with the reason, and nothing of it
/// enters the code cache. The ELF symbol tables are read here (no `nm`).

#include <rocmtpl/core/config.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl::runtime {

/// @brief Symbols a compiled file must define: every symbol of at least one of the sets. A shared
/// library's C entry is one set of one name; a code object's kernels are a set per launch variant
/// (a variant may be for another platform, and its kernels absent there). Empty: only the format is checked.
using symbol_sets = std::vector<std::vector<std::string>>;

/// @brief What a compile is expected to have produced.
enum class artifact_kind {
  host_shared_library,  ///< an ELF shared object for this host's machine (the C entry is a dynamic symbol)
  amd_code_object,      ///< a clang offload bundle of AMD GPU ELF code objects (hipcc --genco), or one such ELF
  nvidia_code_object,   ///< a CUDA cubin (an ELF for the CUDA machine) or a fat binary of them
};

/// @brief The names of the symbols an ELF image defines (its .symtab and .dynsym, undefined ones
/// left out), in table order.
/// @return nullopt when `image` is not a well-formed 64-bit little-endian ELF image
[[nodiscard]] std::optional<std::vector<std::string>> elf_defined_symbols(std::string_view image);

/// @brief Why `bytes` are not what a compile of kind `kind` must produce, as the end of the sentence
/// "<compiler> exited 0 but ...": "wrote no ELF file (its first bytes: 67 61 72 ... "garb...")", "wrote an
/// ELF file for machine 62, not for the AMD GPU", "its gfx90a code object has no symbol rocm_gemm_0".
/// Empty when they are. Every symbol of one set of `symbols` must be defined: by the shared object, by
/// every AMD code object of the bundle, by every cubin of the fat binary (compressed fat-binary entries
/// and bundles, which cannot be read without their decompressor, are checked by their header only). A
/// GPU code object that defines none of the symbols passes: its source has no device code for that
/// target (a Hopper-only kernel compiled for AMD, whose entry refuses every call there); one that
/// defines some of them but not a whole set does not.
[[nodiscard]] std::string artifact_problem(std::string_view bytes, artifact_kind kind, const symbol_sets& symbols = {});

namespace detail::artifact_impl {

inline constexpr std::uint16_t elf_machine_amdgpu = 224;
inline constexpr std::uint16_t elf_machine_cuda = 190;

// A little-endian value of type T at `offset`, if the bytes are there.
template <class T>
std::optional<T> read_at(std::string_view bytes, std::uint64_t offset);

std::string machine_name(std::uint16_t machine);

std::string type_name(std::uint16_t type);

// The host's ELF machine (EM_X86_64, EM_AARCH64, ...); 0 where unknown (then not checked).
std::uint16_t host_machine() noexcept;

// Up to 16 bytes in hex and as text, for a message.
std::string first_bytes(std::string_view bytes);

// The ELF header's type and machine; nullopt when `image` has no 64-bit little-endian ELF header.
struct elf_identity {
  std::uint16_t type = 0;
  std::uint16_t machine = 0;
};
std::optional<elf_identity> elf_header(std::string_view image);

// An ELF image of machine `machine` (and type ET_DYN, or ET_EXEC too when `executable_ok`) that defines
// every symbol of one set (or, `kernels_may_be_absent`, none of any); what is wrong otherwise ("..."
// completes "but ").
std::string elf_problem(std::string_view image, std::uint16_t machine, bool executable_ok, std::string_view what,
                        const symbol_sets& symbols, bool kernels_may_be_absent);

std::string bundle_problem(std::string_view bytes, const symbol_sets& symbols);

std::string fatbin_problem(std::string_view bytes, const symbol_sets& symbols);

}  // namespace detail::artifact_impl

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/artifact-inl.hpp>
#endif
