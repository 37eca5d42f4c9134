#!/usr/bin/env bash
# The library and the programs as someone outside the project gets them. Installs a build (default the
# Release build scripts/test.sh made) to a scratch prefix and checks what is there; builds examples/ against
# the installed CMake package, and the README's example against the pkg-config file, and runs them; runs
# the installed app from outside the source tree (the report, and the window under Xvfb reading its
# installed assets); builds examples/subproject, which takes the library in with add_subdirectory.
# Usage: scripts/check-install.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build/release}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
jobs="$(nproc)"
fail() {
  echo "check-install: FAIL: $*" >&2
  exit 1
}
trap 'echo "check-install: FAIL: the command at line $LINENO failed" >&2' ERR
# expect NAME REGEX < output: the output must contain a line matching REGEX; prints that line, or all of the
# output when none matches.
expect() {
  local output
  output="$(cat)"
  if ! printf '%s\n' "$output" | grep -E "$2" | sed "s/^/  $1: /"; then
    printf '%s\n' "$output" | sed 's/^/    /'
    fail "$1: no line matches /$2/"
  fi
}

echo "== install to $prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
pc="$(find "$prefix" -name spheretest.pc)"
[ -n "$pc" ] || fail "no spheretest.pc installed"
libdir="$(dirname "$(dirname "$pc")")"
for file in "$libdir/libspheretest_core.a" "$libdir/libspheretest_app.a" "$libdir/cmake/spheretest/spheretestConfig.cmake" \
  "$libdir/cmake/spheretest/spheretestConfigVersion.cmake" "$libdir/cmake/spheretest/spheretestTargets.cmake" \
  "$prefix/bin/spheretest" "$prefix/bin/spheretest-bench" "$prefix/share/spheretest/assets/explanations/grid.md" \
  "$prefix/share/applications/spheretest.desktop" "$prefix/share/icons/hicolor/scalable/apps/spheretest.svg"; do
  [ -e "$file" ] || fail "not installed: ${file#"$prefix"/}"
done
# The public headers and the generated version header, nothing else: no header from core/src, no assert.hpp.
expected="$( {
  find "$root/core/include/spheretest" "$root/app/include/spheretest" -maxdepth 1 -name '*.hpp' ! -name assert.hpp \
    -printf '%f\n'
  echo version.hpp
} | sort)"
installed="$(find "$prefix/include/spheretest" -mindepth 1 -printf '%f\n' | sort)"
[ "$expected" = "$installed" ] || fail "installed headers differ from the public ones:
$(diff <(echo "$expected") <(echo "$installed"))"
# Each one compiles on its own from the installed tree.
for header in $installed; do
  echo "#include <spheretest/$header>" | g++ -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
    -I"$prefix/include" -x c++ - || fail "spheretest/$header does not compile on its own"
done
echo "  $(echo "$installed" | wc -l) headers, library, CMake package, pkg-config file, programs, assets"

echo "== examples/ built against the installed package"
cmake -S "$root/examples" -B "$work/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/examples.log" || { cat "$work/examples.log"; fail "examples: configure"; }
grep -q "spheretest .* from $libdir/cmake/spheretest" "$work/examples.log" || fail "examples did not use $prefix"
cmake --build "$work/examples" -j "$jobs" > /dev/null || fail "examples: build"
"$work/examples/first_steps" | expect first_steps '^3 circles, 2 pairs, 2 within 3 of the origin$'
# Every structure of the library in the game loop; each run compares its pairs with brute force.
structures="$("$prefix/bin/spheretest" --list-structures | grep -v '\[peer\]' |
  sed -n 's/^  \([a-z0-9][a-z0-9_-]*\) .*/\1/p')"
[ -n "$structures" ] || fail "no structures listed"
for structure in $structures; do
  "$work/examples/game_loop" "$structure" 2000 60 > "$work/game_loop.out" || {
    cat "$work/game_loop.out"
    fail "game_loop $structure exited with an error"
  }
  expect "game_loop $structure" '^frame 60: [1-9][0-9]* pairs; the ray first hits circle [0-9]+; [1-9][0-9]* circles' \
    < "$work/game_loop.out"
  grep -q '^agrees with brute force: yes$' "$work/game_loop.out" || fail "game_loop $structure disagrees"
done
# A structure written outside the library, checked against brute force with the library's own oracle check.
"$work/examples/sweep_and_prune" 3000 60 > "$work/sweep.out" || {
  cat "$work/sweep.out"
  fail "sweep_and_prune disagrees with brute force"
}
expect sweep_and_prune '^3000 circles, 60 frames: [1-9][0-9]* pairs a frame' < "$work/sweep.out"
grep -q '^agrees with brute force: yes$' "$work/sweep.out" || fail "sweep_and_prune did not finish its checks"
# The whole program with the example's structure added through the app component: the report, where brute
# force checks it, and the window, reading the installed assets.
[ -x "$work/examples/sweep_and_prune_window" ] || fail "sweep_and_prune_window was not built (no app component?)"
(cd "$work" && "$work/examples/sweep_and_prune_window" --headless --count 2000 --frames 10 \
  --structure brute,sweep-and-prune --queries nearest:100 2> /dev/null) |
  expect sweep_and_prune_window '^sweep-and-prune .* yes$'
"$root/scripts/check-installed-window.sh" "$work/examples/sweep_and_prune_window" "$prefix/share/spheretest/assets"
"$work/examples/scene_counts" "$root/examples/scenes/touching.csv" | tee "$work/scene.out" |
  expect scene_counts '^3 overlapping pairs; '
grep -q ': 7 circles (2 static, 5 moving)$' "$work/scene.out" || fail "scene_counts: wrong circle counts"
status=0
"$work/examples/scene_counts" "$work/no-such-scene.csv" 2> /dev/null || status=$?
[ "$status" -eq 2 ] || fail "scene_counts on a missing file exited $status, not 2"

echo "== the README's example, compiled with pkg-config"
# The README shows examples/first_steps.cpp whole; the two must not drift apart.
sed -n '/^<!-- examples\/first_steps.cpp -->$/,/^```$/p' "$root/README.md" | sed '1,2d;$d' > "$work/readme.cpp"
diff -u "$root/examples/first_steps.cpp" "$work/readme.cpp" || fail "README's example differs from examples/first_steps.cpp"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion spheretest)" = "$("$prefix/bin/spheretest" --version | cut -d' ' -f2)" ] ||
  fail "pkg-config version differs from spheretest --version"
# shellcheck disable=SC2046  # the flags are meant to split
g++ -std=c++20 -O2 -Wall -Wextra -Werror "$work/readme.cpp" $(pkg-config --cflags --libs spheretest) \
  -o "$work/readme" || fail "the README's example does not build with pkg-config"
"$work/readme" | expect readme '^3 circles, 2 pairs, 2 within 3 of the origin$'

echo "== the installed programs, run from outside the source tree"
cd "$work"
"$prefix/bin/spheretest" --version | expect version "^spheretest [0-9]+\.[0-9]+\.[0-9]+$"
"$prefix/bin/spheretest" --headless --count 1000 --frames 5 --structure brute,grid,aabb-tree |
  expect headless '^aabb-tree .* yes$'
"$prefix/bin/spheretest-bench" --help > /dev/null || fail "spheretest-bench --help"
# The window, reading the installed assets/.
"$root/scripts/check-installed-window.sh" "$prefix/bin/spheretest" "$prefix/share/spheretest/assets"

echo "== examples/subproject: add_subdirectory of the source tree"
cmake -S "$root/examples/subproject" -B "$work/subproject" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null ||
  fail "subproject: configure"
cmake --build "$work/subproject" -j "$jobs" > /dev/null || fail "subproject: build"
"$work/subproject/game_loop" grid 1000 30 | expect subproject '^agrees with brute force: yes$'

echo "check-install: all passed"
