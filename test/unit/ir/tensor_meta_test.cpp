// SPDX-License-Identifier: MIT
// tensor_meta and buffer: element and byte counts never wrap (issue 8); errors name the tensor.
#include <rocmtpl/ir/tensor_meta.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace {
using namespace rocmtpl;

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
const sym_expr M = sym_expr::symbol("M");
const sym_expr N = sym_expr::symbol("N");

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(TensorMeta, FromBufferResolvesTheLayout) {
  const buffer b("x", layout(dtype::f16, {M, N}, {N + 2, 1}, 3));
  const auto m = tensor_meta::from_buffer(b, {{"M", 4}, {"N", 5}});
  EXPECT_EQ(m.name, "x");
  EXPECT_EQ(m.type, dtype::f16);
  EXPECT_EQ(m.sizes, (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(m.strides, (std::vector<std::int64_t>{7, 1}));
  EXPECT_EQ(m.offset, 3);
  EXPECT_EQ(m.numel(), 20);
  EXPECT_EQ(m.storage_elements(), 3 + 1 + 3 * 7 + 4);
  EXPECT_EQ(m.storage_bytes(), std::size_t{2} * (3 + 1 + 3 * 7 + 4));
}

TEST(TensorMeta, EmptyTensorsNeedOnlyTheOffset) {
  const tensor_meta m{"e", dtype::f32, {0, 7}, {7, 1}, 5};
  EXPECT_EQ(m.numel(), 0);
  EXPECT_EQ(m.storage_elements(), 5);
}

TEST(TensorMeta, OverflowingCountsThrowNamingTheTensor) {  // issue 8
  const tensor_meta huge{"huge", dtype::f32, {int64_max / 2 + 1, 2}, {2, 1}, 0};
  const auto numel = message_of([&] { (void)huge.numel(); });
  EXPECT_EQ(numel.rfind("rocmtpl: tensor_meta: 'huge' has more elements than int64_t counts", 0), 0U) << numel;
  EXPECT_THROW((void)huge.numel(), evaluation_error);
  EXPECT_THROW((void)huge.storage_elements(), evaluation_error);
  // Fits in elements, not in bytes.
  const tensor_meta wide{"wide", dtype::f64, {int64_max / 4}, {1}, 0};
  EXPECT_EQ(wide.numel(), int64_max / 4);
  const auto bytes = message_of([&] { (void)wide.storage_bytes(); });
  EXPECT_NE(bytes.find("'wide' needs more bytes than int64_t counts"), std::string::npos) << bytes;
  // The span of the strides overflows although the element count fits.
  const tensor_meta strided{"strided", dtype::u8, {3}, {int64_max / 2 + 1}, 0};
  EXPECT_EQ(strided.numel(), 3);
  EXPECT_THROW((void)strided.storage_elements(), evaluation_error);
  const tensor_meta offset{"offset", dtype::u8, {2}, {1}, int64_max};
  EXPECT_THROW((void)offset.storage_elements(), evaluation_error);
}

TEST(TensorMeta, NegativeValuesAreRefused) {
  const tensor_meta neg_size{"n", dtype::f32, {-1}, {1}, 0};
  EXPECT_NE(message_of([&] { (void)neg_size.numel(); }).find("'n' has a negative size -1"), std::string::npos);
  const tensor_meta neg_stride{"s", dtype::f32, {2}, {-1}, 0};
  EXPECT_THROW((void)neg_stride.storage_elements(), evaluation_error);
}

TEST(TensorMeta, HintsThatOverflowAnExpressionNameTheTensor) {  // issue 8
  const buffer c("c", layout(dtype::f32, {M}, {N * N}));
  const auto stride = message_of([&] { (void)tensor_meta::from_buffer(c, {{"M", 2}, {"N", int64_max}}); });
  EXPECT_EQ(stride.rfind("rocmtpl: tensor_meta: a stride of 'c' float32[M] strides [N*N]", 0), 0U) << stride;
  const auto missing = message_of([&] { (void)tensor_meta::from_buffer(c, {{"M", 2}}); });
  EXPECT_NE(missing.find("of 'c'"), std::string::npos) << missing;
  EXPECT_NE(missing.find("no value for symbol 'N'"), std::string::npos) << missing;
}

TEST(Buffer, ConstantSizesThatOverflowAreRefusedNamingTheBuffer) {  // issue 8
  const auto numel = message_of([] { buffer b("big", layout(dtype::f32, {int64_max / 2 + 1, 2, 1}, {1, 1, 1})); });
  EXPECT_EQ(numel.rfind("rocmtpl: ", 0), 0U) << numel;
  EXPECT_NE(numel.find("'big'"), std::string::npos) << numel;
  EXPECT_THROW(buffer("big", layout(dtype::f32, {int64_max / 2 + 1, 2}, {1, 1})), evaluation_error);
  const auto bytes = message_of([] { buffer b("bytes", layout::row_major(dtype::f64, {int64_max / 4})); });
  EXPECT_NE(bytes.find("rocmtpl: buffer: 'bytes'"), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("bytes"), std::string::npos) << bytes;
  EXPECT_NO_THROW(buffer("ok", layout::row_major(dtype::f64, {int64_max / 8})));
}

TEST(Buffer, NamesAreCheckedLikeEveryNameInGeneratedCode) {  // issue 8
  for (const char* bad : {"int", "or", "stream", "workspace", "1x", "a-b"}) {
    EXPECT_THROW(buffer(bad, layout::row_major(dtype::f32, {4})), invalid_argument_error) << bad;
  }
  const auto msg = message_of([] { buffer b("not", layout::row_major(dtype::f32, {4})); });
  EXPECT_EQ(msg, "rocmtpl: buffer: name 'not' is a C or C++ keyword; choose another name");
  for (const char* ok : {"p", "X", "X_size", "block_m", "half", "u_x"}) {
    EXPECT_NO_THROW(buffer(ok, layout::row_major(dtype::f32, {4}))) << ok;
  }
}
}  // namespace
