// SPDX-License-Identifier: MIT
// Tests of include/rocmtpl/ir/sym_expr.hpp.

#include <rocmtpl/ir/sym_expr.hpp>

// The symbolic layer is pure C++: no GPU header, no dlopen, no formatting or JSON library.
#if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) || defined(__CUDA_RUNTIME_H__) || defined(_DLFCN_H) || \
    defined(FMT_VERSION) || defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "rocmtpl/ir/sym_expr.hpp pulled in a heavier header"
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

namespace {

using rocmtpl::ceil_div;
using rocmtpl::evaluation_error;
using rocmtpl::floor_div;
using rocmtpl::invalid_argument_error;
using rocmtpl::mod;
using rocmtpl::product;
using rocmtpl::size_hints;
using rocmtpl::sym_expr;

constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

const sym_expr M = sym_expr::symbol("M");
const sym_expr N = sym_expr::symbol("N");
const sym_expr K = sym_expr::symbol("K");

// ---- reference arithmetic, written without C++ integer '/' and '%' --------------------------------

// Python's a // b by definition: the q with b*q <= a < b*(q+1) (b > 0) or b*q >= a > b*(q+1) (b < 0).
std::int64_t brute_floordiv(std::int64_t a, std::int64_t b) {
  for (std::int64_t q = -1000; q <= 1000; ++q) {
    if (b > 0 ? (b * q <= a && a < b * (q + 1)) : (b * q >= a && a > b * (q + 1))) return q;
  }
  ADD_FAILURE() << "brute_floordiv out of range for " << a << " // " << b;
  return 0;
}

std::int64_t brute_mod(std::int64_t a, std::int64_t b) { return a - b * brute_floordiv(a, b); }

// Python's // through a double quotient: exact while |a|, |b| < 2^25 (the quotient is then at least
// 1/|b| away from the next integer, far more than the rounding error). Nothing when b == 0 or too big.
std::optional<std::int64_t> ref_floordiv(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t limit = std::int64_t{1} << 25;
  if (b == 0 || a >= limit || a <= -limit || b >= limit || b <= -limit) return std::nullopt;
  return static_cast<std::int64_t>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
}

std::optional<std::int64_t> ref_mod(std::int64_t a, std::int64_t b) {
  auto q = ref_floordiv(a, b);
  if (!q) return std::nullopt;
  return a - b * *q;
}

template <class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<nothing thrown>";
}

// ---- construction ------------------------------------------------------------------------------

TEST(SymExprConstruct, DefaultIsZero) {
  const sym_expr zero;
  EXPECT_TRUE(zero.is_constant());
  EXPECT_EQ(zero.constant(), 0);
  EXPECT_FALSE(zero.is_symbol());
  EXPECT_EQ(zero.to_string(), "0");
  EXPECT_EQ(zero, sym_expr(0));
  EXPECT_TRUE(zero.free_symbols().empty());
  EXPECT_EQ(zero.evaluate({}), 0);
}

TEST(SymExprConstruct, IntegerConstantsOfEveryType) {
  EXPECT_EQ(sym_expr(5).constant(), 5);
  EXPECT_EQ(sym_expr(-5).constant(), -5);
  EXPECT_EQ(sym_expr(std::int64_t{1} << 40).constant(), std::int64_t{1} << 40);
  EXPECT_EQ(sym_expr(std::size_t{7}).constant(), 7);
  EXPECT_EQ(sym_expr(7U).constant(), 7);
  EXPECT_EQ(sym_expr(static_cast<short>(-3)).constant(), -3);
  EXPECT_EQ(sym_expr(std::int32_t{-2147483647 - 1}).constant(), std::int64_t{-2147483647 - 1});
  EXPECT_EQ(sym_expr(int64_min).constant(), int64_min);
  EXPECT_EQ(sym_expr(int64_max).constant(), int64_max);
  EXPECT_EQ(sym_expr(static_cast<std::uint64_t>(int64_max)).constant(), int64_max);
  EXPECT_EQ(sym_expr(12).evaluate({}), 12);
  // Implicit conversion where sizes are written.
  const std::vector<sym_expr> sizes{M, 4096, std::size_t{2}};
  EXPECT_EQ(sizes[1].constant(), 4096);
  EXPECT_EQ(sizes[2].constant(), 2);
}

TEST(SymExprConstruct, UnsignedBeyondInt64Throws) {
  EXPECT_THROW((void)sym_expr(std::numeric_limits<std::uint64_t>::max()), invalid_argument_error);
  const std::string message = thrown_message([] { (void)sym_expr(std::uint64_t{1} << 63); });
  EXPECT_NE(message.find("9223372036854775808"), std::string::npos) << message;
}

TEST(SymExprConstruct, Symbol) {
  EXPECT_TRUE(M.is_symbol());
  EXPECT_FALSE(M.is_constant());
  EXPECT_EQ(M.constant(), std::nullopt);
  EXPECT_EQ(M.symbol_name(), "M");
  EXPECT_EQ(M.to_string(), "M");
  EXPECT_EQ(M.free_symbols(), std::vector<std::string>{"M"});
  EXPECT_EQ(sym_expr::symbol("M"), M);
  EXPECT_NE(M, N);
  for (const auto& name : {"_", "_x1", "batch_size", "s0", "Z9_"}) {
    EXPECT_EQ(sym_expr::symbol(name).symbol_name(), name);
  }
}

TEST(SymExprConstruct, NotASymbol) {
  for (const sym_expr& e : {2 * M, M * M, M + 1, -M, floor_div(M, 2), sym_expr(1)}) {
    EXPECT_FALSE(e.is_symbol()) << e;
    EXPECT_EQ(e.symbol_name(), std::nullopt) << e;
  }
}

TEST(SymExprConstruct, InvalidSymbolNamesThrowNamingTheText) {
  for (const std::string name : {"", "1M", "a-b", "a b", "M.x", "x+y", "caf\xc3\xa9", "9"}) {
    const std::string message = thrown_message([&] { (void)sym_expr::symbol(name); });
    EXPECT_NE(message.find("'" + name + "'"), std::string::npos) << message;
    EXPECT_THROW((void)sym_expr::symbol(name), invalid_argument_error) << name;
  }
}

TEST(SymExprConstruct, KeywordsAndAbiNamesAreRefused) {  // issue 8
  for (const std::string name :
       {"int", "and", "xor_eq", "class", "_Bool", "restrict", "stream", "workspace", "workspace_size"}) {
    const std::string message = thrown_message([&] { (void)sym_expr::symbol(name); });
    EXPECT_EQ(message.rfind("rocmtpl: sym_expr: symbol name '" + name + "' is ", 0), 0U) << message;
    EXPECT_NE(message.find("; choose another name"), std::string::npos) << message;
  }
  // Internal names of generated code are fine: user names are renamed (u_<name>) on their way in.
  for (const std::string name : {"p", "split_k", "block_m", "int64_t", "NULL", "u_M", "rocmtpl_mod", "threadIdx"}) {
    EXPECT_EQ(sym_expr::symbol(name).symbol_name(), name);
  }
}

TEST(SymExprPrint, CppTextRenamesSymbolsHumanTextDoesNot) {  // issue 8
  const sym_expr e = 2 * M * N - floor_div(K, 4) + mod(M, N) + 1;
  EXPECT_EQ(e.to_string(), "-rocmtpl_floordiv(K, 4) + rocmtpl_mod(M, N) + 2*M*N + 1");
  EXPECT_EQ(e.to_cpp(), "-rocmtpl_floordiv(u_K, 4) + rocmtpl_mod(u_M, u_N) + 2*u_M*u_N + 1");
  EXPECT_EQ(sym_expr::symbol("u_M").to_cpp(), "u_u_M");
  EXPECT_EQ(sym_expr(7).to_cpp(), "7");
  std::ostringstream os;
  os << e;
  EXPECT_EQ(os.str(), e.to_string());
}

TEST(SymExprPrint, CheckedTextMirrorsEvaluate) {  // issue 8
  EXPECT_EQ(M.to_cpp_checked("ok"), "u_M");
  EXPECT_EQ(sym_expr(5).to_cpp_checked("ok"), "5");
  EXPECT_EQ((K * M).to_cpp_checked("ok"), "rocmtpl_size_mul(u_K, u_M, &ok)");
  EXPECT_EQ((2 * M * N + 3).to_cpp_checked("ok"),
            "rocmtpl_size_add(rocmtpl_size_mul(rocmtpl_size_mul(2, u_M, &ok), u_N, &ok), 3, &ok)");
  EXPECT_EQ((-M + N).to_cpp_checked("f"), "rocmtpl_size_add(rocmtpl_size_sub(0, u_M, &f), u_N, &f)");
  EXPECT_EQ((M - 1).to_cpp_checked("f"), "rocmtpl_size_sub(u_M, 1, &f)");
  EXPECT_EQ((M * M).to_cpp_checked("f"), "rocmtpl_size_mul(u_M, u_M, &f)");
  EXPECT_EQ(floor_div(M, N).to_cpp_checked("f"), "rocmtpl_size_floordiv(u_M, u_N, &f)");
  EXPECT_EQ(mod(M + 1, 4).to_cpp_checked("f"), "rocmtpl_size_mod(rocmtpl_size_add(u_M, 1, &f), 4, &f)");
  EXPECT_THROW((void)M.to_cpp_checked("not a name"), invalid_argument_error);
}

// ---- canonical form ----------------------------------------------------------------------------

TEST(SymExprCanonical, SumsAndProductsCommute) {
  const sym_expr a = M * N + K;
  const sym_expr b = K + N * M;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.to_string(), b.to_string());
  EXPECT_EQ(a.to_string(), "K + M*N");
  EXPECT_EQ(a.hash(), b.hash());
}

TEST(SymExprCanonical, IdentityAndZeroElements) {
  EXPECT_EQ(M + 0, M);
  EXPECT_EQ(0 + M, M);
  EXPECT_EQ(M * 1, M);
  EXPECT_EQ(1 * M, M);
  EXPECT_EQ(M * 0, sym_expr(0));
  EXPECT_TRUE((M * 0).is_constant());
  EXPECT_EQ(M - M, sym_expr(0));
  EXPECT_EQ((M * N - N * M).constant(), 0);
  EXPECT_EQ(+M, M);
  EXPECT_EQ(-(-M), M);
}

TEST(SymExprCanonical, LikeTermsCombine) {
  EXPECT_EQ(M + M, 2 * M);
  EXPECT_EQ(3 * M - M, 2 * M);
  EXPECT_EQ((M + M).to_string(), "2*M");
  EXPECT_EQ(M * N + 2 * N * M - 3 * M * N, sym_expr(0));
  EXPECT_EQ(M * M * N, N * M * M);
  EXPECT_NE(M * M * N, M * N * N);
}

TEST(SymExprCanonical, PolynomialsExpand) {
  EXPECT_EQ((M + 1) * (M - 1), M * M - 1);
  EXPECT_EQ(((M + 1) * (M - 1)).to_string(), "M*M - 1");
  EXPECT_EQ((M + N) * (M + N), M * M + 2 * M * N + N * N);
  EXPECT_EQ((M + N) * (M - N), M * M - N * N);
}

TEST(SymExprCanonical, ConstantsFold) {
  EXPECT_EQ((sym_expr(3) + 4).constant(), 7);
  EXPECT_EQ((sym_expr(6) * 7).constant(), 42);
  EXPECT_EQ((sym_expr(6) - 10).constant(), -4);
  EXPECT_EQ((M + 3 - M + 4).constant(), 7);
  EXPECT_EQ((-sym_expr(5)).constant(), -5);
}

TEST(SymExprCanonical, CompoundAssignment) {
  sym_expr e = M;
  e += 2;
  e *= N;
  e -= M * N;
  EXPECT_EQ(e, 2 * N);
}

TEST(SymExprCanonical, DistinctExpressionsDiffer) {
  const std::vector<sym_expr> all{0,         1,
                                  -1,        M,
                                  N,         2 * M,
                                  M * M,     M + 1,
                                  M * N,     M * N + 1,
                                  -M,        M - N,
                                  N - M,     floor_div(M, 2),
                                  mod(M, 2), floor_div(N, 2),
                                  mod(M, 3), floor_div(M, N)};
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = 0; j < all.size(); ++j) {
      EXPECT_EQ(all[i] == all[j], i == j) << all[i] << " vs " << all[j];
      EXPECT_EQ(all[i].to_string() == all[j].to_string(), i == j) << all[i] << " vs " << all[j];
    }
  }
}

TEST(SymExprCanonical, OrderIsTotalAndConsistentWithEquality) {
  const std::vector<sym_expr> all{M + 1, 0, M * N, floor_div(M, 2), N, 1 + M, -3, mod(M, 2), M, M * N};
  for (const auto& a : all) {
    for (const auto& b : all) {
      const auto ab = a <=> b;
      const auto ba = b <=> a;
      EXPECT_EQ(ab == 0, a == b);
      EXPECT_EQ(ab<0, ba> 0);
      for (const auto& c : all) {
        if (a < b && b < c) {
          EXPECT_TRUE(a < c);
        }
      }
    }
  }
  const std::set<sym_expr> unique(all.begin(), all.end());
  EXPECT_EQ(unique.size(), 8U);  // M + 1 == 1 + M, M*N twice
}

TEST(SymExprCanonical, HashAgreesWithEquality) {
  std::unordered_set<sym_expr> set{M * N + K, K + N * M, (M + 1) * (M - 1), M * M - 1, floor_div(4 * M, 2), 2 * M};
  EXPECT_EQ(set.size(), 3U);
  EXPECT_EQ(std::hash<sym_expr>{}(floor_div(M + N, 3)), floor_div(N + M, 3).hash());
}

// ---- printing ----------------------------------------------------------------------------------

TEST(SymExprPrint, ExactText) {
  EXPECT_EQ((M - 1).to_string(), "M - 1");
  EXPECT_EQ((N - 2 * M).to_string(), "-2*M + N");
  EXPECT_EQ((3 + 2 * M * N).to_string(), "2*M*N + 3");
  EXPECT_EQ((-M).to_string(), "-M");
  EXPECT_EQ((1 - M * N).to_string(), "-M*N + 1");
  EXPECT_EQ((N * M * M).to_string(), "M*M*N");
  EXPECT_EQ((K * 64 + M * N - 7).to_string(), "64*K + M*N - 7");
  EXPECT_EQ(sym_expr(-12).to_string(), "-12");
  EXPECT_EQ(floor_div(M, 128).to_string(), "rocmtpl_floordiv(M, 128)");
  EXPECT_EQ(mod(M + 1, 4).to_string(), "rocmtpl_mod(M + 1, 4)");
  EXPECT_EQ((2 * floor_div(M, N) + 1).to_string(), "2*rocmtpl_floordiv(M, N) + 1");
  EXPECT_EQ((N * floor_div(M, 8)).to_string(), "N*rocmtpl_floordiv(M, 8)");
  EXPECT_EQ(ceil_div(M, 128).to_string(), "-rocmtpl_floordiv(-M, 128)");
}

TEST(SymExprPrint, Int64ExtremesAreValidCpp) {
  EXPECT_EQ(sym_expr(int64_min).to_string(), "(-9223372036854775807LL - 1)");
  EXPECT_EQ(sym_expr(int64_max).to_string(), "9223372036854775807");
  EXPECT_EQ((M + int64_min).to_string(), "M + (-9223372036854775807LL - 1)");
  EXPECT_EQ((M * int64_min).to_string(), "(-9223372036854775807LL - 1)*M");
  EXPECT_EQ((N + M * int64_min).to_string(), "(-9223372036854775807LL - 1)*M + N");
  EXPECT_EQ((N - M * int64_max).to_string(), "-9223372036854775807*M + N");
  EXPECT_EQ((M - int64_max).to_string(), "M - 9223372036854775807");
}

TEST(SymExprPrint, StreamWritesToCpp) {
  std::ostringstream os;
  os << (M * N + floor_div(K, 2));
  EXPECT_EQ(os.str(), (M * N + floor_div(K, 2)).to_string());
}

TEST(SymExprPrint, SameTextWhateverTheBuildOrder) {
  const std::vector<sym_expr> terms{M * N, -3 * K, floor_div(M, 4), sym_expr(5), N * N};
  std::vector<std::size_t> order(terms.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::set<std::string> texts;
  do {
    sym_expr sum;
    for (auto i : order) sum = sum + terms[i];
    texts.insert(sum.to_string());
  } while (std::next_permutation(order.begin(), order.end()));
  ASSERT_EQ(texts.size(), 1U);
  EXPECT_EQ(*texts.begin(), "-3*K + rocmtpl_floordiv(M, 4) + M*N + N*N + 5");
}

// ---- floor_div and mod -------------------------------------------------------------------------

TEST(SymExprFloorMod, ReferencesAgree) {
  // The two references used below are independent; check them against each other first.
  for (std::int64_t a = -30; a <= 30; ++a) {
    for (std::int64_t b = -9; b <= 9; ++b) {
      if (b == 0) continue;
      EXPECT_EQ(ref_floordiv(a, b), brute_floordiv(a, b)) << a << " // " << b;
      EXPECT_EQ(ref_mod(a, b), brute_mod(a, b)) << a << " % " << b;
    }
  }
}

TEST(SymExprFloorMod, ConstantFoldingHasPythonSemantics) {
  for (std::int64_t a = -30; a <= 30; ++a) {
    for (std::int64_t b = -9; b <= 9; ++b) {
      if (b == 0) continue;
      const sym_expr q = floor_div(a, b);
      const sym_expr r = mod(a, b);
      ASSERT_TRUE(q.is_constant() && r.is_constant()) << a << ", " << b;
      EXPECT_EQ(*q.constant(), brute_floordiv(a, b)) << a << " // " << b;
      EXPECT_EQ(*r.constant(), brute_mod(a, b)) << a << " % " << b;
      EXPECT_EQ(*ceil_div(a, b).constant(), -brute_floordiv(-a, b)) << a << " ceil/ " << b;
    }
  }
  EXPECT_EQ(floor_div(-7, 2).constant(), -4);
  EXPECT_EQ(mod(-7, 2).constant(), 1);
  EXPECT_EQ(mod(7, -2).constant(), -1);
  EXPECT_EQ(floor_div(7, -2).constant(), -4);
}

TEST(SymExprFloorMod, ConstantFoldingAtInt64Extremes) {
  EXPECT_EQ(floor_div(int64_min, 1).constant(), int64_min);
  EXPECT_EQ(floor_div(int64_min, 2).constant(), int64_min / 2);
  EXPECT_EQ(floor_div(int64_max, -1).constant(), -int64_max);
  EXPECT_EQ(floor_div(int64_min, int64_max).constant(), -2);
  EXPECT_EQ(mod(int64_min, int64_max).constant(), int64_max - 1);
  EXPECT_EQ(floor_div(int64_max, int64_min).constant(), -1);
  EXPECT_EQ(mod(int64_max, int64_min).constant(), -1);
  EXPECT_EQ(mod(int64_min, -1).constant(), 0);
  EXPECT_EQ(mod(int64_min, int64_min).constant(), 0);
  EXPECT_EQ(floor_div(-1, int64_min).constant(), 0);
  EXPECT_EQ(floor_div(1, int64_min).constant(), -1);
  EXPECT_THROW((void)floor_div(int64_min, -1), evaluation_error);
}

TEST(SymExprFloorMod, DivisionByConstantZeroThrows) {
  EXPECT_THROW((void)floor_div(M, 0), evaluation_error);
  EXPECT_THROW((void)mod(M, 0), evaluation_error);
  EXPECT_THROW((void)floor_div(5, 0), evaluation_error);
  EXPECT_THROW((void)mod(0, 0), evaluation_error);
  EXPECT_THROW((void)floor_div(M, N - N), evaluation_error);
  const std::string message = thrown_message([] { (void)floor_div(M + 1, 0); });
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
  EXPECT_NE(message.find("M + 1"), std::string::npos) << message;
}

TEST(SymExprFloorMod, ExactDivisionsFold) {
  EXPECT_EQ(floor_div(4 * M, 2), 2 * M);
  EXPECT_EQ(floor_div(4 * M, -2), -2 * M);
  EXPECT_EQ(floor_div(6 * M * N + 3 * K, 3), 2 * M * N + K);
  EXPECT_EQ(mod(4 * M, 2), sym_expr(0));
  EXPECT_EQ(mod(6 * M * N + 3 * K, 3), sym_expr(0));
  EXPECT_EQ(floor_div(M, 1), M);
  EXPECT_EQ(floor_div(M, -1), -M);
  EXPECT_EQ(mod(M, 1), sym_expr(0));
  EXPECT_EQ(mod(M, -1), sym_expr(0));
  EXPECT_EQ(floor_div(0, M), sym_expr(0));
  EXPECT_EQ(mod(0, M), sym_expr(0));
  EXPECT_EQ(floor_div(M, M), sym_expr(1));
  EXPECT_EQ(mod(M, M), sym_expr(0));
  EXPECT_EQ(floor_div(M + N, N + M), sym_expr(1));
  EXPECT_EQ(floor_div(-M - N, N + M), sym_expr(-1));
  EXPECT_EQ(mod(-M - N, N + M), sym_expr(0));
  EXPECT_EQ(floor_div(M * N, N), M);
  EXPECT_EQ(floor_div(2 * M * N, 4 * N), floor_div(M, 2));
  EXPECT_EQ(mod(M * N, N), sym_expr(0));
}

TEST(SymExprFloorMod, MultiplesOfTheDivisorLeaveTheDivision) {
  EXPECT_EQ(floor_div(4 * M + N, 2), 2 * M + floor_div(N, 2));
  EXPECT_EQ(floor_div(4 * M + 3, 2), 2 * M + 1);
  EXPECT_EQ(floor_div(4 * M - 3, 2), 2 * M - 2);
  EXPECT_EQ(mod(4 * M + 3, 2), sym_expr(1));
  EXPECT_EQ(mod(4 * M - 3, 2), sym_expr(1));
  EXPECT_EQ(mod(M + 5, 4), mod(M + 1, 4));
  EXPECT_EQ(mod(M - 1, 4), mod(M + 3, 4));
  EXPECT_EQ(mod(5 * M, 4), mod(M, 4));
  EXPECT_EQ(floor_div(M * N + K, N), M + floor_div(K, N));
  EXPECT_EQ(mod(M * N + K, N), mod(K, N));
  EXPECT_EQ(mod(3 * M * N + K, 2 * N), mod(M * N + K, 2 * N));
}

TEST(SymExprFloorMod, CommonFactorsCancel) {
  EXPECT_EQ(floor_div(2 * N, 4), floor_div(N, 2));
  EXPECT_EQ(floor_div(6 * N + 4, 8), floor_div(3 * N + 2, 4));
  EXPECT_EQ(mod(2 * N, 4), 2 * mod(N, 2));
  EXPECT_EQ(mod(2 * M * N, 4 * M), 2 * M * mod(N, 2));
}

TEST(SymExprFloorMod, DivisorSignIsNormalised) {
  EXPECT_EQ(floor_div(N, -2), floor_div(-N, 2));
  EXPECT_EQ(mod(N, -2), -mod(N, 2));
  EXPECT_EQ(mod(N, -3), -mod(2 * N, 3));
  EXPECT_EQ(floor_div(M, -N), floor_div(-M, N));
  EXPECT_EQ(mod(M, -N), -mod(-M, N));
}

TEST(SymExprFloorMod, NestedDivisionsFold) {
  EXPECT_EQ(floor_div(floor_div(M, 4), 8), floor_div(M, 32));
  EXPECT_EQ(floor_div(floor_div(M, N), 8), floor_div(M, 8 * N));
  EXPECT_EQ(mod(mod(M, 8), 4), mod(M, 4));
  EXPECT_EQ(mod(mod(M, 4), 8), mod(M, 4));
  EXPECT_EQ(floor_div(mod(M, 4), 4), sym_expr(0));
  EXPECT_EQ(floor_div(mod(M, 4), 8), sym_expr(0));
  EXPECT_NE(floor_div(mod(M, 8), 4), sym_expr(0));
  EXPECT_EQ(mod(mod(M, 8), 3).to_string(), "rocmtpl_mod(rocmtpl_mod(M, 8), 3)");
  EXPECT_EQ(floor_div(floor_div(M, 3), -2).to_string(), "rocmtpl_floordiv(-rocmtpl_floordiv(M, 3), 2)");
}

TEST(SymExprFloorMod, NestedConstantDivisionsKeepTheValue) {
  // Every pairing of inner and outer floor_div / mod with constant divisors of both signs.
  using op = sym_expr (*)(const sym_expr&, const sym_expr&);
  using ref_op = std::int64_t (*)(std::int64_t, std::int64_t);
  const std::array<std::pair<op, ref_op>, 2> ops{{{&rocmtpl::floor_div, &brute_floordiv}, {&rocmtpl::mod, &brute_mod}}};
  for (const auto& [inner, inner_ref] : ops) {
    for (const auto& [outer, outer_ref] : ops) {
      for (std::int64_t c1 = -8; c1 <= 8; ++c1) {
        for (std::int64_t c2 = -8; c2 <= 8; ++c2) {
          if (c1 == 0 || c2 == 0) continue;
          const sym_expr e = outer(inner(3 * M + 1, c1), c2);
          for (std::int64_t m = -20; m <= 20; ++m) {
            ASSERT_EQ(e.evaluate({{"M", m}}), outer_ref(inner_ref(3 * m + 1, c1), c2))
                << e << " at M=" << m << " (c1=" << c1 << ", c2=" << c2 << ")";
          }
        }
      }
    }
  }
}

TEST(SymExprFloorMod, OtherDivisionsStayAtomsWithCanonicalArguments) {
  const sym_expr q = floor_div(3 * M, 2);
  EXPECT_FALSE(q.is_constant());
  EXPECT_EQ(q.to_string(), "rocmtpl_floordiv(3*M, 2)");
  EXPECT_EQ(q.free_symbols(), std::vector<std::string>{"M"});
  EXPECT_EQ(floor_div(N + M * 1, 2), floor_div(M + N, 2));
  EXPECT_EQ(mod(K + N * M, 3), mod(M * N + K, 3));
  EXPECT_EQ(floor_div(M, 2) + floor_div(M, 2), 2 * floor_div(M, 2));
  EXPECT_EQ(floor_div(M, 2) - floor_div(M, 2), sym_expr(0));
  EXPECT_EQ((floor_div(M, 2) * floor_div(M, 2)).to_string(), "rocmtpl_floordiv(M, 2)*rocmtpl_floordiv(M, 2)");
  EXPECT_NE(floor_div(M, 2), mod(M, 2));
  EXPECT_NE(floor_div(M, 2), floor_div(M, 3));
  EXPECT_NE(floor_div(M, N), floor_div(N, M));
}

TEST(SymExprFloorMod, SymbolicValuesHavePythonSemantics) {
  const std::vector<std::pair<std::string, std::function<std::int64_t(std::int64_t, std::int64_t)>>> cases{
      {"floor_div(M, N)", brute_floordiv},
      {"mod(M, N)", brute_mod},
      {"ceil_div(M, N)", [](std::int64_t a, std::int64_t b) { return -brute_floordiv(-a, b); }},
  };
  const std::array<sym_expr, 3> exprs{floor_div(M, N), mod(M, N), ceil_div(M, N)};
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    for (std::int64_t m = -12; m <= 12; ++m) {
      for (std::int64_t n = -5; n <= 5; ++n) {
        if (n == 0) continue;
        EXPECT_EQ(exprs[i].evaluate({{"M", m}, {"N", n}}), cases[i].second(m, n))
            << cases[i].first << " at M=" << m << " N=" << n;
      }
    }
  }
  for (std::int64_t c : {-4, -3, -1, 2, 3, 7}) {
    for (std::int64_t m = -15; m <= 15; ++m) {
      EXPECT_EQ(floor_div(M, c).evaluate({{"M", m}}), brute_floordiv(m, c)) << m << " // " << c;
      EXPECT_EQ(mod(M, c).evaluate({{"M", m}}), brute_mod(m, c)) << m << " % " << c;
      EXPECT_EQ(floor_div(2 * M + 1, c).evaluate({{"M", m}}), brute_floordiv(2 * m + 1, c));
      EXPECT_EQ(mod(3 * M - 2, c).evaluate({{"M", m}}), brute_mod(3 * m - 2, c));
    }
  }
}

// ---- evaluate ----------------------------------------------------------------------------------

TEST(SymExprEvaluate, Values) {
  EXPECT_EQ((M * N + K).evaluate({{"M", 3}, {"N", 4}, {"K", 5}}), 17);
  EXPECT_EQ((M - 2 * N).evaluate({{"M", 1}, {"N", 4}}), -7);
  EXPECT_EQ((M * M * M).evaluate({{"M", -3}}), -27);
  EXPECT_EQ(ceil_div(M, 128).evaluate({{"M", 129}}), 2);
  EXPECT_EQ(ceil_div(M, 128).evaluate({{"M", 128}}), 1);
  EXPECT_EQ((M + 1).evaluate({{"M", 1}, {"Unused", 9}}), 2);  // extra hints are ignored
}

TEST(SymExprEvaluate, MissingSymbolIsNamed) {
  const sym_expr e = M * N + floor_div(K, 2);
  EXPECT_THROW((void)e.evaluate({{"M", 1}, {"N", 2}}), evaluation_error);
  const std::string message = thrown_message([&] { (void)e.evaluate({{"M", 1}, {"N", 2}}); });
  EXPECT_NE(message.find("'K'"), std::string::npos) << message;
  const std::string message_m = thrown_message([&] { (void)e.evaluate({{"N", 2}, {"K", 2}}); });
  EXPECT_NE(message_m.find("'M'"), std::string::npos) << message_m;
}

TEST(SymExprEvaluate, DivisionByZeroIsNamed) {
  EXPECT_THROW((void)floor_div(M, N).evaluate({{"M", 1}, {"N", 0}}), evaluation_error);
  EXPECT_THROW((void)mod(M, N + 1).evaluate({{"M", 1}, {"N", -1}}), evaluation_error);
  const std::string message = thrown_message([] { (void)(K + mod(M, N)).evaluate({{"M", 1}, {"N", 0}, {"K", 0}}); });
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
  EXPECT_NE(message.find("rocmtpl_mod(M, N)"), std::string::npos) << message;
}

TEST(SymExprEvaluate, OverflowThrows) {
  const std::int64_t big = std::int64_t{1} << 62;
  EXPECT_THROW((void)(M * N).evaluate({{"M", big}, {"N", 2}}), evaluation_error);
  EXPECT_THROW((void)(M + 1).evaluate({{"M", int64_max}}), evaluation_error);
  EXPECT_THROW((void)(M - 1).evaluate({{"M", int64_min}}), evaluation_error);
  EXPECT_THROW((void)(-M).evaluate({{"M", int64_min}}), evaluation_error);
  EXPECT_THROW((void)(M * M).evaluate({{"M", std::int64_t{1} << 32}}), evaluation_error);
  EXPECT_THROW((void)floor_div(M, N).evaluate({{"M", int64_min}, {"N", -1}}), evaluation_error);
  // The largest values that fit do not throw.
  EXPECT_EQ((M * N).evaluate({{"M", big}, {"N", -2}}), int64_min);
  EXPECT_EQ((M + 1).evaluate({{"M", int64_max - 1}}), int64_max);
  EXPECT_EQ((M * M).evaluate({{"M", 3037000499}}), 3037000499LL * 3037000499LL);
  EXPECT_EQ(mod(M, N).evaluate({{"M", int64_min}, {"N", -1}}), 0);
  const std::string message = thrown_message([] { (void)(M + 1).evaluate({{"M", int64_max}}); });
  EXPECT_NE(message.find("overflow"), std::string::npos) << message;
}

// ---- overflow while building -------------------------------------------------------------------

TEST(SymExprOverflow, ConstantFoldingOverflowThrows) {
  EXPECT_THROW((void)(sym_expr(int64_max) + 1), evaluation_error);
  EXPECT_THROW((void)(sym_expr(int64_min) - 1), evaluation_error);
  EXPECT_THROW((void)(sym_expr(int64_min) * -1), evaluation_error);
  EXPECT_THROW((void)(-sym_expr(int64_min)), evaluation_error);
  EXPECT_THROW((void)(sym_expr(std::int64_t{1} << 32) * (std::int64_t{1} << 31)), evaluation_error);
  EXPECT_THROW((void)(int64_max * M + M), evaluation_error);
  EXPECT_THROW((void)((std::int64_t{1} << 62) * M * 2), evaluation_error);
  EXPECT_THROW((void)(0 - int64_min * M), evaluation_error);
  const std::string message = thrown_message([] { (void)(sym_expr(int64_max) + 1); });
  EXPECT_NE(message.find("overflow"), std::string::npos) << message;
  EXPECT_NE(message.find("9223372036854775807 + 1"), std::string::npos) << message;
}

TEST(SymExprOverflow, ResultsThatFitDoNotThrow) {
  EXPECT_EQ((sym_expr(int64_max) + int64_min).constant(), -1);
  EXPECT_EQ((int64_max * M - int64_max * M).constant(), 0);
  EXPECT_EQ((int64_min * M + M), (int64_min + 1) * M);
  EXPECT_EQ((sym_expr(std::int64_t{1} << 31) * (std::int64_t{1} << 31)).constant(), std::int64_t{1} << 62);
  EXPECT_EQ(mod(int64_min * M, 2), sym_expr(0));
}

// ---- substitute --------------------------------------------------------------------------------

TEST(SymExprSubstitute, PartialAndFull) {
  const sym_expr e = M * N + K;
  EXPECT_EQ(e.substitute({{"N", 2}}), 2 * M + K);
  EXPECT_EQ(e.substitute({{"M", 3}, {"N", 4}, {"K", 5}}), sym_expr(17));
  EXPECT_EQ(e.substitute({}), e);
  EXPECT_EQ(e.substitute({{"Z", 3}}), e);
  EXPECT_EQ((M * M).substitute({{"M", -3}}), sym_expr(9));
}

TEST(SymExprSubstitute, SimplifiesAgain) {
  EXPECT_EQ(floor_div(M, N).substitute({{"N", 1}}), M);
  EXPECT_EQ(mod(M, N).substitute({{"N", 1}}), sym_expr(0));
  EXPECT_EQ(floor_div(M * K, N).substitute({{"N", 2}, {"K", 4}}), 2 * M);
  EXPECT_EQ(floor_div(M, N).substitute({{"M", -7}, {"N", 2}}), sym_expr(-4));
  EXPECT_EQ(mod(M, N).substitute({{"M", -7}, {"N", 2}}), sym_expr(1));
  EXPECT_EQ((M - N).substitute({{"N", 0}}), M);
  EXPECT_EQ((floor_div(M + K, 4) * N).substitute({{"K", 4}}), N + N * floor_div(M, 4));
}

TEST(SymExprSubstitute, FoldingErrorsThrow) {
  EXPECT_THROW((void)floor_div(M, N).substitute({{"N", 0}}), evaluation_error);
  EXPECT_THROW((void)(M * N).substitute({{"M", int64_max}, {"N", 2}}), evaluation_error);
}

TEST(SymExprSubstitute, SymbolsByExpressions) {
  EXPECT_EQ(M.substitute_symbols({{"M", N + 1}}), N + 1);
  EXPECT_EQ((M * M).substitute_symbols({{"M", N + 1}}), N * N + 2 * N + 1);
  EXPECT_EQ((M + N).substitute_symbols({{"M", N}, {"N", M}}), M + N);  // simultaneous, not sequential
  EXPECT_EQ(floor_div(M, 2).substitute_symbols({{"M", 4 * K}}), 2 * K);
  EXPECT_EQ(mod(M, K).substitute_symbols({{"K", sym_expr(1)}}), sym_expr(0));
  EXPECT_EQ((M * N).substitute_symbols({}), M * N);
}

// ---- free symbols, product ---------------------------------------------------------------------

TEST(SymExprFreeSymbols, SortedUniqueAndNested) {
  const sym_expr a = sym_expr::symbol("A");
  const sym_expr b = sym_expr::symbol("B");
  const sym_expr c = sym_expr::symbol("C");
  const sym_expr z = sym_expr::symbol("Z");
  const sym_expr e = z + floor_div(a, b) * a + mod(c, a) + a * a;
  EXPECT_EQ(e.free_symbols(), (std::vector<std::string>{"A", "B", "C", "Z"}));
  EXPECT_EQ((M - M + N).free_symbols(), std::vector<std::string>{"N"});
  EXPECT_TRUE(sym_expr(42).free_symbols().empty());
  EXPECT_EQ(floor_div(M * N, N).free_symbols(), std::vector<std::string>{"M"});
}

TEST(SymExprProduct, Products) {
  EXPECT_EQ(product(std::span<const sym_expr>{}), sym_expr(1));
  EXPECT_EQ(product({}), sym_expr(1));
  const std::vector<sym_expr> factors{M, N, 2};
  EXPECT_EQ(product(factors), 2 * M * N);
  EXPECT_EQ(product(std::span<const sym_expr>(factors).subspan(1)), 2 * N);
  EXPECT_EQ(product({M, 0, N}), sym_expr(0));
  EXPECT_EQ(product({sym_expr(3), sym_expr(4)}).constant(), 12);
  EXPECT_EQ(product({M + 1, M - 1}), M * M - 1);
  EXPECT_THROW((void)product({sym_expr(std::int64_t{1} << 40), sym_expr(std::int64_t{1} << 40)}), evaluation_error);
}

// ---- randomised properties ---------------------------------------------------------------------

using point = std::array<std::int64_t, 3>;  // values of M, N, K

// A random expression, its text as built, and a reference evaluation of the same tree that uses
// neither sym_expr nor C++ integer division (nothing when the tree divides by zero at that point).
struct random_expr {
  sym_expr expr;
  std::string text;
  std::function<std::optional<std::int64_t>(const point&)> ref;
};

class generator {
 public:
  explicit generator(unsigned seed) : rng_(seed) {}

  random_expr make(int depth) {
    if (depth == 0 || pick(4) == 0) return leaf();
    const int op = pick(8);
    random_expr a = make(depth - 1);
    // Divisions get a small constant divisor half of the time, so that nested floor_div / mod
    // simplifications are exercised often.
    random_expr b = op >= 4 && op <= 6 && pick(2) == 0 ? small_divisor() : make(depth - 1);
    try {
      return combine(op, std::move(a), std::move(b));
    } catch (const evaluation_error&) {
      return leaf();  // a constant divisor folded to 0
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  random_expr small_divisor() {
    static constexpr std::array<std::int64_t, 8> divisors{2, 3, 4, 6, 8, 16, -2, -3};
    const std::int64_t c = divisors[static_cast<std::size_t>(pick(static_cast<int>(divisors.size())))];
    return {c, std::to_string(c), [c](const point&) { return std::optional<std::int64_t>(c); }};
  }

  random_expr leaf() {
    if (pick(2) == 0) {
      const std::int64_t c = pick(11) - 5;
      return {c, std::to_string(c), [c](const point&) { return std::optional<std::int64_t>(c); }};
    }
    const int i = pick(3);
    static const std::array<const char*, 3> names{"M", "N", "K"};
    return {sym_expr::symbol(names[static_cast<std::size_t>(i)]), names[static_cast<std::size_t>(i)],
            [i](const point& p) { return std::optional<std::int64_t>(p[static_cast<std::size_t>(i)]); }};
  }

  static random_expr combine(int op, random_expr a, random_expr b) {
    using opt = std::optional<std::int64_t>;
    auto both = [](auto ra, auto rb, auto f) {
      return [ra, rb, f](const point& p) -> opt {
        const opt x = ra(p);
        const opt y = rb(p);
        if (!x || !y) return std::nullopt;
        return f(*x, *y);
      };
    };
    switch (op) {
      case 0:
        return {a.expr + b.expr, "(" + a.text + " + " + b.text + ")",
                both(a.ref, b.ref, [](std::int64_t x, std::int64_t y) { return opt(x + y); })};
      case 1:
        return {a.expr - b.expr, "(" + a.text + " - " + b.text + ")",
                both(a.ref, b.ref, [](std::int64_t x, std::int64_t y) { return opt(x - y); })};
      case 2:
      case 3:
        return {a.expr * b.expr, "(" + a.text + " * " + b.text + ")",
                both(a.ref, b.ref, [](std::int64_t x, std::int64_t y) { return opt(x * y); })};
      case 4:
        return {floor_div(a.expr, b.expr), "floor_div(" + a.text + ", " + b.text + ")",
                both(a.ref, b.ref, [](std::int64_t x, std::int64_t y) { return ref_floordiv(x, y); })};
      case 5:
        return {mod(a.expr, b.expr), "mod(" + a.text + ", " + b.text + ")",
                both(a.ref, b.ref, [](std::int64_t x, std::int64_t y) { return ref_mod(x, y); })};
      case 6:
        return {ceil_div(a.expr, b.expr), "ceil_div(" + a.text + ", " + b.text + ")",
                both(a.ref, b.ref, [](std::int64_t x, std::int64_t y) -> opt {
                  auto q = ref_floordiv(-x, y);
                  return q ? opt(-*q) : std::nullopt;
                })};
      default: {
        auto ra = a.ref;
        return {-a.expr, "-" + a.text, [ra](const point& p) -> opt {
                  const opt x = ra(p);
                  return x ? opt(-*x) : std::nullopt;
                }};
      }
    }
  }

  std::mt19937 rng_;
};

std::vector<point> grid() {
  std::vector<point> out;
  for (std::int64_t m : {-5, -2, -1, 0, 1, 3, 6}) {
    for (std::int64_t n : {-4, -1, 0, 2, 5}) {
      for (std::int64_t k : {-3, 0, 1, 4}) out.push_back({m, n, k});
    }
  }
  return out;
}

size_hints hints_of(const point& p) { return {{"M", p[0]}, {"N", p[1]}, {"K", p[2]}}; }

TEST(SymExprRandom, SimplificationKeepsTheValue) {
  generator gen(20240611);
  int compared = 0;
  for (int i = 0; i < 400; ++i) {
    const random_expr r = gen.make(4);
    SCOPED_TRACE(r.text + "  ->  " + r.expr.to_string());
    for (const point& p : grid()) {
      const auto expected = r.ref(p);
      if (!expected) continue;  // the tree itself divides by zero (or leaves the reference's exact range)
      std::int64_t got = 0;
      ASSERT_NO_THROW(got = r.expr.evaluate(hints_of(p))) << "at M=" << p[0] << " N=" << p[1] << " K=" << p[2];
      ASSERT_EQ(got, *expected) << "at M=" << p[0] << " N=" << p[1] << " K=" << p[2];
      const sym_expr folded = r.expr.substitute(hints_of(p));
      ASSERT_EQ(folded.constant(), *expected) << "substitute at M=" << p[0] << " N=" << p[1] << " K=" << p[2];
      ++compared;
    }
  }
  EXPECT_GT(compared, 20000);  // the generator really produced evaluable expressions
}

TEST(SymExprRandom, AlgebraicIdentitiesHoldCanonically) {
  generator gen(7);
  for (int i = 0; i < 300; ++i) {
    const sym_expr a = gen.make(3).expr;
    const sym_expr b = gen.make(3).expr;
    const sym_expr c = gen.make(2).expr;
    SCOPED_TRACE("a = " + a.to_string() + ", b = " + b.to_string() + ", c = " + c.to_string());
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b, -(b - a));
    EXPECT_EQ((a - a).constant(), 0);
    EXPECT_EQ((a + b).to_string(), (b + a).to_string());
    EXPECT_EQ((a * b).hash(), (b * a).hash());
    EXPECT_EQ(floor_div(a * 6, 3), 2 * a);
    EXPECT_EQ(mod(a * 6, 3).constant(), 0);
  }
}

// ---- the printed C++ -------------------------------------------------------------------------

bool have_command(const std::string& name) {
  return std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) == 0;
}

using rocmtpl::test::read_file;
using rocmtpl::test::run_logged;
using rocmtpl::test::temp_dir;
using rocmtpl::test::write_file;

std::vector<sym_expr> printed_cases() {
  std::vector<sym_expr> out{M * N + K,           M - 1,
                            N - 2 * M,           1 - M * N,
                            M * M * N - 7,       floor_div(M, 3),
                            floor_div(M, -3),    mod(M, 3),
                            mod(M, -3),          floor_div(M, N),
                            mod(M * K + 1, N),   ceil_div(M, 4),
                            ceil_div(M, N),      2 * floor_div(M + K, N) - mod(K, 5) * N,
                            M + int64_min,       int64_min * (M * M),
                            N - int64_max,       sym_expr(int64_min),
                            sym_expr(int64_max), sym_expr(0)};
  generator gen(99);
  for (int i = 0; i < 40; ++i) out.push_back(gen.make(4).expr);
  return out;
}

// to_cpp() (symbols as u_M, issue 8) computes evaluate()'s value; to_cpp_checked() computes it too and
// flags exactly the points where evaluate() throws (overflow, division by zero) instead of wrapping.
TEST(SymExprCppOutput, PrintedExpressionsCompileAndMatchEvaluate) {
  if (!have_command("c++")) GTEST_SKIP() << "no host C++ compiler 'c++' on PATH";
  const temp_dir tmp("rocmtpl-sym-expr-host");
  const auto& dir = tmp.path();
  const std::vector<sym_expr> exprs = printed_cases();
  std::vector<point> points = grid();
  points.push_back({1, 2, 3});
  points.push_back({int64_max, 1, 0});
  points.push_back({int64_max, int64_max, 2});
  points.push_back({int64_min, -1, 3});
  std::ostringstream src;
  std::vector<std::int64_t> expected;
  // C++11 and -Wpedantic: generated sources must not depend on a newer standard.
  src << rocmtpl::sym_expr_cpp_helpers << rocmtpl::sym_expr_cpp_helpers  // pasting twice is harmless
      << "#include <cstdio>\n";
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    src << "static int64_t f" << i << "(int64_t u_M, int64_t u_N, int64_t u_K) { (void)u_M; (void)u_N; (void)u_K; "
        << "return " << exprs[i].to_cpp() << "; }\n";
    src << "static int64_t g" << i << "(int64_t u_M, int64_t u_N, int64_t u_K, bool* ok) { (void)u_M; (void)u_N; "
        << "(void)u_K; bool rocmtpl_ok = true; const int64_t v = " << exprs[i].to_cpp_checked("rocmtpl_ok")
        << "; *ok = rocmtpl_ok; return v; }\n";
  }
  src << "int main() {\n  bool ok = true;\n  int64_t v = 0;\n";
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    for (const point& p : points) {
      const std::string args =
          std::to_string(p[0]) + "LL, " + std::to_string(p[1]) + "LL, " + std::to_string(p[2]) + "LL";
      std::int64_t value = 0;
      try {
        value = exprs[i].evaluate(hints_of(p));
      } catch (const evaluation_error&) {
        // Division by zero or overflow: undefined in to_cpp()'s text, flagged by the checked text.
        if (p[0] == int64_min) continue;  // "-9223372036854775808LL" is no literal
        expected.push_back(0);
        src << "  v = g" << i << "(" << args << ", &ok);\n  std::printf(\"%d\\n\", ok ? 1 : 0);\n";
        continue;
      }
      if (p[0] == int64_min) continue;
      expected.insert(expected.end(), {value, value, 1});
      src << "  std::printf(\"%lld\\n\", static_cast<long long>(f" << i << "(" << args << ")));\n";
      src << "  v = g" << i << "(" << args << ", &ok);\n"
          << "  std::printf(\"%lld\\n%d\\n\", static_cast<long long>(v), ok ? 1 : 0);\n";
    }
  }
  src << "  return 0;\n}\n";
  write_file(dir / "printed.cpp", src.str());
  const auto built = run_logged({"c++", "-std=c++11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O0",
                                 (dir / "printed.cpp").string(), "-o", (dir / "printed").string()},
                                dir / "compile.log");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  ASSERT_EQ(run_logged({(dir / "printed").string()}, dir / "out.txt").exit_code, 0);
  std::istringstream out(read_file(dir / "out.txt"));
  std::vector<std::int64_t> got;
  for (long long v = 0; out >> v;) got.push_back(v);
  EXPECT_GT(expected.size(), exprs.size() * 50);
  EXPECT_TRUE(std::count(expected.begin(), expected.end(), 0) > 0);
  EXPECT_EQ(got, expected);
}

// The helpers must compile as device code; this builds them (no GPU needed) where a toolchain exists.
void compile_device(const std::string& compiler, const std::string& extension, const std::vector<std::string>& flags,
                    const std::string& prelude) {
  if (!have_command(compiler)) GTEST_SKIP() << "no " << compiler << " on PATH";
  const temp_dir tmp("rocmtpl-sym-expr-" + compiler);
  const auto& dir = tmp.path();
  const sym_expr e = floor_div(M * N + 3, 8) - mod(M, N) + ceil_div(M, 64) + int64_min;
  std::ostringstream src;
  src << prelude << rocmtpl::sym_expr_cpp_helpers
      << "__global__ void k(int64_t* out, int64_t u_M, int64_t u_N) { out[0] = " << e.to_cpp() << "; }\n"
      << "__global__ void c(int64_t* out, int64_t u_M, int64_t u_N) { bool rocmtpl_ok = true; out[0] = "
      << e.to_cpp_checked("rocmtpl_ok") << "; out[1] = rocmtpl_ok; }\n"
      << "static_assert(rocmtpl_floordiv(-7, 2) == -4 && rocmtpl_mod(-7, 2) == 1, \"constexpr helpers\");\n";
  write_file(dir / ("kernel" + extension), src.str());
  std::vector<std::string> argv{compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-c", (dir / ("kernel" + extension)).string(), "-o", (dir / "kernel.o").string()});
  const auto built = run_logged(argv, dir / "compile.log");
  ASSERT_EQ(built.exit_code, 0) << compiler << "\n" << built.output;
}

TEST(SymExprCppOutput, HelpersCompileWithHipcc) {
  compile_device("hipcc", ".hip", {"--offload-arch=gfx90a", "-Wall", "-Werror"}, "#include <hip/hip_runtime.h>\n");
}

TEST(SymExprCppOutput, HelpersCompileWithNvcc) {
  compile_device("nvcc", ".cu", {"-arch=sm_80", "-Werror", "all-warnings"}, "");
}

}  // namespace
