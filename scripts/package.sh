#!/usr/bin/env bash
# The Debian package of the app, made by CPack from a Release build (default build/release, which
# scripts/test.sh makes): BUILD/spheretest_VERSION_amd64.deb with the program, its assets, a desktop entry
# and an icon. Checks the package's control fields and contents.
# --install (as root): also installs it with apt as a user would, runs the installed program from
# /usr/bin (the report, and the window under Xvfb), then purges it again. It refuses to run where a
# spheretest package is already installed, so it never replaces or removes someone's own.
# Usage: scripts/package.sh [--install] [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
install=0
if [ "${1:-}" = "--install" ]; then
  install=1
  shift
fi
build="$(cd "${1:-$root/build/release}" && pwd)"
fail() {
  echo "package: FAIL: $*" >&2
  exit 1
}
trap 'echo "package: FAIL: the command at line $LINENO failed" >&2' ERR

version="$("$build/app/spheretest" --version | cut -d' ' -f2)"
rm -f "$build"/spheretest_*.deb
(cd "$build" && cpack -G DEB > cpack.log 2>&1) || {
  cat "$build/cpack.log"
  fail "cpack"
}
deb="$build/spheretest_${version}_amd64.deb"
[ -f "$deb" ] || fail "cpack made no $deb: $(ls "$build"/*.deb 2> /dev/null)"
echo "== $deb ($(du -k "$deb" | cut -f1) KiB)"

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = spheretest ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), not $version"
[ "$(field Architecture)" = amd64 ] || fail "Architecture: $(field Architecture)"
depends="$(field Depends)"
echo "  Depends: $depends"
echo "  Recommends: $(field Recommends)"
depends_names="$(echo "$depends" | sed 's/[,|]/\n/g' | awk '{print $1}')"
# Every library the program is linked with comes from a package it depends on (dpkg-shlibdeps' work)...
for soname in $(objdump -p "$build/app/spheretest" | awk '$1 == "NEEDED" {print $2}'); do
  owners="$(dpkg -S "*/$soname" 2> /dev/null | cut -d: -f1 | sort -u)"
  [ -n "$owners" ] || fail "no installed package holds $soname"
  # A library package may be depended on by a name it provides (libspdlog1.10 provides libspdlog1.10-fmt9).
  names="$(for owner in $owners; do
    echo "$owner"
    dpkg-query -W -f='${Provides}\n' "$owner" | sed 's/[,|]/\n/g' | awk 'NF {print $1}'
  done)"
  echo "$names" | grep -qxF -f <(echo "$depends_names") ||
    fail "$soname (from $(echo "$owners" | head -n 1)) is not in Depends"
done
# ... and so do the two needs no tool can see: SDL opens libGL.so.1 with dlopen, the window opens the font by path.
for package in libgl1 fonts-dejavu-core; do
  echo "$depends_names" | grep -qxF "$package" || fail "Depends lacks $package"
done

contents="$(dpkg-deb --contents "$deb" | awk '{print $6}')"
for path in ./usr/bin/spheretest ./usr/share/applications/spheretest.desktop \
  ./usr/share/icons/hicolor/scalable/apps/spheretest.svg; do
  echo "$contents" | grep -qx "$path" || fail "the package lacks $path"
done
for explanation in "$root"/assets/explanations/*.md; do
  path="./usr/share/spheretest/assets/explanations/$(basename "$explanation")"
  echo "$contents" | grep -qx "$path" || fail "the package lacks $path"
done
# The app alone: the library, its headers and the benchmark belong to `cmake --install`.
if echo "$contents" | grep -E '/include/|\.a$|/cmake/|\.pc$|spheretest-bench'; then
  fail "the package holds development files or the benchmark (above)"
fi
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb --extract "$deb" "$unpacked"
desktop-file-validate "$unpacked/usr/share/applications/spheretest.desktop" || fail "invalid desktop entry"
file "$unpacked/usr/bin/spheretest" | grep -q ', stripped' || fail "the program is not stripped"
echo "  $(echo "$contents" | grep -c -v '/$') files: program, $(find "$root/assets/explanations" -name '*.md' | wc -l) explanations, desktop entry, icon"

[ "$install" -eq 1 ] || exit 0

echo "== apt-get install $deb"
[ "$(id -u)" -eq 0 ] || fail "--install needs root"
if dpkg-query -W -f='${Status}' spheretest 2> /dev/null | grep -q 'ok installed'; then
  fail "a spheretest package is already installed here; remove it first (apt-get remove spheretest)"
fi
trap 'rm -rf "$unpacked"; DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq spheretest > /dev/null 2>&1 || true' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" > "$build/apt.log" 2>&1 || {
  cat "$build/apt.log"
  fail "apt-get install"
}
cd /
[ "$(command -v spheretest)" = /usr/bin/spheretest ] || fail "spheretest is not /usr/bin/spheretest"
[ "$(spheretest --version)" = "spheretest $version" ] || fail "installed --version: $(spheretest --version)"
spheretest --headless --count 1000 --frames 5 > "$unpacked/report.txt" || {
  cat "$unpacked/report.txt"
  fail "spheretest --headless exited with an error"
}
grep -E '^(structure |[a-z0-9-]+ +[0-9])' "$unpacked/report.txt" | sed 's/^/    /'
grep -Eq '^aabb-tree .* yes$' "$unpacked/report.txt" || fail "the installed report lacks a structure that agrees"
"$root/scripts/check-installed-window.sh" /usr/bin/spheretest /usr/share/spheretest/assets
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq spheretest > /dev/null
[ ! -e /usr/bin/spheretest ] || fail "/usr/bin/spheretest is still there after apt-get purge"
echo "package: installed, ran and purged again"
