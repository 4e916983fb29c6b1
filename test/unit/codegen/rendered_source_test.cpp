// SPDX-License-Identifier: MIT
// codegen/rendered_source.hpp: the translation unit assembled from its parts, the entry declared
// from its name, signature and linkage, and the packed twin and signature function rendered from
// the signature, the exported ones guarded out of device-only compiles.
#include <rocmtpl/codegen/rendered_source.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using namespace rocmtpl;

rendered_source sample() {
  rendered_source s;
  s.includes = {"#include <a.h>\n", "#if X\n#include <b.h>\n#endif\n"};
  s.globals = "#define G 1\n";
  s.device_code = "namespace {\n}  // namespace\n";
  s.entry_name = "k";
  s.signature.params = {{"X", param_kind::tensor_in, "const float*"},
                        {"Y", param_kind::tensor_out, "float*"},
                        {"u_M", param_kind::size, "int64_t"},
                        {"split", param_kind::runtime_arg, "int32_t"}};
  s.entry_body = "    return 0;\n";
  return s;
}

TEST(RenderedSource, IncludesThenGlobalsEachFollowedByABlankLineThenCodeAndEntry) {
  const auto s = sample();
  const std::string entry =
      "extern \"C\" PT_EXPORT int k(const float* X, float* Y, int64_t u_M, int32_t split, size_t* workspace_size, "
      "uint8_t* workspace, hipStream_t stream) {\n    return 0;\n}\n";
  // An exported entry, its packed twin and its signature function drop out of device-only compiles.
  const std::string guarded = "#if !defined(ROCMTPL_DEVICE_ONLY)\n" + entry + packed_entry_text("k", s.signature) +
                              "#endif  // !ROCMTPL_DEVICE_ONLY\n";
  // The kernel's code sits between the device-symbol macro's definition (from the entry's name) and
  // its #undef.
  EXPECT_EQ(s.str(),
            "#include <a.h>\n#if X\n#include <b.h>\n#endif\n\n#define G 1\n\n"
            "#define ROCMTPL_KERNEL_SYMBOL(suffix) k_##suffix\nnamespace {\n}  // namespace\n" +
                guarded + "#undef ROCMTPL_KERNEL_SYMBOL\n");
  EXPECT_EQ(s.entry(), guarded);
}

// Device symbols follow the entry's name through the macro: renaming the kernel changes the
// definition of the macro, never the device code or the entry body that use it.
TEST(RenderedSource, DeviceSymbolsFollowTheEntryNameThroughTheMacro) {
  auto s = sample();
  s.device_code = "extern \"C\" __global__ void " + device_symbol_ref("main") + "() {}\n";
  s.entry_body = "    " + device_symbol_ref("main") + "<<<1, 1>>>();\n    return 0;\n";
  const auto before = s.kernel_text();
  EXPECT_EQ(s.symbol_definition(), "#define ROCMTPL_KERNEL_SYMBOL(suffix) k_##suffix\n");
  EXPECT_EQ(before, s.symbol_definition() + s.device_code + s.entry() + "#undef ROCMTPL_KERNEL_SYMBOL\n");
  s.entry_name = "rocm_fused_gemm_2";
  const auto after = s.kernel_text();
  EXPECT_EQ(after, "#define ROCMTPL_KERNEL_SYMBOL(suffix) rocm_fused_gemm_2_##suffix\n" + s.device_code + s.entry() +
                       "#undef ROCMTPL_KERNEL_SYMBOL\n");
  EXPECT_TRUE(after.find("ROCMTPL_KERNEL_SYMBOL(main)<<<") != std::string::npos) << after;
  EXPECT_TRUE(s.str().ends_with(after));
}

TEST(RenderedSource, TheEntryIsDeclaredFromItsFields) {
  auto s = sample();
  s.entry_name = "renamed";
  EXPECT_EQ(s.declaration(), "extern \"C\" PT_EXPORT " + s.signature.declaration("renamed"));
  s.linkage = entry_linkage::internal;
  EXPECT_EQ(s.declaration(), "static " + s.signature.declaration("renamed"));
  // An internal entry has no exported twins: the module that holds it exports its own.
  EXPECT_EQ(s.entry(), s.declaration() + " {\n    return 0;\n}\n");
  EXPECT_EQ(entry_declaration("renamed", s.signature), "extern \"C\" PT_EXPORT " + s.signature.declaration("renamed"));
}

// Each parameter is read from its slot through its own type: tensors as the `void*` the slot holds,
// converted to the parameter's pointer type; sizes and runtime arguments as their C type.
TEST(RenderedSource, PackedEntryReadsEachSlotThroughItsType) {
  const auto s = sample();
  const auto text = packed_entry_text("k", s.signature);
  EXPECT_EQ(text,
            "// The uniform entry: args[i] points to parameter i's value (a tensor's address as a void*).\n"
            "extern \"C\" PT_EXPORT int k_packed(void* const* args, size_t* workspace_size, uint8_t* workspace, void* "
            "stream) {\n"
            "    return k(static_cast<const float*>(*static_cast<void* const*>(args[0])),\n"
            "        static_cast<float*>(*static_cast<void* const*>(args[1])),\n"
            "        *static_cast<const int64_t*>(args[2]),\n"
            "        *static_cast<const int32_t*>(args[3]),\n"
            "        workspace_size, workspace, static_cast<hipStream_t>(stream));\n"
            "}\n"
            "// The entry's declaration, for loaders that check a library they did not render.\n"
            "extern \"C\" PT_EXPORT const char* k_signature(void) { return \"" +
                s.signature.declaration("k") + "\"; }\n");
  EXPECT_EQ(packed_entry_name("k"), "k_packed");
  EXPECT_EQ(signature_function_name("k"), "k_signature");
}

TEST(RenderedSource, PackedEntryOfAnEntryWithoutParameters) {
  const auto text = packed_entry_text("none", entry_signature{});
  EXPECT_NE(text.find("    (void)args;\n    return none(workspace_size, workspace, static_cast<hipStream_t>(stream));"),
            std::string::npos)
      << text;
}
}  // namespace
