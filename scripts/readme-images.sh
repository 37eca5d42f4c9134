#!/usr/bin/env bash
# Makes the pictures the README shows, in docs/images/, with the app itself: the default window, a short GIF
# the app records of a teaching view, and one picture per teaching panel. Builds nothing: give the program,
# or it takes build/release/app/spheretest. Needs xvfb-run (Debian package xvfb); the PNGs are reduced to
# 256 colours with ffmpeg (package ffmpeg) when it is there, which makes them a fraction of the size.
# Usage: scripts/readme-images.sh [SPHERETEST]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
app="${1:-$root/build/release/app/spheretest}"
out="$root/docs/images"

# The GIF: a lesson step (it opens its own panels and sets its own scene and query), or any view: which
# panels are open ("default": the step's or the window's own), what they are asked to show (SPHERETEST_TEACH,
# see ui/teaching/teach_links.hpp) and the command line.
gif_panels=default
gif_teach=""
gif_args=(--lesson sphere-tree --step 4)
gif_frames=60  # one step (1/60 s) each, played at 20 per second: 3 s
gif_fps=20

[ -x "$app" ] || { echo "readme-images: no program at $app (build it, or pass its path)" >&2; exit 2; }
command -v xvfb-run > /dev/null || { echo "readme-images: xvfb-run not found (Debian package xvfb)" >&2; exit 2; }
mkdir -p "$out"
export SPHERETEST_NO_SETTINGS=1
unset SDL_VIDEODRIVER

window() {  # PANELS TEACH ARGS...: one run of the window under Xvfb at 1280x800 (PANELS "default": as it opens)
  local panels=$1 teach=$2
  shift 2
  local open=(env -u SPHERETEST_OPEN_PANELS)
  [ "$panels" = default ] || open=(env SPHERETEST_OPEN_PANELS="$panels")
  "${open[@]}" SPHERETEST_TEACH="$teach" xvfb-run -a -s "-screen 0 1280x800x24" "$app" --threads 2 "$@" > /dev/null
}

shot() {  # NAME PANELS TEACH ARGS...: docs/images/NAME.png
  local name=$1 panels=$2 teach=$3
  shift 3
  local png="$out/$name.png"
  window "$panels" "$teach" "$@" --screenshot "$png"
  if command -v ffmpeg > /dev/null; then
    # One palette per picture, no dithering: the window is flat colour and text.
    ffmpeg -v error -y -i "$png" \
      -vf "split[a][b];[a]palettegen=max_colors=256:stats_mode=full[p];[b][p]paletteuse=dither=none" "$png.tmp.png"
    mv "$png.tmp.png" "$png"
  fi
  echo "$png ($(du -k "$png" | cut -f1) KiB)"
}

# The window as it opens (its panels, the grid, a circle query), on a scene of 3,000 circles.
shot window default "" --count 3000 --frames 120

# The teaching panels, each in the view it is made for (as tests/gui/teach_screenshots.sh sets them up).
shot panel-explain "Explain" "explain=radius-tree" --count 2000 --structure radius-tree --frames 5
shot panel-step "Step through" "step=10;step_stop=prune;step_zoom=1" --count 2000 --structure quadtree \
  --queries circle:1 --query-size 25 --frames 5
shot panel-split "Split view" "split_left=fit-quadtree;split=enneatree" --count 4000 --scenario center-lines \
  --structure fit-quadtree --queries circle:1 --query-size 12 --frames 5
shot panel-compare "Compare" "compare_wait=1" --count 3000 --structure radius-tree --frames 5
shot panel-claims "Claims" "claim=seed-003" --count 2000 --frames 5
shot panel-inspect "Inspect" "inspect=1234" --count 3000 --structure aabb-tree --frames 5

# The clip, recorded by the app.
gif="$out/teaching.gif"
window "$gif_panels" "$gif_teach" "${gif_args[@]}" --frames $gif_frames --record-fps $gif_fps --record "$gif"
echo "$gif ($(du -k "$gif" | cut -f1) KiB)"
