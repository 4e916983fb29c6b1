// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/artifact.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <elf.h>
#include <fmt/format.h>

namespace rocmtpl::runtime {

namespace detail::artifact_impl {

template <class T>
std::optional<T> read_at(std::string_view bytes, std::uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T v{};
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

ROCMTPL_INLINE std::uint16_t host_machine() noexcept {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__powerpc64__)
  return EM_PPC64;
#else
  return 0;
#endif
}

ROCMTPL_INLINE std::string first_bytes(std::string_view bytes) {
  const auto n = std::min<std::size_t>(bytes.size(), 16);
  std::string hex;
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (i != 0) hex += ' ';
    hex += fmt::format("{:02x}", c);
    text += c >= 0x20 && c < 0x7f && c != '"' ? static_cast<char>(c) : '.';
  }
  return fmt::format("{} \"{}\"{}", hex, text, bytes.size() > n ? "..." : "");
}

ROCMTPL_INLINE std::optional<elf_identity> elf_header(std::string_view image) {
  const auto ehdr = read_at<Elf64_Ehdr>(image, 0);
  if (!ehdr || std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0 || ehdr->e_ident[EI_CLASS] != ELFCLASS64 ||
      ehdr->e_ident[EI_DATA] != ELFDATA2LSB) {
    return std::nullopt;
  }
  return elf_identity{ehdr->e_type, ehdr->e_machine};
}

// The machine's name in messages.
ROCMTPL_INLINE std::string machine_name(std::uint16_t m) {
  switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case elf_machine_amdgpu: return "AMD GPU";
    case elf_machine_cuda: return "CUDA";
    default: return fmt::format("machine {}", m);
  }
}

ROCMTPL_INLINE std::string type_name(std::uint16_t t) {
  switch (t) {
    case ET_REL: return "relocatable object";
    case ET_EXEC: return "executable";
    case ET_DYN: return "shared object";
    case ET_CORE: return "core dump";
    default: return fmt::format("ELF file of type {}", t);
  }
}

ROCMTPL_INLINE std::string elf_problem(std::string_view image, std::uint16_t machine, bool executable_ok,
                                       std::string_view what, const symbol_sets& symbols, bool kernels_may_be_absent) {
  const auto id = elf_header(image);
  if (!id) {
    if (image.empty()) return fmt::format("wrote an empty {}", what);
    return fmt::format("wrote no ELF file for the {} (its first bytes: {})", what, first_bytes(image));
  }
  if ((machine != 0 && id->machine != machine) || !(id->type == ET_DYN || (executable_ok && id->type == ET_EXEC))) {
    return fmt::format("wrote a {} {}, not the {} ({} {})", machine_name(id->machine), type_name(id->type), what,
                       machine != 0 ? machine_name(machine) : std::string("host"),
                       executable_ok ? "ELF image" : "shared object");
  }
  // Read whether or not symbols are asked for: a file cut short has its section table outside it.
  const auto defined = elf_defined_symbols(image);
  if (!defined) return fmt::format("wrote a damaged {} (its section or symbol tables lie outside the file)", what);
  if (symbols.empty()) return {};
  const auto is_defined = [&](const std::string& name) {
    return std::find(defined->begin(), defined->end(), name) != defined->end();
  };
  std::string first_missing;
  bool any = false;
  for (const auto& set : symbols) {
    const auto missing = std::find_if_not(set.begin(), set.end(), is_defined);
    if (missing == set.end()) return {};  // this set is whole
    if (first_missing.empty()) first_missing = *missing;
    any = any || std::any_of(set.begin(), set.end(), is_defined);
  }
  // A GPU code object without any of the kernels: its source has no device code for this target
  // (the Hopper path compiled for AMD, whose entry refuses every call there), not a broken compile.
  if (kernels_may_be_absent && !any) return {};
  if (symbols.size() == 1) {
    return fmt::format("its {} has no symbol {} ({} symbols defined)", what, first_missing, defined->size());
  }
  return fmt::format(
      "its {} has no symbol {}, nor every kernel of another of its {} launch variants ({} symbols "
      "defined)",
      what, first_missing, symbols.size() - 1, defined->size());
}

// A clang offload bundle: "__CLANG_OFFLOAD_BUNDLE__", the entry count, then per entry its offset, size,
// and target triple ("host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx90a"). Every device entry
// must be an AMD GPU code object with the symbols.
ROCMTPL_INLINE std::string bundle_problem(std::string_view bytes, const symbol_sets& symbols) {
  constexpr std::string_view magic = "__CLANG_OFFLOAD_BUNDLE__";
  const auto count = read_at<std::uint64_t>(bytes, magic.size());
  if (!count || *count > 4096) return "wrote a damaged offload bundle (no entry count)";
  std::uint64_t at = magic.size() + 8;
  std::size_t device_entries = 0;
  for (std::uint64_t i = 0; i < *count; ++i) {
    const auto offset = read_at<std::uint64_t>(bytes, at);
    const auto size = read_at<std::uint64_t>(bytes, at + 8);
    const auto triple_size = read_at<std::uint64_t>(bytes, at + 16);
    if (!offset || !size || !triple_size || *triple_size > 4096 || at + 24 + *triple_size > bytes.size()) {
      return "wrote a damaged offload bundle (an entry lies outside the file)";
    }
    const std::string triple(bytes.substr(at + 24, *triple_size));
    at += 24 + *triple_size;
    if (triple.starts_with("host-")) continue;
    if (*offset > bytes.size() || *size > bytes.size() - *offset) {
      return fmt::format("wrote a damaged offload bundle (entry {} lies outside the file)", triple);
    }
    const auto arch = triple.substr(triple.rfind('-') + 1);
    ++device_entries;
    if (auto p =
            elf_problem(bytes.substr(*offset, *size), elf_machine_amdgpu, false, arch + " code object", symbols, true);
        !p.empty()) {
      return p;
    }
  }
  if (device_entries == 0) return "wrote an offload bundle without a GPU code object";
  return {};
}

// A CUDA fat binary: a 16-byte header (magic 0xba55ed50, version, header size, size of what follows),
// then entries, each with a header (kind: 1 PTX, 2 cubin; its header size; its payload size; flags,
// 0x2000 compressed) and its payload. Every readable cubin must define the symbols.
ROCMTPL_INLINE std::string fatbin_problem(std::string_view bytes, const symbol_sets& symbols) {
  const auto header_size = read_at<std::uint16_t>(bytes, 6);
  const auto body_size = read_at<std::uint64_t>(bytes, 8);
  if (!header_size || !body_size || *body_size > bytes.size() || *header_size > bytes.size() - *body_size) {
    return "wrote a damaged CUDA fat binary (its size is more than the file's)";
  }
  const std::uint64_t end = *header_size + *body_size;
  std::uint64_t at = *header_size;
  std::size_t entries = 0;
  while (at + 16 <= end) {
    const auto kind = read_at<std::uint16_t>(bytes, at);
    const auto entry_header = read_at<std::uint32_t>(bytes, at + 4);
    const auto payload = read_at<std::uint64_t>(bytes, at + 8);
    const auto flags = read_at<std::uint64_t>(bytes, at + 0x28);
    if (!kind || !entry_header || !payload || *entry_header < 16 || *payload > end ||
        at + *entry_header > end - *payload) {
      return "wrote a damaged CUDA fat binary (an entry lies outside it)";
    }
    ++entries;
    const auto image = bytes.substr(at + *entry_header, *payload);
    const bool compressed = flags && (*flags & 0x2000) != 0;
    if (*kind == 2 && !compressed && image.starts_with(ELFMAG)) {
      if (auto p = elf_problem(image, elf_machine_cuda, true, "cubin", symbols, true); !p.empty()) return p;
    }
    at += *entry_header + *payload;
  }
  if (entries == 0) return "wrote a CUDA fat binary without an entry";
  return {};
}

}  // namespace detail::artifact_impl

ROCMTPL_INLINE std::optional<std::vector<std::string>> elf_defined_symbols(std::string_view image) {
  using detail::artifact_impl::read_at;
  if (!detail::artifact_impl::elf_header(image)) return std::nullopt;
  const auto ehdr = *read_at<Elf64_Ehdr>(image, 0);
  if (ehdr.e_shnum == 0) return std::vector<std::string>{};  // no section table: nothing defined
  if (ehdr.e_shentsize != sizeof(Elf64_Shdr)) return std::nullopt;
  std::vector<Elf64_Shdr> sections;
  for (std::uint64_t i = 0; i < ehdr.e_shnum; ++i) {
    const auto s = read_at<Elf64_Shdr>(image, ehdr.e_shoff + i * sizeof(Elf64_Shdr));
    if (!s) return std::nullopt;
    sections.push_back(*s);
  }
  std::vector<std::string> names;
  for (const auto& s : sections) {
    if (s.sh_type != SHT_SYMTAB && s.sh_type != SHT_DYNSYM) continue;
    if (s.sh_link >= sections.size() || s.sh_entsize != sizeof(Elf64_Sym) || s.sh_offset > image.size() ||
        s.sh_size > image.size() - s.sh_offset) {
      return std::nullopt;
    }
    const auto& strtab = sections[s.sh_link];
    if (strtab.sh_offset > image.size() || strtab.sh_size > image.size() - strtab.sh_offset) return std::nullopt;
    const auto strings = image.substr(strtab.sh_offset, strtab.sh_size);
    for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= s.sh_size; at += sizeof(Elf64_Sym)) {
      const auto sym = *read_at<Elf64_Sym>(image, s.sh_offset + at);
      if (sym.st_shndx == SHN_UNDEF || sym.st_name == 0 || sym.st_name >= strings.size()) continue;
      const auto rest = strings.substr(sym.st_name);
      names.emplace_back(rest.substr(0, rest.find('\0')));
    }
  }
  return names;
}

ROCMTPL_INLINE std::string artifact_problem(std::string_view bytes, artifact_kind kind, const symbol_sets& symbols) {
  namespace impl = detail::artifact_impl;
  switch (kind) {
    case artifact_kind::host_shared_library:
      return impl::elf_problem(bytes, impl::host_machine(), false, "shared library", symbols, false);
    case artifact_kind::amd_code_object:
      if (bytes.starts_with("__CLANG_OFFLOAD_BUNDLE__")) return impl::bundle_problem(bytes, symbols);
      if (bytes.starts_with("CCOB")) return {};  // a compressed bundle: its header is all there is to check
      if (bytes.empty()) return "wrote an empty code object";
      if (!impl::elf_header(bytes)) {
        return fmt::format(
            "wrote neither an offload bundle nor an ELF file for the AMD GPU code object (its first "
            "bytes: {})",
            impl::first_bytes(bytes));
      }
      return impl::elf_problem(bytes, impl::elf_machine_amdgpu, false, "AMD GPU code object", symbols, true);
    case artifact_kind::nvidia_code_object:
      if (bytes.starts_with(std::string_view("\x50\xed\x55\xba", 4))) return impl::fatbin_problem(bytes, symbols);
      if (bytes.empty()) return "wrote an empty code object";
      if (!impl::elf_header(bytes)) {
        return fmt::format("wrote neither a cubin nor a CUDA fat binary (its first bytes: {})",
                           impl::first_bytes(bytes));
      }
      return impl::elf_problem(bytes, impl::elf_machine_cuda, true, "cubin", symbols, true);
  }
  return {};
}

}  // namespace rocmtpl::runtime
