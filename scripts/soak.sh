#!/usr/bin/env bash
# Long run: the window under Xvfb with 50,000 circles, switching structure every second, every switch checked
# against brute force (circle count and positions kept, same pairs). Built with AddressSanitizer, so
# LeakSanitizer reports any leak at exit; resident memory is printed at every switch.
# Usage: scripts/soak.sh [SECONDS] [COUNT]   (default 600 s, 50000 circles)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
count="${2:-50000}"
"$root/scripts/install-deps.sh"
build="$root/build/soak"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPHERETEST_SANITIZE=ON \
  -DSPHERETEST_BUILD_TESTS=OFF -DSPHERETEST_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target spheretest -j "$(nproc)"
# The GL driver and X libraries keep allocations until exit on purpose; only our code is judged.
export LSAN_OPTIONS="suppressions=$root/scripts/lsan-third-party.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1"
export SPHERETEST_NO_SETTINGS=1
# SDL unloads the GL driver at exit, before the leak check: its allocations would then come from an unknown
# module that no suppression can name. Preloading the driver (after the sanitizer runtime, which must come
# first) keeps it mapped, so the suppressions above apply to it.
preload="$(gcc -print-file-name=libasan.so)"
driver="$(ls /usr/lib/*/dri/swrast_dri.so 2>/dev/null | head -n 1 || true)"
if [ -n "$driver" ]; then preload="$preload $driver"; fi
xvfb-run -a -s "-screen 0 1280x800x24" env LD_PRELOAD="$preload" \
  "$build/app/spheretest" --count "$count" --soak "$seconds" --switch-every 1
echo "soak: finished with no failed switch and no leak report"
