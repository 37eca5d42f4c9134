#!/usr/bin/env bash
# Installs what is needed, builds everything in Release with warnings as errors, and runs every test.
# --sanitize: the same in a Debug build with AddressSanitizer and UndefinedBehaviorSanitizer.
# --validate: the library built with SPHERETEST_VALIDATE (every mutation validates the whole structure) and
#   the differential tests run against it.
# --clang: everything built with Clang in Release, warnings as errors, and every test but the window's and
#   the benchmark's run (those run in the GCC build): the code is kept to standard C++ and the vector-lane
#   header, so both compilers take it.
# --tsan: the differential tests, the tests that run structures on a thread pool, a multi-threaded headless
#   run of every structure and a multi-threaded window screenshot, in a Debug build with ThreadSanitizer; any
#   race report fails it.
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
elif [ "${1:-}" = "--clang" ]; then
  build="$root/build/clang"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DSPHERETEST_WERROR=ON >/dev/null
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE "gui|bench-smoke"
elif [ "${1:-}" = "--tsan" ]; then
  build="$root/build/tsan"
  # Debug keeps the assertions on; -O1 keeps the instrumented run to minutes. Only what runs below is built:
  # no other test starts a thread.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DSPHERETEST_TSAN=ON -DSPHERETEST_WERROR=ON -DSPHERETEST_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j "$jobs" --target differential_test frame_test linear_tree_test spheretest
  # The first report stops the program with a non-zero status, so ctest and set -e see it.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" \
    -R '^AllStructures/(Differential|FrameAndQuery)\.|^ParallelSimulation\.|^ThreadPool\.|^PairView\.|^OrderedPieces\.'
  # More threads than the tests use, and every structure with queries split over the pool, as users run it.
  "$build/app/spheretest" --headless --structure all --count 3000 --frames 40 --threads 4 --queries circle:200
  # Enough circles that the trees hand their hierarchy to the pair search in many parts.
  "$build/app/spheretest" --headless --structure quadtree,fit-quadtree,loose-quadtree,sphere-tree,aabb-tree \
    --count 40000 --frames 4 --threads 3
  # The window, whose CPU drawing of small circles also runs on the pool (under a virtual X server).
  if command -v xvfb-run > /dev/null; then
    xvfb-run -a -s "-screen 0 1280x800x24" "$build/app/spheretest" --count 20000 --frames 8 --threads 3 \
      --screenshot "$build/window-threads.png" > /dev/null
  fi
else
  build="$root/build/release"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPHERETEST_WERROR=ON >/dev/null
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
