// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/tune/plot.hpp: the candidates' and the winners' plots are drawn to PNG
// and SVG files that are what their extension says (skipped with a message without gnuplot).
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/tune/plot.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace rt = rocmtpl::runtime;

struct temp_dir {
  fs::path path;
  temp_dir() {
    std::string pattern = (fs::temp_directory_path() / "rocmtpl-plot-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool have_gnuplot() { return rt::find_executable("gnuplot").has_value(); }

const std::vector<rt::candidate_point> candidates{
    {"bm64_bn64_bk16_tm4_tn4", 0.25, 0.26}, {"bm128_bn64_bk16_tm8_tn4", 0.18, 0.19}, {"it's \"odd\"", 0.4, 0.5}};
const std::vector<rt::winner_point> winners{{"256x256x256 f32", 1.5, "bm64_bn64"},
                                            {"1024x1024x1024 f32", 12.25, "bm128_bn128"},
                                            {"4096x4096x4096 f32", 25.0, "bm128_bn128"}};

TEST(Plot, CandidatesToPngAndSvg) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot not on PATH (apt-get install gnuplot-nox)";
  temp_dir dir;
  const auto png = rt::plot_candidates(dir.path / "sub" / "times.png", "gemm {M}=4096 'quoted'", candidates);
  ASSERT_TRUE(png.written) << png.message;
  EXPECT_EQ(read_text(dir.path / "sub" / "times.png").substr(1, 3), "PNG");
  const auto svg = rt::plot_candidates(dir.path / "times.svg", "gemm", candidates);
  ASSERT_TRUE(svg.written) << svg.message;
  const auto text = read_text(dir.path / "times.svg");
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("bm128_bn64_bk16_tm8_tn4"), std::string::npos);  // the configurations label the axis
}

TEST(Plot, WinnersToPngAndSvg) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot not on PATH (apt-get install gnuplot-nox)";
  temp_dir dir;
  const auto png = rt::plot_winners(dir.path / "winners.png", "batch", winners);
  ASSERT_TRUE(png.written) << png.message;
  EXPECT_EQ(read_text(dir.path / "winners.png").substr(1, 3), "PNG");
  const auto svg = rt::plot_winners(dir.path / "winners.svg", "batch", winners);
  ASSERT_TRUE(svg.written) << svg.message;
  const auto text = read_text(dir.path / "winners.svg");
  EXPECT_NE(text.find("1024x1024x1024 f32"), std::string::npos);
  EXPECT_NE(text.find("TFLOP/s"), std::string::npos);
}

TEST(Plot, NothingToDrawWritesNothing) {
  temp_dir dir;
  const auto r = rt::plot_winners(dir.path / "w.png", "empty", {});
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.message.find("no winners"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path / "w.png"));
}

TEST(Plot, OnlyPngOrSvg) {
  temp_dir dir;
  EXPECT_THROW((void)rt::plot_candidates(dir.path / "t.gif", "t", candidates), rocmtpl::invalid_argument_error);
}

}  // namespace
