// SPDX-License-Identifier: MIT
#include <rocmtpl/rocm_template.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;

// A small elementwise policy: Y = X + Z, with a runtime argument. It binds its inputs in the order
// given by `swap` so that a wrong binding can be provoked.
struct add_config {
  int block = 256;
  friend bool operator==(const add_config&, const add_config&) = default;
};
inline std::vector<std::pair<std::string, std::string>> describe(const add_config& c) {
  return {{"block", std::to_string(c.block)}};
}
struct add_policy {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = add_config;
  static constexpr rocmtpl::kernel_capabilities capabilities{.runtime_args = true};
  bool swap = false;
  static std::string_view name() { return "add"; }
  std::vector<add_config> configs() const { return {{128}, {256}}; }
  std::vector<rocmtpl::arg_info> runtime_arg_info() const { return {{"repeat", "int32_t"}}; }
  std::vector<rocmtpl::runtime_arg_value> runtime_arg_values(const add_config& c) const { return {c.block / 128}; }
  bool rename_entry = false;  // a broken template: parts whose entry is not the kernel's
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx,
                                  const add_config& c) const {
    const buffer* a = ctx.input(0);
    const buffer* b = ctx.input(1);
    (void)(swap ? k.def_kernel({b, a}, {&ctx.output_node()}, "Z, X, Y")
                : k.def_kernel({a, b}, {&ctx.output_node()}, "X, Z, Y", ctx.input_reorder()));
    auto s = k.start_source(ctx);
    s.device_code = "// block " + std::to_string(c.block) + "\n";
    s.entry_body = "    return 0;\n";
    if (rename_entry) s.entry_name = "other";
    return s;
  }
};
static_assert(rocmtpl::kernel_template<add_policy>);

rocmtpl::rocm_template<add_policy> make(bool swap = false) {
  auto l = layout::row_major(dtype::f32, {sym_expr::symbol("n")});
  return {add_policy{swap, false}, {buffer("x", l), buffer("z", l)}, l};
}

TEST(RocmTemplate, GenerateNamesKernelAndChoice) {
  auto t = make();
  auto caller = t.generate({256}, {{"n", 1000}});
  EXPECT_EQ(caller.bmreq().kernel_name, "rocm_add");
  EXPECT_TRUE(std::regex_match(caller.name(), std::regex("rocm_add_[0-9]+"))) << caller.name();
  auto next = t.generate({256}, {{"n", 1000}});
  EXPECT_NE(next.name(), caller.name());
  EXPECT_EQ(caller.category(), "add");
  EXPECT_EQ(caller.call_name(), "rocm_template_kernels." + caller.name());
  EXPECT_NE(caller.source().find("int rocm_add(const float* X, const float* Z, float* Y, int64_t u_n, int32_t repeat"),
            std::string::npos);
}

TEST(RocmTemplate, BenchmarkRequestHasHintsAndRuntimeValues) {
  auto t = make();
  auto caller = t.generate({256}, {{"n", 1000}});
  const auto& r = caller.bmreq();
  EXPECT_EQ(r.extra_args, (std::vector<std::int64_t>{1000, 2}));
  EXPECT_EQ(r.size_arg_count, 1U);
  ASSERT_EQ(r.input_tensor_meta.size(), 2U);
  EXPECT_EQ(r.input_tensor_meta[0].name, "x");
  EXPECT_EQ(r.input_tensor_meta[0].sizes, (std::vector<std::int64_t>{1000}));
  EXPECT_EQ(r.output_tensor_meta.name, "buf_out");
  // Runtime args are part of the key: same source, other value -> other key.
  auto other = t.generate({128}, {{"n", 1000}});
  EXPECT_NE(other.hash_key(), caller.hash_key());
  EXPECT_EQ(caller.hash_key().rfind("add-", 0), 0U);
}

TEST(RocmTemplate, MissingHintIsNamed) {
  auto t = make();
  try {
    (void)t.generate({256});
    FAIL();
  } catch (const rocmtpl::evaluation_error& e) {
    EXPECT_NE(std::string(e.what()).find('n'), std::string::npos);
  }
}

TEST(RocmTemplate, ExpectedArgumentsAreChecked) {
  auto t = make(/*swap=*/true);
  try {
    (void)t.generate({256}, {{"n", 4}});
    FAIL();
  } catch (const rocmtpl::template_error& e) {
    EXPECT_NE(std::string(e.what()).find("do not start with the expected [x, z, buf_out]"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.template_name(), std::string(t.name()));
  }
}

TEST(RocmTemplate, GenerateReferenceNeedsTheDeclaredCapability) {
  auto t = make();
  static_assert(!decltype(t)::has_reference());
  try {
    (void)t.generate_reference({{"n", 4}});
    FAIL();
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not declare the reference capability"), std::string::npos) << e.what();
  }
}

// The request carries the entry's signature as the parts declared it, and the source is the parts'
// translation unit: the entry, its packed twin and its signature function.
TEST(RocmTemplate, RequestCarriesTheEntrySignature) {
  auto t = make();
  const auto caller = t.generate({256}, {{"n", 8}});
  const auto& sig = caller.bmreq().signature;
  ASSERT_EQ(sig.params.size(), 5U);
  EXPECT_EQ(sig.params[0], (rocmtpl::entry_param{"X", rocmtpl::param_kind::tensor_in, "const float*"}));
  EXPECT_EQ(sig.params[2], (rocmtpl::entry_param{"Y", rocmtpl::param_kind::tensor_out, "float*"}));
  EXPECT_EQ(sig.params[3], (rocmtpl::entry_param{"u_n", rocmtpl::param_kind::size, "int64_t"}));
  EXPECT_EQ(sig.params[4], (rocmtpl::entry_param{"repeat", rocmtpl::param_kind::runtime_arg, "int32_t"}));
  const auto& src = caller.source();
  EXPECT_NE(src.find("extern \"C\" PT_EXPORT int rocm_add_packed(void* const* args"), std::string::npos) << src;
  EXPECT_NE(src.find("return \"" + sig.declaration("rocm_add") + "\";"), std::string::npos) << src;
}

TEST(RocmTemplate, PartsMustDeclareTheKernelsEntry) {
  auto l = layout::row_major(dtype::f32, {4});
  add_policy broken;
  broken.rename_entry = true;
  rocmtpl::rocm_template<add_policy> t(broken, {buffer("x", l), buffer("z", l)}, l);
  EXPECT_THROW((void)t.generate({256}), rocmtpl::template_error);
}

TEST(RocmTemplate, InputReorderMustBeAPermutation) {
  auto l = layout::row_major(dtype::f32, {4});
  EXPECT_THROW(
      rocmtpl::rocm_template<add_policy>(add_policy{}, {buffer("x", l), buffer("z", l)}, l, std::vector<int>{1, 1}),
      rocmtpl::invalid_argument_error);
  rocmtpl::rocm_template<add_policy> t(add_policy{}, {buffer("x", l), buffer("z", l)}, l, std::vector<int>{1, 0});
  auto caller = t.generate({256});
  EXPECT_NE(caller.source().find("(const float* Z, const float* X, float* Y"), std::string::npos) << caller.source();
}

TEST(RocmTemplate, GlobalsHaveExportAndBfloat16Alias) {
  auto g = make().globals().str();
  EXPECT_NE(g.find("#define PT_EXPORT __attribute__((__visibility__(\"default\")))"), std::string::npos);
  EXPECT_NE(g.find("using bfloat16 = hip_bfloat16;"), std::string::npos);
  EXPECT_NE(g.find("#define ROCMTPL_STATUS_NULL_ARGUMENT 2"), std::string::npos);
  EXPECT_NE(make().header().str().find("#include \"rocmtpl_hip_portable.h\""), std::string::npos);
}

TEST(RocmTemplate, MakeKernelRenderUsesThePlaceholder) {
  auto t = make();
  auto caller = t.generate({256}, {{"n", 8}});
  auto node = caller.output_node();
  EXPECT_EQ(node.get_workspace_size(), 0U);  // not queried yet -> 0
  EXPECT_EQ(node.template_name(), "add");
  auto [kernel, render] = node.make_kernel_render();
  auto parts = render();
  EXPECT_EQ(kernel->kernel_name(), "KERNEL_NAME");
  EXPECT_EQ(parts.entry_name, "KERNEL_NAME");
  EXPECT_EQ(parts.signature, caller.bmreq().signature);
  const auto src = parts.str();
  EXPECT_NE(src.find("int KERNEL_NAME("), std::string::npos);
  EXPECT_EQ(src.find("rocm_add("), std::string::npos);
  EXPECT_THROW((void)node.make_kernel_render({buffer("e", layout::row_major(dtype::f32, {4}))}),
               rocmtpl::invalid_argument_error);
  caller.bmreq().workspace_size = 128;
  EXPECT_EQ(caller.output_node().get_workspace_size(), 128U);
}

TEST(RocmTemplate, InfoDictAndToString) {
  auto caller = make().generate({128}, {{"n", 8}});
  auto info = caller.info_dict();
  ASSERT_EQ(info.size(), 3U);
  EXPECT_EQ(info[0], (std::pair<std::string, std::string>{"backend", "ROCm"}));
  EXPECT_EQ(info[2], (std::pair<std::string, std::string>{"block", "128"}));
  EXPECT_NE(caller.to_string().find("block: 128"), std::string::npos);
}

TEST(RocmTemplate, GenerateAllCoversTheSearchSpace) { EXPECT_EQ(make().generate_all({{"n", 8}}).size(), 2U); }

// A policy that describes its launch (one kernel `<entry>_main`) and counts the describe_launch
// calls; with `in_parts` its render() returns the description in the parts as well, and with
// `misnamed` that description names another kernel.
struct launching_policy : add_policy {
  static constexpr rocmtpl::kernel_capabilities capabilities{.runtime_args = true, .launch = true};
  std::shared_ptr<int> describe_calls = std::make_shared<int>(0);
  bool in_parts = true;
  bool misnamed = false;
  rocmtpl::launch_description launch(const rocmtpl::rocm_template_kernel& k, const add_config& c) const {
    auto d = rocmtpl::launch_description_for(misnamed ? "other" : k.kernel_name(), k.args());
    rocmtpl::kernel_launch l;
    l.suffix = "main";
    l.block = {c.block, 1, 1};
    d.variants.push_back({{}, {l}});
    return d;
  }
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx,
                                  const add_config& c) const {
    auto s = add_policy::render(k, ctx, c);
    if (in_parts) s.launch = launch(k, c);
    return s;
  }
  rocmtpl::launch_description describe_launch(rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx,
                                              const add_config& c) const {
    ++*describe_calls;
    (void)add_policy::render(k, ctx, c);  // binds the tensors
    return launch(k, c);
  }
};
static_assert(rocmtpl::kernel_template<launching_policy>);

// generate() takes the launch description from the parts the render returned: the configuration is
// rendered and described in one pass (describe_launch is not called), and the description is the
// one describe_launch gives. A policy whose parts carry none is described on a kernel of its own.
TEST(RocmTemplate, GenerateDescribesTheLaunchInTheRenderingPass) {
  auto l = layout::row_major(dtype::f32, {sym_expr::symbol("n")});
  launching_policy p;
  rocmtpl::rocm_template<launching_policy> t(p, {buffer("x", l), buffer("z", l)}, l);
  const auto caller = t.generate({128}, {{"n", 8}});
  EXPECT_EQ(*p.describe_calls, 0);
  ASSERT_TRUE(caller.launch());
  rocmtpl::rocm_template_kernel k("rocm_add", p.runtime_arg_info(), p.runtime_arg_values({128}));
  EXPECT_EQ(*caller.launch(), p.describe_launch(k, t.context(), {128}));
  EXPECT_EQ(rocmtpl::bind(*caller.launch(), {8}, {1}).variants.at(0).launches.at(0).symbol, "rocm_add_main");
  *p.describe_calls = 0;
  launching_policy without = p;
  without.in_parts = false;
  rocmtpl::rocm_template<launching_policy> t2(without, {buffer("x", l), buffer("z", l)}, l);
  const auto described = t2.generate({128}, {{"n", 8}});
  EXPECT_EQ(*p.describe_calls, 1);
  ASSERT_TRUE(described.launch());
  EXPECT_EQ(*described.launch(), *caller.launch());
  // A description in the parts must name the entry's symbols.
  launching_policy misnamed = p;
  misnamed.misnamed = true;
  rocmtpl::rocm_template<launching_policy> t3(misnamed, {buffer("x", l), buffer("z", l)}, l);
  EXPECT_THROW((void)t3.generate({128}, {{"n", 8}}), rocmtpl::template_error);
}
// A policy that describes its workspace (`block * n` bytes, negative for a negative block) and names
// its size arguments: `rows` first although no tensor uses it, then `n`.
struct described_policy : add_policy {
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .runtime_args = true, .workspace = true, .size_args = true};
  sym_expr workspace_bytes(const rocmtpl::template_context&, const add_config& c) const {
    return sym_expr(c.block) * sym_expr::symbol("n");
  }
  std::vector<sym_expr> size_args(const rocmtpl::template_context&) const {
    return {sym_expr::symbol("rows"), sym_expr::symbol("n")};
  }
};
static_assert(rocmtpl::kernel_template<described_policy>);

rocmtpl::rocm_template<described_policy> make_described() {
  auto l = layout::row_major(dtype::f32, {sym_expr::symbol("n")});
  return {described_policy{}, {buffer("x", l), buffer("z", l)}, l};
}

TEST(RocmTemplate, NamedSizeArgumentsGiveTheEntryPointsOrder) {
  auto t = make_described();
  auto caller = t.generate({128}, {{"n", 10}, {"rows", 3}});
  EXPECT_NE(caller.source().find("int rocm_add(const float* X, const float* Z, float* Y, int64_t u_rows, int64_t u_n, "
                                 "int32_t repeat"),
            std::string::npos)
      << caller.source();
  EXPECT_EQ(caller.bmreq().extra_args, (std::vector<std::int64_t>{3, 10, 1}));
  EXPECT_EQ(caller.bmreq().size_arg_names, (std::vector<std::string>{"rows", "n"}));
  EXPECT_EQ(caller.bmreq().size_arg_count, 2U);
  // The placeholder rendering for scheduling has the same parameters.
  auto [kernel, render] = caller.output_node().make_kernel_render();
  EXPECT_NE(
      render().str().find("int KERNEL_NAME(const float* X, const float* Z, float* Y, int64_t u_rows, int64_t u_n,"),
      std::string::npos);
  EXPECT_EQ(kernel->args().size_symbols(), (std::vector<std::string>{"rows", "n"}));
  // Every named argument needs a hint.
  EXPECT_THROW((void)t.generate({128}, {{"n", 10}}), rocmtpl::evaluation_error);
}

// output_node() learns the workspace first (the reference's update_workspace_size): from the
// description, at the hints, without compiling; the node also carries the expression.
TEST(RocmTemplate, OutputNodeHasTheDescribedWorkspace) {
  auto t = make_described();
  auto caller = t.generate({256}, {{"n", 10}, {"rows", 1}});
  ASSERT_TRUE(caller.bmreq().workspace_bytes);
  EXPECT_FALSE(caller.bmreq().workspace_size);
  const auto node = caller.output_node();
  EXPECT_EQ(node.get_workspace_size(), 2560U);
  ASSERT_TRUE(node.workspace_bytes());
  EXPECT_EQ(*node.workspace_bytes(), sym_expr(256) * sym_expr::symbol("n"));
  EXPECT_EQ(caller.bmreq().workspace_size, std::optional<std::size_t>(2560));
  EXPECT_TRUE(caller.bmreq().library_path.empty());
  // A negative description is the template's bug, reported with its name.
  auto negative = t.generate({-128}, {{"n", 10}, {"rows", 1}});
  try {
    (void)negative.output_node();
    FAIL() << "expected template_error";
  } catch (const rocmtpl::template_error& e) {
    EXPECT_NE(std::string(e.what()).find("template 'add' describes a workspace of -1280 bytes"), std::string::npos)
        << e.what();
  }
}

// Without a description and without a backend, the size stays unknown: 0, and no expression (the
// scheduler asks the kernel at run time). What else the program links cannot change that.
TEST(RocmTemplate, UndescribedWorkspaceStaysUnknownInThePureLayer) {
  auto caller = make().generate({256}, {{"n", 8}});
  const auto node = caller.output_node();
  EXPECT_EQ(node.get_workspace_size(), 0U);
  EXPECT_FALSE(node.workspace_bytes());
  EXPECT_FALSE(caller.bmreq().workspace_size);
  // A size the runtime's query stored is kept; with no size argument it holds for every call.
  auto fixed_layout = layout::row_major(dtype::f32, {16});
  rocmtpl::rocm_template<add_policy> fixed(add_policy{}, {buffer("x", fixed_layout), buffer("z", fixed_layout)},
                                           fixed_layout);
  auto fixed_caller = fixed.generate({256});
  fixed_caller.bmreq().workspace_size = 96;
  EXPECT_EQ(*fixed_caller.output_node().workspace_bytes(), sym_expr(96));
  caller.bmreq().workspace_size = 96;
  EXPECT_FALSE(caller.output_node().workspace_bytes());  // size argument n: only at the hint
  EXPECT_EQ(caller.output_node().get_workspace_size(), 96U);
}

// Issue 22 item 6: an output whose elements overlap for its constant strides is refused when the
// template is made (config_error naming the output, its sizes and strides); inputs may broadcast
// and overlap; a transposed or padded output is fine, and one whose symbols decide is left to the
// entry point's run-time check.
TEST(RocmTemplate, RefusesOverlappingStaticOutputStridesWhenMade) {
  const sym_expr n = sym_expr::symbol("n");
  const auto in = layout::row_major(dtype::f32, {4, 8});
  const auto make_with = [&](const layout& out, const layout& input) {
    return rocmtpl::rocm_template<add_policy>(add_policy{}, {buffer("x", input), buffer("z", input)}, out);
  };
  const std::vector<std::pair<layout, std::string>> bad{
      {layout(dtype::f32, {4, 8}, {4, 1}), "float32[4, 8] strides [4, 1] offset 0"},                // rows overlap
      {layout(dtype::f32, {4, 8}, {0, 1}), "float32[4, 8] strides [0, 1] offset 0"},                // stride 0
      {layout(dtype::f32, {4, 8}, {1, 2}), "float32[4, 8] strides [1, 2] offset 0"},                // columns overlap
      {layout(dtype::f32, {2, 4, 8}, {16, 8, 1}), "float32[2, 4, 8] strides [16, 8, 1] offset 0"},  // batches overlap
      {layout(dtype::f32, {2, 4, 8}, {32, 4, 1}), "float32[2, 4, 8] strides [32, 4, 1] offset 0"},  // rows of a batch
      {layout(dtype::f32, {n, 8}, {6, 1}), "float32[n, 8] strides [6, 1] offset 0"},                // as soon as n > 1
  };
  for (const auto& [out, text] : bad) {
    try {
      (void)make_with(out, in);
      ADD_FAILURE() << text << " was accepted";
    } catch (const rocmtpl::config_error& e) {
      EXPECT_EQ(e.config(), "output 'buf_out' " + text);
      EXPECT_NE(std::string(e.what()).find("rocmtpl: add: invalid config output 'buf_out' " + text + ": "),
                std::string::npos)
          << e.what();
      EXPECT_NE(e.reason().find("dimension"), std::string::npos) << e.reason();
    }
  }
  // Legal outputs: transposed, padded rows, batched with padding, a broadcast dimension of one element.
  for (const auto& out : {layout(dtype::f32, {4, 8}, {1, 4}), layout(dtype::f32, {4, 8}, {16, 1}, 3),
                          layout(dtype::f32, {2, 4, 8}, {40, 10, 1}), layout(dtype::f32, {2, 4, 8}, {8, 16, 1}),
                          layout(dtype::f32, {1, 8}, {0, 1}), layout(dtype::f32, {n, 8}, {8, 1}),
                          layout(dtype::f32, {n, 8}, {sym_expr::symbol("ld"), 1})}) {
    EXPECT_NO_THROW((void)make_with(out, in)) << out.to_string();
  }
  // Inputs may broadcast (stride 0) and overlap.
  EXPECT_NO_THROW((void)make_with(in, layout(dtype::f32, {4, 8}, {0, 1})));
  EXPECT_NO_THROW((void)make_with(in, layout(dtype::f32, {4, 8}, {1, 1})));
}

}  // namespace
