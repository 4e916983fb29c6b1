// SPDX-License-Identifier: MIT
#include <rocmtpl/kernel/rocm_kernel.hpp>

#include <gtest/gtest.h>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::entry_param;
using rocmtpl::layout;
using rocmtpl::param_kind;
using rocmtpl::rocm_template_kernel;
using rocmtpl::sym_expr;

const sym_expr M = sym_expr::symbol("M");
const sym_expr N = sym_expr::symbol("N");

struct Nodes {
  buffer x{"x", layout::row_major(dtype::f16, {M, 64})};
  buffer w{"w", layout::row_major(dtype::f16, {64, N})};
  buffer bias{"bias", layout::row_major(dtype::f32, {N})};
  buffer y{"buf_out", layout::row_major(dtype::f16, {M, N})};
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const rocmtpl::error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(RocmTemplateKernel, DefKernelFollowsTheCAbi) {
  Nodes n;
  rocm_template_kernel k("rocm_gemm", {{"split_k", "int32_t"}}, {4});
  auto sig = k.def_kernel({&n.x, &n.w}, {&n.y}, "X, W, Y");
  EXPECT_EQ(sig,
            "extern \"C\" PT_EXPORT int rocm_gemm(const uint16_t* X, const uint16_t* W, uint16_t* Y, int64_t u_M, "
            "int64_t u_N, int32_t split_k, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
  EXPECT_EQ(k.arg_name(&n.x), "X");
  EXPECT_EQ(k.arg_name(&n.bias), std::nullopt);
  EXPECT_EQ(k.arg_name(nullptr), std::nullopt);
  EXPECT_EQ(k.named_nodes().at("W"), n.w);
}

TEST(RocmTemplateKernel, InputReorderGivesTheCallersOrder) {
  Nodes n;
  rocm_template_kernel k("rocm_addmm");
  // The template names [X, W, Bias]; the caller passes [Bias, X, W] -> input_reorder {2, 0, 1}.
  (void)k.def_kernel({&n.x, &n.w, &n.bias}, {&n.y}, "X, W, Bias, Y", std::vector<int>{2, 0, 1});
  const auto params = k.args().signature().params;
  ASSERT_GE(params.size(), 4U);
  EXPECT_EQ((std::vector<entry_param>{params.begin(), params.begin() + 4}),
            (std::vector<entry_param>{{"Bias", param_kind::tensor_in, "const float*"},
                                      {"X", param_kind::tensor_in, "const uint16_t*"},
                                      {"W", param_kind::tensor_in, "const uint16_t*"},
                                      {"Y", param_kind::tensor_out, "uint16_t*"}}));
  EXPECT_EQ(k.args().call_args().front(), "bias");
}

TEST(RocmTemplateKernel, NullInputsAreSkipped) {
  Nodes n;
  rocm_template_kernel k("rocm_gemm");
  (void)k.def_kernel({&n.x, &n.w, nullptr}, {&n.y}, "X, W, Bias, Y");
  const auto sig = k.args().signature();
  EXPECT_EQ(sig.count(param_kind::tensor_in), 2U);
  for (const auto& p : sig.params) EXPECT_NE(p.name, "Bias");
}

TEST(RocmTemplateKernel, NameCountMismatchShowsBothCountsAndNames) {
  Nodes n;
  rocm_template_kernel k("rocm_gemm");
  auto msg = message_of([&] { (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, Y"); });
  EXPECT_NE(msg.find("2 inputs + 1 outputs = 3 but 2 names were given: [X, Y]"), std::string::npos) << msg;
}

TEST(RocmTemplateKernel, BadReorderAndNamesAreRejected) {
  Nodes n;
  auto reorder = message_of([&] {
    rocm_template_kernel k("rocm_gemm");
    (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, W, Y", std::vector<int>{0, 0});
  });
  EXPECT_NE(reorder.find("input_reorder [0, 0] is not a permutation"), std::string::npos) << reorder;
  auto dup = message_of([&] {
    rocm_template_kernel k("rocm_gemm");
    (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, X, Y");
  });
  EXPECT_NE(dup.find("'X' appears twice"), std::string::npos) << dup;
  auto ident = message_of([&] {
    rocm_template_kernel k("rocm_gemm");
    (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, W-1, Y");
  });
  EXPECT_NE(ident.find("'W-1' is not a C identifier"), std::string::npos) << ident;
  EXPECT_THROW(rocm_template_kernel("bad name"), rocmtpl::invalid_argument_error);
  EXPECT_THROW(rocm_template_kernel("k", {{"a", "int32_t"}}, {1, 2}), rocmtpl::invalid_argument_error);
}

TEST(RocmTemplateKernel, SizeStrideOffset) {
  Nodes n;
  rocm_template_kernel k("rocm_gemm");
  (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, W, Y");
  EXPECT_EQ(k.size(&n.x, 0), "u_M");
  EXPECT_EQ(k.size(&n.x, -1), "64");
  EXPECT_EQ(k.size(&n.x, 0, -1), sym_expr(M * 64).to_cpp());
  EXPECT_EQ(k.size(nullptr, 0, 1, 7), "7");
  EXPECT_EQ(k.size(&n.x, 1, 0, 3), "3");  // empty range -> default
  EXPECT_EQ(k.stride(&n.w, 0), "u_N");
  EXPECT_EQ(k.stride(&n.w, -1), "1");
  EXPECT_EQ(k.offset(&n.w), "0");
  auto msg = message_of([&] { (void)k.size(&n.x, 2); });
  EXPECT_NE(msg.find("index 2 out of range for buffer 'x' of rank 2"), std::string::npos) << msg;
  EXPECT_THROW((void)k.stride(&n.x, -3), rocmtpl::out_of_range_error);
}

TEST(RocmTemplateKernel, CheckNotNullReturnsAStatusNeverThrows) {
  Nodes n;
  rocm_template_kernel k("rocm_gemm");
  (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, W, Y");
  auto code = k.check_not_null(&n.x);
  EXPECT_EQ(code,
            "{\n"
            "    bool rocmtpl_ok = true;\n"
            "    const int64_t rocmtpl_numel = rocmtpl_size_mul(64, u_M, &rocmtpl_ok);\n"
            "    if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;\n"
            "    if (!X && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;\n"
            "}\n");
  EXPECT_EQ(code.find("throw"), std::string::npos);
  EXPECT_EQ(k.check_not_null(nullptr), "");
  EXPECT_EQ(k.check_not_null(&n.bias), "");  // not an argument of this kernel
}

TEST(RocmTemplateKernel, StaticTensorsNeedOnlyTheNullCheck) {
  const buffer a("a", layout::row_major(dtype::f32, {4, 8}));
  const buffer b("b", layout::row_major(dtype::f32, {0, 8}));
  const buffer c("c", layout::row_major(dtype::f32, {4, 8}));
  rocm_template_kernel k("k");
  (void)k.def_kernel({&a, &b}, {&c}, "A, B, C");
  EXPECT_EQ(k.check_not_null(&a), "if (!A) return ROCMTPL_STATUS_NULL_ARGUMENT;\n");
  EXPECT_EQ(k.check_not_null(&b), "");  // no element: nothing to check
  EXPECT_EQ(k.check_sizes(&a), "");
}

TEST(RocmTemplateKernel, SymbolicStridesAreCheckedForOverflowAndOutputsForPositiveStrides) {  // issue 8
  const sym_expr S = sym_expr::symbol("S");
  const buffer x("x", layout(dtype::f32, {M, N}, {S, 1}));
  const buffer y("y", layout(dtype::f32, {M, N}, {S, 1}));
  rocm_template_kernel k("k");
  (void)k.def_kernel({&x}, {&y}, "X, Y");
  const std::string in = k.check_not_null(&x);
  EXPECT_NE(in.find("rocmtpl_numel = rocmtpl_size_mul(u_M, u_N, &rocmtpl_ok);"), std::string::npos) << in;
  EXPECT_NE(in.find("if (rocmtpl_numel > 0) {"), std::string::npos) << in;
  EXPECT_NE(in.find("rocmtpl_size_mul(u_M, u_S, &rocmtpl_ok)"), std::string::npos) << in;
  EXPECT_EQ(in.find("<= 0"), std::string::npos) << in;  // inputs may broadcast
  const std::string out = k.check_not_null(&y);
  EXPECT_NE(out.find("if (u_M > 1 && u_S <= 0) rocmtpl_ok = false;"), std::string::npos) << out;
  EXPECT_NE(out.find("if (!Y && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;"), std::string::npos) << out;
  const std::string sizes = k.check_sizes(&y);
  EXPECT_NE(sizes.find("if (u_M > 1 && u_S <= 0) rocmtpl_ok = false;"), std::string::npos) << sizes;
  EXPECT_EQ(sizes.find("NULL_ARGUMENT"), std::string::npos) << sizes;
}

// Issue 22 item 6: an output whose symbols decide whether it overlaps gets overlap_of()'s rule at
// run time (UNSUPPORTED_ARGUMENT otherwise); one proven disjoint, and every input, get none.
TEST(RocmTemplateKernel, OutputsWhoseSymbolsDecideAreCheckedForOverlapAtRunTime) {
  const sym_expr S = sym_expr::symbol("S");
  const sym_expr B = sym_expr::symbol("B");
  const buffer x("x", layout(dtype::f32, {M, N}, {S, 1}));
  const buffer padded("y", layout(dtype::f32, {M, N}, {S, 1}));
  const buffer batched("z", layout(dtype::f32, {B, M, N}, {S, N, 1}));
  const buffer contiguous("c", layout::row_major(dtype::f32, {B, M, N}));
  rocm_template_kernel k("k");
  (void)k.def_kernel({&x}, {&padded, &batched, &contiguous}, "X, Y, Z, C");
  const std::string y = k.check_not_null(&padded);
  EXPECT_NE(y.find("const int64_t rocmtpl_sizes[2] = {u_M, u_N};"), std::string::npos) << y;
  EXPECT_NE(y.find("const int64_t rocmtpl_strides[2] = {u_S, 1};"), std::string::npos) << y;
  EXPECT_NE(y.find("if (rocmtpl_strides[rocmtpl_next] < rocmtpl_extent) rocmtpl_ok = false;"), std::string::npos) << y;
  EXPECT_NE(y.find("if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"), std::string::npos) << y;
  EXPECT_LT(y.find("rocmtpl_extent"), y.find("return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT")) << y;
  const std::string z = k.check_sizes(&batched);
  EXPECT_NE(z.find("const int64_t rocmtpl_sizes[3] = {u_B, u_M, u_N};"), std::string::npos) << z;
  EXPECT_NE(z.find("const int64_t rocmtpl_strides[3] = {u_S, u_N, 1};"), std::string::npos) << z;
  EXPECT_EQ(k.check_sizes(&contiguous).find("rocmtpl_extent"), std::string::npos) << k.check_sizes(&contiguous);
  EXPECT_EQ(k.check_not_null(&x).find("rocmtpl_extent"), std::string::npos);  // inputs may overlap
}

TEST(RocmTemplateKernel, RefusesOverlappingStaticOutputStrides) {  // issue 22 item 6
  const buffer x("x", layout::row_major(dtype::f32, {4, 8}));
  const buffer rows("y", layout(dtype::f32, {4, 8}, {4, 1}));
  rocm_template_kernel k("k");
  const auto msg = message_of([&] { (void)k.def_kernel({&x}, {&rows}, "X, Y"); });
  EXPECT_NE(msg.find("rocmtpl: def_kernel: output 'y' float32[4, 8] strides [4, 1] offset 0: dimension 0 (size 4, "
                     "stride 4) overlaps dimension 1 (size 8, stride 1)"),
            std::string::npos)
      << msg;
  rocm_template_kernel k2("k");
  EXPECT_NO_THROW((void)k2.def_kernel({&rows}, {&x}, "X, Y"));  // an input may overlap
}

TEST(RocmTemplateKernel, RefusesZeroStaticOutputStrides) {  // issue 8
  const buffer x("x", layout::row_major(dtype::f32, {M, 4}));
  const buffer broadcast_out("y", layout(dtype::f32, {M, 4}, {0, 1}));
  rocm_template_kernel k("k");
  const auto msg = message_of([&] { (void)k.def_kernel({&x}, {&broadcast_out}, "X, Y"); });
  EXPECT_NE(msg.find("rocmtpl: def_kernel: output 'y'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stride 0 in dimension 0"), std::string::npos) << msg;
  // A dimension of one element may have any stride; an input may broadcast.
  const buffer one_row("y", layout(dtype::f32, {1, 4}, {0, 1}));
  rocm_template_kernel k2("k");
  EXPECT_NO_THROW((void)k2.def_kernel({&broadcast_out}, {&one_row}, "X, Y"));
}

TEST(RocmTemplateKernel, RefusesKeywordAndAbiParameterNamesAndUserPrefixedKernelNames) {  // issue 8
  Nodes n;
  for (const char* bad : {"int", "not", "stream", "workspace_size", "template"}) {
    rocm_template_kernel k("rocm_gemm");
    const auto msg = message_of([&] { (void)k.def_kernel({&n.x, &n.w}, {&n.y}, std::string("X, W, ") + bad); });
    EXPECT_NE(msg.find("rocmtpl: def_kernel: argument name '" + std::string(bad) + "' is "), std::string::npos) << msg;
  }
  EXPECT_THROW(rocm_template_kernel("u_gemm"), rocmtpl::invalid_argument_error);
  EXPECT_THROW(rocm_template_kernel("stream"), rocmtpl::invalid_argument_error);
  EXPECT_THROW(rocm_template_kernel("float"), rocmtpl::invalid_argument_error);
  EXPECT_NO_THROW(rocm_template_kernel("gemm_u_1"));
}

TEST(RocmTemplateKernel, NamedSizeArgumentsAreSingleSymbols) {
  Nodes n;
  rocm_template_kernel k("rocm_gemm");
  k.name_size_args({N, M});
  (void)k.def_kernel({&n.x, &n.w}, {&n.y}, "X, W, Y");
  const auto params = k.args().signature().params;
  ASSERT_EQ(params.size(), 5U);
  EXPECT_EQ((std::vector<entry_param>{params.begin() + 2, params.end()}),
            (std::vector<entry_param>{{"Y", param_kind::tensor_out, "uint16_t*"},
                                      {"u_N", param_kind::size, "int64_t"},
                                      {"u_M", param_kind::size, "int64_t"}}));
  rocm_template_kernel bad("rocm_gemm");
  EXPECT_NE(message_of([&] { bad.name_size_args({M * 2}); }).find("size argument '2*M' is not a single symbol"),
            std::string::npos);
  // Named after binding: too late.
  EXPECT_THROW(k.name_size_args({M}), rocmtpl::invalid_argument_error);
}

}  // namespace

// A backend standing in for the runtime layer's: records what rocm_template_caller hands it.
struct recorded {
  int precompiles = 0;
  std::vector<const void*> inputs;
  void* out = nullptr;
  std::string kernel;
};
inline recorded last_call;

struct recording_backend {
  void precompile(rocmtpl::rocm_benchmark_request& r) const {
    ++last_call.precompiles;
    r.library_path = "/recorded/" + r.kernel_name + ".so";
  }
  std::optional<std::size_t> query_workspace(rocmtpl::rocm_benchmark_request&) const { return 96; }
  double benchmark(rocmtpl::rocm_benchmark_request& r, const std::vector<const void*>& inputs, void* out) const {
    last_call.inputs = inputs;
    last_call.out = out;
    last_call.kernel = r.kernel_name;
    return 1.5;
  }
};
static_assert(rocmtpl::caller_backend<recording_backend>);
static_assert(!rocmtpl::caller_backend<int>);

namespace {
rocmtpl::rocm_template_caller recording_caller() {
  rocmtpl::rocm_benchmark_request r;
  r.kernel_name = std::string("rocm_k");
  r.input_tensor_meta = {{"X", rocmtpl::dtype::f32, {4}, {1}}, {"W", rocmtpl::dtype::f32, {4}, {1}}};
  r.output_tensor_meta = {"Y", rocmtpl::dtype::f32, {4}, {1}};
  Nodes n;
  return {"rocm_k_0", "k", {n.x, n.w}, n.y, {}, r, {}};
}

// precompile() and benchmark() dispatch to the backend they are given: the pointer pack becomes the
// inputs in order and the output last.
TEST(RocmTemplateCaller, ProtocolMembersDispatchToTheBackend) {
  auto caller = recording_caller();
  caller.precompile(recording_backend{});
  EXPECT_EQ(last_call.precompiles, 1);
  EXPECT_EQ(caller.bmreq().library_path, "/recorded/rocm_k.so");
  const float x = 0, w = 0;
  float y = 0;
  EXPECT_EQ(caller.benchmark(recording_backend{}, &x, &w, &y), 1.5);
  EXPECT_EQ(last_call.inputs, (std::vector<const void*>{&x, &w}));
  EXPECT_EQ(last_call.out, &y);
  EXPECT_EQ(last_call.kernel, "rocm_k");
  int z = 0;
  EXPECT_EQ(caller.benchmark(recording_backend{}, rocmtpl::unchecked, std::vector<const void*>{&w, &x}, &z), 1.5);
  EXPECT_EQ(last_call.inputs, (std::vector<const void*>{&w, &x}));
  EXPECT_EQ(last_call.out, &z);
  void* untyped = &y;
  EXPECT_EQ(caller.benchmark(recording_backend{}, rocmtpl::unchecked, &w, &x, untyped), 1.5);
  EXPECT_EQ(last_call.inputs, (std::vector<const void*>{&w, &x}));
  EXPECT_EQ(last_call.out, &y);
}

// Issue 24: an untyped choice's tensors are known at run time, so benchmark() checks the typed
// pointers' number and element types before anything runs, naming the tensor; unchecked checks the
// number only.
TEST(RocmTemplateCaller, BenchmarkRefusesPointersOfTheWrongTypeOrNumber) {
  auto caller = recording_caller();
  last_call = {};
  const float x = 0, w = 0;
  float y = 0;
  const rocmtpl::half_t h{};
  rocmtpl::half_t hy{};
  const auto message = [&](auto&&... pointers) {
    try {
      (void)caller.benchmark(recording_backend{}, pointers...);
    } catch (const rocmtpl::invalid_argument_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(&x, &y),
            "rocmtpl: rocm_template_caller: benchmark of 'rocm_k_0' takes 3 pointers (X, W, Y) but "
            "was given 2; pass the inputs in the entry point's order, then the output");
  EXPECT_EQ(message(&x, &h, &y),
            "rocmtpl: rocm_template_caller: benchmark of 'rocm_k_0': pointer 2 (for W) points to "
            "float16 but W is float32; pass typed pointers in the order (X, W, Y), or untyped "
            "ones through benchmark(backend, unchecked, ...)");
  EXPECT_NE(message(&x, &w, &hy).find("pointer 3 (for Y) points to float16 but Y is float32"), std::string::npos);
  EXPECT_EQ(last_call.kernel, "");  // nothing reached the backend
  EXPECT_THROW((void)caller.benchmark(recording_backend{}, rocmtpl::unchecked, std::vector<const void*>{&x}, &y),
               rocmtpl::invalid_argument_error);
}

// Without a backend the workspace of a template that does not describe it stays unknown; with one,
// the backend's query answers (and a description, once known, is kept).
TEST(RocmTemplateCaller, UpdateWorkspaceSizeIsMemoizedAndPureWithoutTheRuntime) {
  auto queried = recording_caller();
  queried.update_workspace_size(recording_backend{});
  EXPECT_EQ(queried.bmreq().workspace_size, std::optional<std::size_t>(96));
  EXPECT_EQ(queried.output_node(recording_backend{}).get_workspace_size(), 96U);
  auto caller = recording_caller();
  caller.update_workspace_size();
  EXPECT_FALSE(caller.bmreq().workspace_size);
  caller.bmreq().workspace_bytes = sym_expr(64);
  caller.update_workspace_size();
  EXPECT_EQ(caller.bmreq().workspace_size, std::optional<std::size_t>(64));
  caller.bmreq().workspace_bytes = sym_expr(128);
  caller.update_workspace_size();  // known already: kept
  EXPECT_EQ(caller.bmreq().workspace_size, std::optional<std::size_t>(64));
  const auto node = caller.output_node();
  EXPECT_EQ(node.get_workspace_size(), 64U);
  EXPECT_EQ(*node.workspace_bytes(), sym_expr(128));
}
}  // namespace
