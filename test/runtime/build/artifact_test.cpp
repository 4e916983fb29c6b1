// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/build/artifact.hpp (issue 22 item 4): what a compiler wrote is
// checked before it is trusted. Real files (a shared object the host compiler builds here; an AMD
// code object and a cubin where hipcc and nvcc are installed) pass and have their symbols read;
// garbage, an empty or truncated file, an ELF of the wrong kind and a file without the expected
// symbol are each refused with the reason. The code cache then keeps nothing of such a compile.
#include <rocmtpl/runtime/build/artifact.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace rt = rocmtpl::runtime;
using rocmtpl::test::temp_dir;
using rt::artifact_kind;
using rt::artifact_problem;
namespace fs = std::filesystem;

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A minimal 64-bit ELF image: header, .symtab with `symbols` (defined, in section 1), .strtab,
// .shstrtab.
std::string make_elf(std::uint16_t machine, std::uint16_t type, const std::vector<std::string>& symbols) {
  std::string strtab(1, '\0');
  std::vector<Elf64_Sym> syms(1);  // the null symbol
  for (const auto& s : symbols) {
    Elf64_Sym sym{};
    sym.st_name = static_cast<std::uint32_t>(strtab.size());
    sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    sym.st_shndx = 1;
    syms.push_back(sym);
    strtab += s;
    strtab += '\0';
  }
  // An undefined symbol is never reported as defined.
  Elf64_Sym undefined{};
  undefined.st_name = static_cast<std::uint32_t>(strtab.size());
  syms.push_back(undefined);
  strtab += "undefined_import";
  strtab += '\0';
  const std::string shstrtab = std::string("\0.symtab\0.strtab\0.shstrtab\0", 26);
  std::string image(sizeof(Elf64_Ehdr), '\0');
  const auto symtab_off = image.size();
  image.append(reinterpret_cast<const char*>(syms.data()), syms.size() * sizeof(Elf64_Sym));
  const auto strtab_off = image.size();
  image += strtab;
  const auto shstrtab_off = image.size();
  image += shstrtab;
  while (image.size() % 8 != 0) image += '\0';
  const auto shoff = image.size();
  Elf64_Shdr sh[4]{};
  sh[1].sh_name = 1;  // .symtab
  sh[1].sh_type = SHT_SYMTAB;
  sh[1].sh_offset = symtab_off;
  sh[1].sh_size = syms.size() * sizeof(Elf64_Sym);
  sh[1].sh_link = 2;
  sh[1].sh_entsize = sizeof(Elf64_Sym);
  sh[2].sh_name = 9;  // .strtab
  sh[2].sh_type = SHT_STRTAB;
  sh[2].sh_offset = strtab_off;
  sh[2].sh_size = strtab.size();
  sh[3].sh_name = 17;  // .shstrtab
  sh[3].sh_type = SHT_STRTAB;
  sh[3].sh_offset = shstrtab_off;
  sh[3].sh_size = shstrtab.size();
  image.append(reinterpret_cast<const char*>(sh), sizeof sh);
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = ELFCLASS64;
  h.e_ident[EI_DATA] = ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = type;
  h.e_machine = machine;
  h.e_version = EV_CURRENT;
  h.e_ehsize = sizeof(Elf64_Ehdr);
  h.e_shoff = shoff;
  h.e_shentsize = sizeof(Elf64_Shdr);
  h.e_shnum = 4;
  h.e_shstrndx = 3;
  std::memcpy(image.data(), &h, sizeof h);
  return image;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// A clang offload bundle of (triple, image) entries, the way hipcc --genco writes one.
std::string make_bundle(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string head = "__CLANG_OFFLOAD_BUNDLE__";
  put<std::uint64_t>(head, entries.size());
  std::size_t header_size = head.size();
  for (const auto& [triple, image] : entries) header_size += 24 + triple.size();
  std::string body;
  for (const auto& [triple, image] : entries) {
    put<std::uint64_t>(head, header_size + body.size());
    put<std::uint64_t>(head, image.size());
    put<std::uint64_t>(head, triple.size());
    head += triple;
    body += image;
  }
  return head + body;
}

// A CUDA fat binary of cubins (kind 2); `compressed` sets the entries' compression flag.
std::string make_fatbin(const std::vector<std::string>& cubins, bool compressed = false) {
  std::string body;
  for (const auto& c : cubins) {
    std::string entry;
    put<std::uint16_t>(entry, 2);         // kind: cubin
    put<std::uint16_t>(entry, 0x101);     // version
    put<std::uint32_t>(entry, 0x40);      // header size
    put<std::uint64_t>(entry, c.size());  // payload size
    entry.resize(0x28, '\0');
    put<std::uint64_t>(entry, compressed ? 0x2011 : 0x11);  // flags
    entry.resize(0x40, '\0');
    body += entry + c;
  }
  std::string out;
  put<std::uint32_t>(out, 0xba55ed50);
  put<std::uint16_t>(out, 1);
  put<std::uint16_t>(out, 16);
  put<std::uint64_t>(out, body.size());
  return out + body;
}

TEST(artifact, a_real_shared_object_passes_and_its_symbols_are_read) {
  const auto cxx = rt::find_executable("c++");
  if (!cxx) GTEST_SKIP() << "no host C++ compiler (c++) to build a shared object with";
  temp_dir dir;
  rocmtpl::test::write_file(dir / "lib.cpp",
                            "extern \"C\" __attribute__((visibility(\"default\"))) int rocmtpl_entry(int a) { "
                            "return a + 1; }\nextern \"C\" int rocmtpl_hidden(int a) { return a; }\n");
  const auto built = rt::run_process({cxx->string(), "-shared", "-fPIC", "-fvisibility=hidden", "-O1", "-o",
                                      (dir / "lib.so").string(), (dir / "lib.cpp").string()},
                                     {.timeout = std::chrono::seconds(120)});
  ASSERT_TRUE(built.ok()) << built.output;
  const auto bytes = rocmtpl::test::read_file(dir / "lib.so");
  const auto symbols = rt::elf_defined_symbols(bytes);
  ASSERT_TRUE(symbols.has_value());
  EXPECT_NE(std::find(symbols->begin(), symbols->end(), "rocmtpl_entry"), symbols->end());
  EXPECT_EQ(artifact_problem(bytes, artifact_kind::host_shared_library, {{"rocmtpl_entry"}}), "");
  const auto missing = artifact_problem(bytes, artifact_kind::host_shared_library, {{"rocm_gemm_0"}});
  EXPECT_TRUE(has(missing, "its shared library has no symbol rocm_gemm_0")) << missing;
  // The same bytes are no GPU code object.
  EXPECT_TRUE(has(artifact_problem(bytes, artifact_kind::amd_code_object), "x86-64 shared object, not the AMD GPU"))
      << artifact_problem(bytes, artifact_kind::amd_code_object);
  EXPECT_TRUE(has(artifact_problem(bytes, artifact_kind::nvidia_code_object), "not the cubin"));
  // Cut short: the section table lies outside the file.
  const auto truncated = artifact_problem(bytes.substr(0, 200), artifact_kind::host_shared_library);
  EXPECT_TRUE(has(truncated, "wrote a damaged shared library")) << truncated;
}

TEST(artifact, garbage_and_empty_files_are_refused_with_their_first_bytes) {
  const std::string garbage = "garbage, not a library\n";
  const auto p = artifact_problem(garbage, artifact_kind::host_shared_library);
  EXPECT_TRUE(has(p,
                  "wrote no ELF file for the shared library (its first bytes: 67 61 72 62 61 67 65 2c 20 6e "
                  "6f 74 20 61 20 6c \"garbage, not a l\"...)"))
      << p;
  EXPECT_TRUE(has(artifact_problem(garbage, artifact_kind::amd_code_object),
                  "wrote neither an offload bundle nor an ELF file for the AMD GPU code object"));
  EXPECT_TRUE(
      has(artifact_problem(garbage, artifact_kind::nvidia_code_object), "wrote neither a cubin nor a CUDA fat binary"));
  EXPECT_EQ(artifact_problem("", artifact_kind::host_shared_library), "wrote an empty shared library");
  EXPECT_EQ(artifact_problem("", artifact_kind::amd_code_object), "wrote an empty code object");
  EXPECT_EQ(rt::elf_defined_symbols(garbage), std::nullopt);
  // An ELF header alone, 32-bit or big-endian, is no image this reads.
  auto big_endian = make_elf(EM_X86_64, ET_DYN, {});
  big_endian[EI_DATA] = ELFDATA2MSB;
  EXPECT_TRUE(has(artifact_problem(big_endian, artifact_kind::host_shared_library), "wrote no ELF file"));
}

TEST(artifact, elf_files_of_the_wrong_kind_or_without_the_symbol_are_refused) {
  const auto host = rt::detail::artifact_impl::host_machine();
  if (host == 0) GTEST_SKIP() << "unknown host machine";
  const auto lib = make_elf(host, ET_DYN, {"rocm_gemm_0", "other"});
  EXPECT_EQ(artifact_problem(lib, artifact_kind::host_shared_library, {{"rocm_gemm_0"}}), "");
  EXPECT_EQ(rt::elf_defined_symbols(lib), (std::vector<std::string>{"rocm_gemm_0", "other"}));
  EXPECT_TRUE(has(artifact_problem(lib, artifact_kind::host_shared_library, {{"undefined_import"}}),
                  "has no symbol undefined_import"));
  EXPECT_TRUE(has(artifact_problem(make_elf(host, ET_REL, {"rocm_gemm_0"}), artifact_kind::host_shared_library),
                  "relocatable object, not the shared library"));
  EXPECT_TRUE(has(artifact_problem(make_elf(rt::detail::artifact_impl::elf_machine_cuda, ET_EXEC, {}),
                                   artifact_kind::host_shared_library),
                  "wrote a CUDA executable, not the shared library"));

  // AMD: one AMDGPU ELF, or a bundle whose every GPU entry has the kernels.
  const auto gfx90a = make_elf(rt::detail::artifact_impl::elf_machine_amdgpu, ET_DYN, {"k_main", "k_main.kd"});
  const auto gfx940 = make_elf(rt::detail::artifact_impl::elf_machine_amdgpu, ET_DYN, {"k_other"});
  EXPECT_EQ(artifact_problem(gfx90a, artifact_kind::amd_code_object, {{"k_main"}}), "");
  const auto bundle = make_bundle({{"host-x86_64-unknown-linux", ""},
                                   {"hipv4-amdgcn-amd-amdhsa--gfx90a", gfx90a},
                                   {"hipv4-amdgcn-amd-amdhsa--gfx940", gfx940}});
  EXPECT_EQ(artifact_problem(bundle, artifact_kind::amd_code_object), "");
  EXPECT_EQ(artifact_problem(bundle, artifact_kind::amd_code_object, {{"k_main", "k_other"}}),
            "its gfx90a code object has no symbol k_other (2 symbols defined)");
  // None of a code object's kernels: no device code for that target (the Hopper path built for AMD,
  // whose entry refuses every call there) passes; a shared library without its entry does not.
  EXPECT_EQ(artifact_problem(bundle, artifact_kind::amd_code_object, {{"k_sm90"}}), "");
  EXPECT_TRUE(
      has(artifact_problem(make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", lib}}), artifact_kind::amd_code_object),
          "not the gfx90a code object"));
  EXPECT_EQ(artifact_problem(make_bundle({{"host-x86_64-unknown-linux", ""}}), artifact_kind::amd_code_object),
            "wrote an offload bundle without a GPU code object");
  EXPECT_TRUE(has(artifact_problem(bundle.substr(0, bundle.size() - 10), artifact_kind::amd_code_object), "damaged"));
  EXPECT_EQ(artifact_problem("CCOB compressed", artifact_kind::amd_code_object, {{"k_main"}}), "");
  // A code object needs the kernels of one launch variant: another variant's may be for another
  // platform (a Hopper-only kernel is compiled out for AMD).
  EXPECT_EQ(artifact_problem(gfx90a, artifact_kind::amd_code_object, {{"k_sm90", "k_main"}, {"k_main", "k_main.kd"}}),
            "");
  EXPECT_EQ(artifact_problem(gfx90a, artifact_kind::amd_code_object, {{"k_sm90"}, {"k_main", "k_tail"}}),
            "its AMD GPU code object has no symbol k_sm90, nor every kernel of another of its 1 launch variants (2 "
            "symbols defined)");
  EXPECT_EQ(artifact_problem(lib, artifact_kind::host_shared_library, {{"rocm_gemm_1"}}),
            "its shared library has no symbol rocm_gemm_1 (2 symbols defined)");

  // NVIDIA: a cubin (an ELF for the CUDA machine), or a fat binary of them.
  const auto cubin = make_elf(rt::detail::artifact_impl::elf_machine_cuda, ET_EXEC, {"k_main"});
  EXPECT_EQ(artifact_problem(cubin, artifact_kind::nvidia_code_object, {{"k_main"}}), "");
  EXPECT_TRUE(has(artifact_problem(cubin, artifact_kind::nvidia_code_object, {{"k_main", "k_tail"}}),
                  "its cubin has no symbol k_tail"));
  EXPECT_EQ(artifact_problem(make_fatbin({cubin, cubin}), artifact_kind::nvidia_code_object, {{"k_main"}}), "");
  EXPECT_TRUE(has(artifact_problem(make_fatbin({cubin}), artifact_kind::nvidia_code_object, {{"k_main", "k_tail"}}),
                  "has no symbol k_tail"));
  EXPECT_EQ(artifact_problem(make_fatbin({"compressed bytes"}, true), artifact_kind::nvidia_code_object, {{"k_tail"}}),
            "");  // unreadable without the decompressor: the header is what is checked
  EXPECT_TRUE(has(artifact_problem(make_fatbin({cubin}).substr(0, 40), artifact_kind::nvidia_code_object),
                  "damaged CUDA fat binary"));
}

TEST(artifact, real_gpu_code_objects_pass_where_the_compilers_are_installed) {
  temp_dir dir;
  rocmtpl::test::write_file(dir / "k.cu",
                            "extern \"C\" __global__ void rocmtpl_probe_kernel(float* x) { x[0] = 1; }\n");
  int checked = 0;
  if (const auto hip = rocmtpl::test::find_compiler(rt::platform::amd)) {
    const auto r = rt::run_process({hip->path().string(), "-x", "hip", "--offload-arch=gfx90a", "--offload-arch=gfx940",
                                    "--genco", "-o", (dir / "k.co").string(), (dir / "k.cu").string()},
                                   {.env = hip->environment(), .timeout = std::chrono::seconds(300)});
    ASSERT_TRUE(r.ok()) << r.output;
    const auto bytes = rocmtpl::test::read_file(dir / "k.co");
    EXPECT_EQ(artifact_problem(bytes, artifact_kind::amd_code_object, {{"rocmtpl_probe_kernel"}}), "");
    EXPECT_TRUE(has(artifact_problem(bytes, artifact_kind::amd_code_object, {{"rocmtpl_probe_kernel", "rocm_gemm_0"}}),
                    "code object has no symbol rocm_gemm_0"));
    ++checked;
  }
  if (const auto nv = rocmtpl::test::find_compiler(rt::platform::nvidia)) {
    for (const char* form : {"-cubin", "-fatbin"}) {
      const auto out = dir / (std::string("k") + form);
      const auto r = rt::run_process({nv->path().string(), form, "-gencode", "arch=compute_80,code=sm_80", "-o",
                                      out.string(), "-x", "cu", (dir / "k.cu").string()},
                                     {.timeout = std::chrono::seconds(300)});
      ASSERT_TRUE(r.ok()) << r.output;
      const auto bytes = rocmtpl::test::read_file(out);
      EXPECT_EQ(artifact_problem(bytes, artifact_kind::nvidia_code_object, {{"rocmtpl_probe_kernel"}}), "") << form;
      EXPECT_TRUE(
          has(artifact_problem(bytes, artifact_kind::nvidia_code_object, {{"rocmtpl_probe_kernel", "rocm_gemm_0"}}),
              "has no symbol rocm_gemm_0"))
          << form;
    }
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "neither hipcc nor nvcc installed";
}

// A compiler that exits 0 after writing garbage: a compile failure with the reason, of the
// environment (never remembered), and nothing enters the cache: the next call compiles again.
TEST(artifact, a_compiler_that_writes_garbage_fails_the_compile_and_caches_nothing) {
  temp_dir dir;
  const auto fake = rocmtpl::test::write_script(dir / "garbagecc",
                                                "if [ \"$1\" = --version ]; then echo 'fake 1.0'; exit 0; fi\n"
                                                "echo run >> '" +
                                                    (dir / "runs").string() +
                                                    "'\n"
                                                    "prev=; for a in \"$@\"; do if [ \"$prev\" = -o ]; then echo "
                                                    "'garbage' > \"$a\"; fi; prev=$a; done\nexit 0\n");
  rt::code_cache cache(dir / "cache");
  const rt::compiler cc(rt::platform::amd, fake);
  rt::compile_options o;
  o.platform = rt::platform::amd;
  o.archs = {"gfx90a"};
  o.output = rt::compile_output::code_object;
  o.required_symbols = {{"rocm_gemm_0_main"}};
  for (int attempt = 1; attempt <= 2; ++attempt) {
    try {
      (void)cache.get_or_compile(cc, "__global__ void k() {}\n", o);
      FAIL() << "garbage was accepted";
    } catch (const rt::compile_error& e) {
      const std::string what = e.what();
      EXPECT_TRUE(has(what,
                      "garbagecc exited 0 but wrote neither an offload bundle nor an ELF file for the AMD GPU "
                      "code object (its first bytes: 67 61 72 62 61 67 65 0a \"garbage.\")"))
          << what;
      EXPECT_TRUE(has(what, "/code.co)")) << what;
      EXPECT_FALSE(has(what, ".build-")) << "names the staging folder: " << what;
      EXPECT_EQ(e.failure(), rt::compile_failure::environment);
      EXPECT_FALSE(e.cached());
    }
    EXPECT_EQ(cache.compiles(), static_cast<std::size_t>(attempt)) << "the compiler did not run again";
  }
  const auto entry = cache.entry_dir(cache.key(cc, "__global__ void k() {}\n", o));
  for (const char* f : {"code.co", "meta.json", "error.json"}) EXPECT_FALSE(fs::exists(entry / f)) << f;
  EXPECT_EQ(cache.lookup(cc, "__global__ void k() {}\n", o), std::nullopt);
}

}  // namespace
