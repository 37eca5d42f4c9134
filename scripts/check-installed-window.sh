#!/usr/bin/env bash
# Runs an installed spheretest's window under Xvfb, from outside the source tree, with the Explain panel
# open, and checks that it draws and that it read its explanations from the installed assets directory
# (never from the source tree compiled in, which a packaged program does not have).
# Usage: scripts/check-installed-window.sh PROGRAM ASSETS_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
program="$1"
assets="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! command -v xvfb-run > /dev/null; then
  echo "  no xvfb-run (Debian package xvfb): the window is not checked"
  exit 0
fi
trace=()
if command -v strace > /dev/null && strace -o /dev/null true 2> /dev/null; then
  trace=(strace -f -qq -e trace=openat -o "$work/open.trace")
fi
SPHERETEST_NO_SETTINGS=1 SPHERETEST_OPEN_PANELS=Explain SPHERETEST_TEACH=explain=grid \
  xvfb-run -a -s "-screen 0 1280x800x24" "${trace[@]}" "$program" --count 2000 --structure grid --frames 5 \
  --screenshot "$work/window.png" > "$work/window.log" 2>&1 || {
  cat "$work/window.log"
  echo "FAIL: $program did not open its window" >&2
  exit 1
}
# A PNG of the window's size.
if ! file "$work/window.png" | grep -q 'PNG image data, 1280 x 800'; then
  echo "FAIL: no 1280x800 screenshot from $program: $(file "$work/window.png")" >&2
  exit 1
fi
if [ ${#trace[@]} -eq 0 ]; then
  echo "  window drawn; strace cannot trace here, so which assets/ it read is left to asset_location_test"
  exit 0
fi
if ! grep -Eq "openat\(.*\"$assets/explanations/grid.md\", O_RDONLY[^)]*\) = [0-9]+$" "$work/open.trace"; then
  echo "FAIL: $program did not read $assets/explanations/grid.md; it opened:" >&2
  grep explanations "$work/open.trace" | head -n 3 >&2
  exit 1
fi
if grep -q "\"$root/assets/" "$work/open.trace"; then
  echo "FAIL: $program read the source tree's assets" >&2
  exit 1
fi
echo "  window drawn (1280x800); explanations read from $assets"
