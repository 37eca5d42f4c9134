#!/usr/bin/env bash
# Installs what is needed, builds in Release and runs spheretest: the window where there is a display,
# the headless report where there is none. Extra arguments go to spheretest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build/release" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build/release" --target spheretest
exec "$root/build/release/app/spheretest" "$@"
