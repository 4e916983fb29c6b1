// SPDX-License-Identifier: MIT
// rocmtpl/templates/static_source.hpp: the constant-evaluation render equals the run-time render
// (rocm_template::generate(), and the typed route's make_template()) byte for byte, and its constant hash equals
// rocmtpl::detail::hash64() of it, over a generated set of problems: elementwise (every float dtype of X, Bias and Y,
// no Bias, a rank-1 and a rank-2 Bias, every activation, block sizes from 64 to 1024, sizes, strides and offsets: row-
// and column-major, padded, broadcast and strided, empty problems), pointwise (chains of every op, scales included,
// every broadcast and form of operand, batched problems, an operand no op reads), and the GEMM entry's declaration and
// twins (static and symbolic sizes, a runtime argument, an input order), which must be the last lines of the typed
// GEMM's render. static_source_hash_test.cpp checks hashes with static_assert.
#include <rocmtpl/templates/static_source.hpp>

#include <rocmtpl/detail/constexpr_hash.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>

namespace {
using namespace rocmtpl;
using namespace rocmtpl::templates;

// A pseudo-random pick in [0, n) for case i and a salt (splitmix64): the generated set varies every
// factor independently of the ones the case index enumerates.
constexpr std::size_t pick(std::size_t i, std::uint64_t salt, std::size_t n) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ULL + salt * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<std::size_t>(z % n);
}

// The typed route's render of the same problem (make_template(), kernel/typed_template.hpp).
template <class Policy, class... In, class... Out>
std::string typed_render(Policy policy, kernel_signature<inputs<In...>, outputs<Out...>>* /*sig*/,
                         const elementwise_config& config) {
  return make_template(std::move(policy), inputs<In...>{}, outputs<Out...>{}).generate(config).source();
}

constexpr std::array<dtype, 3> float_types{dtype::f32, dtype::f16, dtype::bf16};
constexpr std::array<int, 5> block_sizes{64, 128, 256, 512, 1024};
constexpr std::array<std::int64_t, 5> m_sizes{1, 3, 17, 64, 200};
constexpr std::array<std::int64_t, 4> n_sizes{1, 5, 32, 40};

// Strides of an [m, n] layout: 0 row-major, 1 column-major, 2 padded rows, 3 strided, 4 rows broadcast
// (an input may overlap: inputs only).
constexpr std::array<std::int64_t, 2> strides_of(std::size_t kind, std::int64_t m, std::int64_t n) {
  switch (kind) {
    case 0: return {n, 1};
    case 1: return {1, m};
    case 2: return {n + 3, 1};
    case 3: return {2 * n, 2};
    default: return {0, 1};
  }
}

template <dtype T, std::int64_t M, std::int64_t N, std::size_t Kind, std::int64_t Offset>
using matrix_layout = static_layout<dtype_tag<T>, dims<ext<M>, ext<N>>,
                                    dims<ext<strides_of(Kind, M, N)[0]>, ext<strides_of(Kind, M, N)[1]>>, Offset>;

template <std::size_t I>
struct elementwise_case {
  // Enumerated: the dtype of X, the bias form and the activation (3 x 3 x 7 = 63, then again).
  static constexpr dtype xt = float_types[I % 3];
  static constexpr std::size_t bias_form = (I / 3) % 3;  // 0 none, 1 [N], 2 [M, N]
  static constexpr activation act = all_activations[(I / 9) % all_activations.size()];
  // Drawn: the rest.
  static constexpr dtype yt = float_types[pick(I, 1, 3)];
  static constexpr dtype bt = float_types[pick(I, 2, 3)];
  static constexpr int threads = block_sizes[pick(I, 3, block_sizes.size())];
  static constexpr std::int64_t m = I == 7 ? 0 : m_sizes[pick(I, 4, m_sizes.size())];  // case 7: empty
  static constexpr std::int64_t n = n_sizes[pick(I, 5, n_sizes.size())];
  static constexpr std::size_t x_kind = pick(I, 6, 5);
  static constexpr std::size_t y_kind = I == 7 ? 0 : pick(I, 7, 4);
  static constexpr std::size_t b_kind = pick(I, 8, 5);
  static constexpr std::int64_t x_offset = static_cast<std::int64_t>(pick(I, 9, 2)) * 5;
  static constexpr std::int64_t y_offset = static_cast<std::int64_t>(pick(I, 10, 2)) * 11;
  static constexpr std::int64_t b_offset = static_cast<std::int64_t>(pick(I, 11, 2)) * 3;
  static constexpr std::int64_t b_stride = 1 + static_cast<std::int64_t>(pick(I, 12, 2));

  using x = static_buffer<"X", matrix_layout<xt, m, n, x_kind, x_offset>>;
  using y = static_buffer<"Y", matrix_layout<yt, m, n, y_kind, y_offset>>;
  using bias = std::conditional_t<
      bias_form == 1, static_buffer<"Bias", static_layout<dtype_tag<bt>, dims<ext<n>>, dims<ext<b_stride>>, b_offset>>,
      static_buffer<"Bias", matrix_layout<bt, m, n, b_kind, b_offset>>>;
  using sig = std::conditional_t<bias_form == 0, kernel_signature<inputs<x>, outputs<y>>,
                                 kernel_signature<inputs<x, bias>, outputs<y>>>;
  using source = static_elementwise_source<sig, elementwise_options{act}, elementwise_config{threads}>;

  static std::string describe() {
    return "case " + std::to_string(I) + ": X " + x::to_value().get_layout().to_string() +
           (bias_form == 0 ? std::string() : ", Bias " + bias::to_value().get_layout().to_string()) + ", Y " +
           y::to_value().get_layout().to_string() + ", " + std::string(to_string(act)) + ", " +
           std::to_string(threads) + " threads";
  }
  static std::string runtime() {
    const rocm_template<elementwise_policy> t(elementwise_policy({act}), sig::input_buffers(),
                                              y::to_value().get_layout());
    return t.generate(elementwise_config{threads}).source();
  }
  static std::string typed() {
    return typed_render(elementwise_policy({act}), static_cast<sig*>(nullptr), elementwise_config{threads});
  }
};

template <class Case>
void check_case() {
  using source = typename Case::source;
  const std::string rendered = Case::runtime();
  EXPECT_EQ(Case::typed(), rendered) << Case::describe();
  EXPECT_EQ(source::size, rendered.size()) << Case::describe();
  EXPECT_EQ(std::string(source::text.view()), rendered) << Case::describe();
  EXPECT_EQ(source::hash, rocmtpl::detail::hash64(rendered)) << Case::describe();
  EXPECT_EQ(source::text.data[source::size], '\0');
}

inline constexpr std::size_t elementwise_cases = 90;

TEST(StaticSource, ElementwiseEqualsTheRuntimeRender) {
  []<std::size_t... I>(std::index_sequence<I...>) { (check_case<elementwise_case<I>>(), ...); }
  (std::make_index_sequence<elementwise_cases>{});
}

TEST(StaticSource, TheGeneratedSetCoversEveryFactor) {
  // Each dtype of X, Bias and Y, each bias form and activation, each block size: the set is what the
  // file comment says.
  std::array<int, 3> x{}, y{}, b{};
  std::array<int, all_activations.size()> acts{};
  std::array<int, 5> threads{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((++x[static_cast<std::size_t>(elementwise_case<I>::xt == dtype::f32   ? 0
                                   : elementwise_case<I>::xt == dtype::f16 ? 1
                                                                           : 2)]),
     ...);
    ((++y[static_cast<std::size_t>(elementwise_case<I>::yt == dtype::f32   ? 0
                                   : elementwise_case<I>::yt == dtype::f16 ? 1
                                                                           : 2)]),
     ...);
    ((++b[elementwise_case<I>::bias_form]), ...);
    ((++acts[static_cast<std::size_t>(elementwise_case<I>::act)]), ...);
    ((++threads[pick(I, 3, block_sizes.size())]), ...);
  }
  (std::make_index_sequence<elementwise_cases>{});
  for (int c : x) EXPECT_GT(c, 0);
  for (int c : y) EXPECT_GT(c, 0);
  for (int c : b) EXPECT_GT(c, 0);
  for (int c : acts) EXPECT_GT(c, 0);
  for (int c : threads) EXPECT_GT(c, 0);
}

// ---- pointwise ----

template <class Sig, class Chain, int Threads>
struct pointwise_case {
  using source = static_pointwise_source<Sig, Chain, elementwise_config{Threads}>;
  static std::string describe() { return "pointwise " + Chain::to_value().to_string(); }
  static std::string runtime() {
    const rocm_template<pointwise_policy> t(pointwise_policy(Chain::to_value()), Sig::input_buffers(),
                                            Sig::output_buffers().front().get_layout());
    return t.generate(elementwise_config{Threads}).source();
  }
  static std::string typed() {
    return typed_render(pointwise_policy(Chain::to_value()), static_cast<Sig*>(nullptr), elementwise_config{Threads});
  }
};

using op = static_epilogue_op;
using bc = epilogue_broadcast;
using act = activation;

template <class T, std::int64_t M, std::int64_t N>
using px = static_buffer<"X", row_major_layout<T, dims<ext<M>, ext<N>>>>;
template <class T, std::int64_t M, std::int64_t N>
using py = static_buffer<"Y", row_major_layout<T, dims<ext<M>, ext<N>>>>;

TEST(StaticSource, PointwiseEqualsTheRuntimeRender) {
  // No op.
  check_case<
      pointwise_case<kernel_signature<inputs<px<f32_t, 8, 8>>, outputs<py<f32_t, 8, 8>>>, static_chain<>, 256>>();
  // Every activation (none writes no statement), then casts to every float dtype.
  check_case<pointwise_case<
      kernel_signature<inputs<px<f16_t, 33, 7>>, outputs<py<bf16_t, 33, 7>>>,
      static_chain<op::activation(act::relu), op::activation(act::gelu), op::activation(act::gelu_tanh),
                   op::activation(act::silu), op::activation(act::sigmoid), op::activation(act::tanh),
                   op::activation(act::none), op::cast(dtype::f16), op::cast(dtype::bf16), op::cast(dtype::f32)>,
      64>>();
  // A row vector [N], a column vector [M], full [M, N] (strided, with an offset), with add, sub and mul.
  using e0 = static_buffer<"E0", row_major_layout<bf16_t, dims<ext<40>>>>;
  using e1 = static_buffer<"E1", static_layout<f32_t, dims<ext<24>>, dims<ext<3>>, 7>>;
  using e2 = static_buffer<"E2", static_layout<f16_t, dims<ext<24>, ext<40>>, dims<ext<1>, ext<30>>, 2>>;
  check_case<pointwise_case<kernel_signature<inputs<px<f32_t, 24, 40>, e0, e1, e2>, outputs<py<f16_t, 24, 40>>>,
                            static_chain<op::add(0, bc::row_vector), op::sub(1, bc::column_vector),
                                         op::mul(2, bc::full), op::activation(act::gelu), op::add(2, bc::full)>,
                            512>>();
  // The rank-2 forms of the vectors ([1, N], [M, 1]) and a size-1 full operand broadcast by stride 0.
  using f0 = static_buffer<"E0", row_major_layout<f16_t, dims<ext<1>, ext<40>>>>;
  using f1 = static_buffer<"E1", row_major_layout<f16_t, dims<ext<24>, ext<1>>>>;
  using f2 = static_buffer<"E2", row_major_layout<f32_t, dims<ext<1>, ext<40>>>>;
  check_case<pointwise_case<kernel_signature<inputs<px<f16_t, 24, 40>, f0, f1, f2>, outputs<py<f16_t, 24, 40>>>,
                            static_chain<op::mul(0, bc::row_vector), op::add(1, bc::column_vector),
                                         op::sub(2, bc::full), op::activation(act::sigmoid)>,
                            128>>();
  // Batched: X strided with an offset, a [B, M, N] operand, a [M, N] operand broadcast over the batch,
  // and an operand no op reads (full by default).
  using bx =
      static_buffer<"X", static_layout<bf16_t, dims<ext<3>, ext<16>, ext<8>>, dims<ext<256>, ext<1>, ext<16>>, 9>>;
  using b0 = static_buffer<"E0", row_major_layout<f32_t, dims<ext<16>, ext<8>>>>;
  using b1 = static_buffer<"E1", row_major_layout<bf16_t, dims<ext<3>, ext<16>, ext<8>>>>;
  using b2 = static_buffer<"E2", row_major_layout<f16_t, dims<ext<3>, ext<16>, ext<8>>>>;
  using by = static_buffer<"Y", row_major_layout<f32_t, dims<ext<3>, ext<16>, ext<8>>>>;
  check_case<
      pointwise_case<kernel_signature<inputs<bx, b0, b1, b2>, outputs<by>>,
                     static_chain<op::add(0, bc::full), op::mul(2, bc::full), op::activation(act::tanh)>, 1024>>();
  // An empty problem: no null checks, no blocks.
  using v8 = static_buffer<"E0", row_major_layout<f32_t, dims<ext<8>>>>;
  check_case<pointwise_case<kernel_signature<inputs<px<f32_t, 0, 8>, v8>, outputs<py<f32_t, 0, 8>>>,
                            static_chain<op::add(0, bc::row_vector)>, 256>>();
}

TEST(StaticSource, PointwiseOverGeneratedDtypes) {
  // The three-operand chain over every combination of X, operand and Y dtypes (27).
  []<std::size_t... I>(std::index_sequence<I...>) {
    (check_case<pointwise_case<
         kernel_signature<
             inputs<px<dtype_tag<float_types[I % 3]>, 5, 12>,
                    static_buffer<"E0", row_major_layout<dtype_tag<float_types[(I / 3) % 3]>, dims<ext<12>>>>,
                    static_buffer<"E1", row_major_layout<dtype_tag<float_types[(I / 3) % 3]>, dims<ext<5>, ext<1>>>>,
                    static_buffer<"E2", row_major_layout<dtype_tag<float_types[(I / 3) % 3]>, dims<ext<5>, ext<12>>>>>,
             outputs<py<dtype_tag<float_types[I / 9]>, 5, 12>>>,
         static_chain<op::add(0, bc::row_vector), op::mul(1, bc::column_vector), op::sub(2, bc::full),
                      op::cast(float_types[I % 3])>,
         256>>(),
     ...);
  }
  (std::make_index_sequence<27>{});
}

TEST(StaticSource, PointwiseScales) {
  // Scales spelt in %.9g's fixed and exponent forms, integers, denormals, negatives.
  check_case<pointwise_case<
      kernel_signature<inputs<px<f32_t, 4, 16>>, outputs<py<f16_t, 4, 16>>>,
      static_chain<op::scale(0.5F), op::scale(-3.0F), op::scale(1e-7F), op::scale(123456789.0F),
                   op::scale(1.17549435e-38F), op::scale(1e-45F), op::scale(0.1F), op::scale(3.4028235e38F),
                   op::scale(-0.0F), op::scale(100000000.0F), op::scale(0.0001F), op::scale(0.00001F)>,
      256>>();
}

TEST(StaticSource, ConstantFloatTextIsTheRuntimes) {
  // The constant %.9g against snprintf's, over random bit patterns (every exponent) and edge values.
  std::mt19937 rng(6);
  const auto check = [](std::uint32_t bits) {
    const float v = std::bit_cast<float>(bits);
    EXPECT_EQ(std::string(templates::detail::static_render::float_text(bits).view()),
              rocmtpl::detail::epilogue_impl::float_text(v))
        << std::hex << bits;
  };
  for (int i = 0; i < 200000; ++i) check(static_cast<std::uint32_t>(rng()));
  for (std::uint32_t bits : {0x00000000U, 0x80000000U, 0x00000001U, 0x007FFFFFU, 0x00800000U, 0x7F7FFFFFU, 0x3F800000U,
                             0x4CBEBC20U, 0x3DCCCCCDU, 0x7F800000U, 0xFF800000U}) {
    check(bits);
  }
  for (std::uint32_t k = 0; k < 100000; ++k) check(std::bit_cast<std::uint32_t>(static_cast<float>(k)));
  for (std::uint32_t k = 1; k < 100000; ++k) check(std::bit_cast<std::uint32_t>(1.0F / static_cast<float>(k)));
  static_assert(templates::detail::static_render::float_text(std::bit_cast<std::uint32_t>(0.5F)).view() == "0.5");
  static_assert(templates::detail::static_render::float_text(std::bit_cast<std::uint32_t>(2.0F)).view() == "2.0");
  static_assert(templates::detail::static_render::float_text(std::bit_cast<std::uint32_t>(1e10F)).view() == "1e+10");
}

// ---- GEMM: the entry's declaration and twins ----

template <class Sig, class Template, class Config, class Hints>
void check_gemm_entry(const Template& typed, const Config& config, const Hints& hints) {
  using decl = static_entry_source<Sig, "rocm_gemm", static_entry_part::declaration>;
  using twins = static_entry_source<Sig, "rocm_gemm", static_entry_part::twins>;
  const auto caller = typed.generate(config, hints);
  const std::string& s = caller.source();
  // The declaration: the typed caller's, and the definition's first line.
  EXPECT_EQ(std::string(decl::text.view()), caller.declaration());
  const std::string definition =
      std::string(rocmtpl::detail::entry_text::host_guard_open) + std::string(decl::text.view()) + " {\n";
  EXPECT_NE(s.find(definition), std::string::npos) << s;
  // The twins: the entry's last lines, byte for byte.
  const std::string tail = std::string(twins::text.view()) +
                           std::string(rocmtpl::detail::entry_text::host_guard_close) + "#undef " +
                           std::string(device_symbol_macro) + "\n";
  ASSERT_GE(s.size(), tail.size());
  EXPECT_EQ(s.substr(s.size() - tail.size()), tail);
  EXPECT_EQ(twins::hash, rocmtpl::detail::hash64(s.substr(s.size() - tail.size(), twins::size)));
}

TEST(StaticSource, GemmEntryIsTheRuntimeRendersEnd) {
  using sx = static_buffer<"X", row_major_layout<f32_t, dims<ext<128>, ext<64>>>>;
  using sw = static_buffer<"W", row_major_layout<f32_t, dims<ext<64>, ext<96>>>>;
  using sy = static_buffer<"Y", row_major_layout<f32_t, dims<ext<128>, ext<96>>>>;
  check_gemm_entry<kernel_signature<inputs<sx, sw>, outputs<sy>>>(
      make_template(gemm_policy{}, inputs<sx, sw>{}, outputs<sy>{}), gemm_config{}, hints<>{});

  using mx = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, sym<"K">>>>;
  using mw = static_buffer<"W", row_major_layout<f16_t, dims<sym<"K">, ext<32>>>>;
  using my = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
  check_gemm_entry<kernel_signature<inputs<mx, mw>, outputs<my>>>(
      make_template(gemm_policy{}, inputs<mx, mw>{}, outputs<my>{}), gemm_config{}, hints<"M", "K">{100, 64});

  using bias = static_buffer<"Bias", row_major_layout<bf16_t, dims<ext<32>>>>;
  using bx = static_buffer<"X", row_major_layout<bf16_t, dims<sym<"M">, ext<64>>>>;
  using bw = static_buffer<"W", row_major_layout<bf16_t, dims<ext<64>, ext<32>>>>;
  using by = static_buffer<"Y", row_major_layout<bf16_t, dims<sym<"M">, ext<32>>>>;
  using split = runtime_args<arg<"split_k", std::int32_t>>;
  const gemm_config config = gemm_config{}.with_split_k(2);
  check_gemm_entry<kernel_signature<inputs<bx, bw, bias>, outputs<by>, split, input_order<2, 0, 1>>>(
      make_template(gemm_policy({.act = activation::relu, .runtime_split_k = true}), inputs<bx, bw, bias>{},
                    outputs<by>{}, split{}, input_order<2, 0, 1>{}),
      config, hints<"M">{8});
}

// ---- the constant hash ----

TEST(StaticSource, ConstantXxh3IsTheRuntimeHash) {
  // Every length across the four forms of XXH3-64 (0-16, 17-128, 129-240, long: blocks of 1024 and a
  // partial last stripe), over pseudo-random bytes.
  std::mt19937 rng(24);
  std::string text;
  for (std::size_t n = 0; n <= 2300; ++n) {
    text.resize(n);
    for (auto& c : text) c = static_cast<char>(rng());
    ASSERT_EQ(rocmtpl::detail::xxh3_64(text), rocmtpl::detail::hash64(text)) << "length " << n;
  }
  static_assert(rocmtpl::detail::xxh3_64("") == 0x2D06800538D394C2ULL);  // xxHash's published value for no input
}

}  // namespace
