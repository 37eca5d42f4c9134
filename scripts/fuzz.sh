#!/usr/bin/env bash
# Builds the libFuzzer target with clang (AddressSanitizer + UBSan) and runs it for a bounded time,
# starting from the kept corpus; new interesting inputs go to build/fuzz/corpus-new, crashes to build/fuzz.
# Usage: scripts/fuzz.sh [SECONDS] [RUNS] [SEED]   (default 60 s, unlimited runs, a random seed)
# CI passes a run count and a seed so that its fuzz pass is the same on every machine (SECONDS caps it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
runs="${2:--1}"
seed="${3:-0}"
build="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSPHERETEST_FUZZ=ON -DSPHERETEST_SANITIZE=ON -DSPHERETEST_BUILD_APP=OFF -DSPHERETEST_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target structure_fuzzer -j "$(nproc)"
mkdir -p "$build/corpus-new"
cd "$build"
ASAN_OPTIONS=detect_leaks=1 "$build/tests/structure_fuzzer" -max_total_time="$seconds" -runs="$runs" -seed="$seed" -timeout=20 \
  -print_final_stats=1 "$build/corpus-new" "$root/tests/fuzz/corpus"
echo "fuzz: no crash (at most ${seconds} s, runs ${runs}, seed ${seed})"
