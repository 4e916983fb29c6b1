// SPDX-License-Identifier: MIT
// Seeds a tuning database for the `db` tests of rocmtpl-tune (label cli): a fresh file at argv[1]
// with two records through the public tuning_db API, and the first record's digest in argv[2].
//   1. gemm on gfx90a: three candidates (0.125 ms on GPU 0 wins, 0.25 ms on GPU 1, a compile failure);
//   2. softmax on sm_90: one candidate. Its problem text is chosen so that its digest starts with
//      the same hex digit as the first one's, so that a one-digit prefix is ambiguous.
#include <rocmtpl/runtime/db/tuning_db.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  using namespace rocmtpl::runtime;
  if (argc != 3) {
    std::fputs("usage: rocmtpl_cli_seed_db <database file> <digest file>\n", stderr);
    return 2;
  }
  try {
    const std::filesystem::path file = argv[1];
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
    tuning_db db(file);

    const tuning_key gemm{"gemm",
                          "x:float16[64,32]/[32,1]+0 w:float16[32,48]/[1,32]+0 -> y:float16[64,48]",
                          "",
                          "gfx90a",
                          "AMD Instinct MI210",
                          "clang version 15.0.7",
                          "0.1.0"};
    // An ok measurement, timed on GPU `gpu` of the key's model.
    auto timed = [](const char* candidate, const char* config, const char* hash, double min_ms, int repetitions,
                    const std::string& device, const char* gpu) {
      measurement m;
      m.candidate = candidate;
      m.config = config;
      m.source_hash = hash;
      m.min_ms = min_ms;
      m.median_ms = min_ms * 1.04;
      m.spread = 0.02;
      m.repetitions = repetitions;
      m.verified = true;
      m.max_error = 1e-6;
      m.device = device;
      m.device_id = gpu;
      return m;
    };
    const auto fast = timed("gemm-a", "block_m=64 block_n=64", "aaaa", 0.125, 40, gemm.device, "0");
    const auto slow = timed("gemm-b", "block_m=32 block_n=32", "bbbb", 0.25, 40, gemm.device, "1");
    measurement broken;  // never ran: on no device
    broken.candidate = "gemm-c";
    broken.config = "block_m=128 block_n=128";
    broken.source_hash = "cccc";
    broken.status = candidate_status::compile_failed;
    broken.reason = "ptxas: out of registers\nsecond line";
    db.record(gemm, {fast, slow, broken}, std::string("gemm-a"));

    tuning_key softmax{"softmax", "", "", "sm_90", "NVIDIA H100 80GB HBM3", "nvcc 13.0", "0.1.0"};
    for (int n = 0; n < 10000; ++n) {
      softmax.problem = "x:float32[" + std::to_string(n) + ",1024]";
      if (softmax.digest().front() == gemm.digest().front()) break;
    }
    const auto only = timed("softmax-a", "block=256", "dddd", 0.01, 100, softmax.device, "GPU-3f2c");
    db.record(softmax, {only}, std::string("softmax-a"));

    std::ofstream(argv[2]) << gemm.digest() << '\n';
    std::printf("seeded %s: gemm %s, softmax %s\n", file.c_str(), gemm.digest().c_str(), softmax.digest().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocmtpl_cli_seed_db: %s\n", e.what());
    return 1;
  }
  return 0;
}
