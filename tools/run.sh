#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two commands on a fresh Debian 12 machine:
#   tools/run.sh tune   installs what it needs, builds, and tunes a GEMM (the main job)
#   tools/run.sh test   installs what it needs, builds the Release configuration (-O3, -Werror: what
#                       users build) with tools, examples and benchmarks and runs the tests that are not
#                       GoogleTest programs, then builds every test program once under ASan + UBSan
#                       (Debug) and runs them
# .ci/run also calls `tools/run.sh check-format` (clang-format 14, the pinned version) and the main job.
# Package installation is idempotent: only missing packages are installed, without prompts.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ clang-15 hipcc libamdhip64-dev librange-v3-dev googletest libgtest-dev libbenchmark-dev
          libfmt-dev libspdlog-dev nlohmann-json3-dev libsqlite3-dev libcli11-dev libxxhash-dev doxygen clang-format-14
          libpq-dev postgresql gnuplot-nox)
# libpq-dev enables the PostgreSQL tuning database backend; postgresql (15 on Debian 12) gives the
# server binaries that the PostgreSQL tests start themselves (initdb into a temporary folder, a Unix
# socket): no system service is used. gnuplot-nox draws `rocmtpl-tune db plot`'s PNGs.

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "rocmtpl: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

jobs=$(nproc)
case "${1:-}" in
  tune)
    shift
    install_packages
    cmake --preset release > /dev/null
    cmake --build --preset release --target rocmtpl-tune rocmtpl-bench-worker -j "$jobs"
    # A square fp16 GEMM with a fused bias + relu; without a GPU: compile for AMD, print resource usage.
    # The user's options replace these defaults (tools/tune_args.sh).
    mapfile -d '' -t args < <(tools/tune_args.sh "$@")
    exec build/release/tools/rocmtpl-tune gemm "${args[@]}"
    ;;
  test)
    install_packages
    # Release (-O3, -Werror: what users build; g++ 12 reports some warnings only there): the tools and
    # examples, and the tests that are not GoogleTest programs (package, fail, cli, example, docs).
    # `tune` reuses this build.
    cmake --preset release > /dev/null
    cmake --build --preset release -j "$jobs"
    echo "rocmtpl: release build done at ${SECONDS} s"
    ctest --preset release -j "$jobs"
    echo "rocmtpl: release tests done at ${SECONDS} s"
    # Every GoogleTest program (unit, golden, runtime, gpu, and the ODR check), built once, under
    # ASan + UBSan (Debug, -g1, -Werror) with clang 15 (hipcc's): a sanitized test file compiles in
    # about half g++ 12's CPU time (20 s against 39 s for runtime/build/code_cache_test.cpp), so the
    # test programs are checked by both compilers' warnings; gpu tests skip with a message without a GPU.
    # The same pass builds the benchmark programs and compiles every public header alone
    # (VERIFY_INTERFACE_HEADER_SETS) against the compiled library: a seventh of the CPU time the
    # header-only -O3 release build took for them (the GPU machine builds the benchmarks at -O3).
    cmake --preset asan > /dev/null
    cmake --build --preset asan --target rocmtpl_test_programs rocmtpl_benchmarks all_verify_interface_header_sets \
      -j "$jobs"
    echo "rocmtpl: sanitizer build done at ${SECONDS} s"
    # The AMD emulator's tests (label amd-emu, issue 23; clang-15 builds the emulated kernels) are in
    # the unit and runtime labels: `ctest --preset asan -L amd-emu` runs them alone.
    # Twice as many tests as cores: many runtime tests wait (worker timeouts, compiler processes
    # started two at a time), so the label ran in 472 s at -j4 against 522 s at -j2 on 2 cores (the
    # release tests, compile-bound, gained nothing from it).
    ctest --preset asan -j "$((jobs * 2))" -L 'unit|golden|gpu'
    # Runtime tests load HIP libraries; libamdhip64 leaves ~800 bytes allocated after dlclose, whose
    # frames are unmapped by then (so no suppression can name them): leak checks off for these only.
    ASAN_OPTIONS=detect_leaks=0 ctest --preset asan -j "$((jobs * 2))" -L runtime
    echo "rocmtpl: sanitizer tests done at ${SECONDS} s"
    ;;
  check-format)
    install_packages
    # Every C++ file git tracks. Generated code lives in raw strings: their delimiters must not be
    # one that Google style formats as C++ or proto (cc, cpp, c++, pb, proto, ...), or the format
    # would rewrite generated text.
    git ls-files -z '*.hpp' '*.cpp' '*.h' '*.cu' '*.cuh' | xargs -0 clang-format-14 --dry-run --Werror
    echo "rocmtpl: clang-format clean"
    ;;
  *)
    echo "usage: tools/run.sh tune [rocmtpl-tune options] | tools/run.sh test | tools/run.sh check-format" >&2
    exit 2
    ;;
esac
