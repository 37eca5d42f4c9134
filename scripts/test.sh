#!/usr/bin/env bash
# Installs what is needed, builds everything in Release with warnings as errors, and runs every test.
# --sanitize: the same in a Debug build with AddressSanitizer and UndefinedBehaviorSanitizer.
# --validate: the library built with SPHERETEST_VALIDATE (every mutation validates the whole structure) and
#   the differential tests run against it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
jobs="$(nproc)"
if [ "${1:-}" = "--sanitize" ]; then
  build="$root/build/sanitize"
  # -O1 keeps the sanitized Debug build (assertions on) fast enough to run every test.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DSPHERETEST_SANITIZE=ON -DSPHERETEST_WERROR=ON >/dev/null
  cmake --build "$build" -j "$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # The window test and the benchmark smoke run are covered by the Release pass.
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE "gui|bench-smoke"
elif [ "${1:-}" = "--validate" ]; then
  build="$root/build/validate"
  # The differential tests drive every mutation of every structure against brute force; with a validation
  # after each one they are the check that no call leaves a structure broken. Nothing else is built.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPHERETEST_WERROR=ON \
    -DSPHERETEST_VALIDATE=ON -DSPHERETEST_BUILD_APP=OFF -DSPHERETEST_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j "$jobs" --target differential_test
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -R '^AllStructures/Differential\.'
else
  build="$root/build/release"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPHERETEST_WERROR=ON >/dev/null
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
