#!/bin/bash
# The teaching panels tested as a person would: each one opened from the environment (SPHERETEST_OPEN_PANELS,
# SPHERETEST_TEACH) in a screenshot run under xvfb-run, and its picture compared with the same scene and
# frame with every panel closed: the panel must have drawn a good part of the middle of the window. The
# CSV export is checked for its header and for the comparison's rows.
#
# usage: teach_screenshots.sh SPHERETEST PNG_CHECK OUTPUT_DIR
# Exits 77 (skipped) when xvfb-run is not installed. Settings are never read or written.

set -u
app=$1
check=$2
out=$3

if ! command -v xvfb-run > /dev/null; then
  echo "xvfb-run not found (Debian package xvfb): skipping"
  exit 77
fi
mkdir -p "$out"
rm -f "$out"/*.png "$out"/*.csv "$out"/*.log
export SPHERETEST_NO_SETTINGS=1
export XDG_CONFIG_HOME="$out/config-must-stay-empty"
unset SDL_VIDEODRIVER

failures=0
shoot() {  # NAME PANELS REQUESTS ARGS...: one screenshot run; output goes to NAME.log
  local name=$1 panels=$2 requests=$3
  shift 3
  if ! SPHERETEST_OPEN_PANELS="$panels" SPHERETEST_TEACH="$requests" \
      xvfb-run -a -s "-screen 0 1280x800x24" "$app" --frames 5 --screenshot "$out/$name.png" "$@" \
      > "$out/$name.log" 2>&1; then
    echo "FAIL $name: the app exited with an error:"
    cat "$out/$name.log"
    failures=$((failures + 1))
    return 1
  fi
}

feature() {  # NAME PANELS REQUESTS ARGS...: the panel's screenshot against the same run with no panel open
  local name=$1 panels=$2 requests=$3
  shift 3
  shoot "$name-closed" "" "" "$@" || return
  shoot "$name" "$panels" "$requests" "$@" || return
  "$check" "$out/$name.png" 1280 800 2000 "$out/$name-closed.png" 20000 || failures=$((failures + 1))
}

feature explain "Explain" "explain=radius-tree" --count 2000 --structure radius-tree
feature step "Step through" "step=10;step_stop=prune;step_zoom=1" --count 2000 --structure quadtree \
  --queries circle:1 --query-size 25
# Zoomed to the query (step_zoom=1), the walk's first hit is a circle of many pixels; without the zoom the
# whole world shows and it is a dot. Only the world left of the panel is counted (the panel's text has
# yellow words too).
for zoom in 1 0; do
  if shoot "step-zoom-$zoom" "Step through" "step=1;step_stop=hit;step_zoom=$zoom" --count 2000 \
      --structure quadtree --queries circle:1 --query-size 25; then
    if [ $zoom = 1 ]; then
      "$check" --count "$out/step-zoom-1.png" 255 225 0 40 0 30 800 800 300 || failures=$((failures + 1))
    else
      "$check" --count "$out/step-zoom-0.png" 255 225 0 40 0 30 800 800 0 150 || failures=$((failures + 1))
    fi
  fi
done
feature split "Split view" "split_left=fit-quadtree;split=enneatree" --count 4000 --scenario center-lines \
  --structure fit-quadtree --queries circle:1 --query-size 12
feature compare "Compare" "compare_wait=1" --count 3000 --structure radius-tree
feature inspect "Inspect" "inspect=1234" --count 3000 --structure aabb-tree
feature inspect-node "Inspect" "inspect_at=1,1" --count 3000 --structure quadtree
for claim in seed-003 seed-000 seed-002 seed-001 seed-004; do
  feature "claim-$claim" "Claims" "claim=$claim" --count 2000
done
# The export panel sits in a corner, away from the middle the comparison looks at: its file is the check.
if shoot export "Export" "export_csv=$out/stats.csv" --count 1500 --structure grid; then
  "$check" "$out/export.png" 1280 800 2000 || failures=$((failures + 1))
fi

if [ ! -s "$out/stats.csv" ]; then
  echo "FAIL: the CSV export was not written"
  failures=$((failures + 1))
elif [ "$(head -n 1 "$out/stats.csv")" != "section,structure,figure,value" ] ||
     ! grep -q '^structure,grid,nodes,' "$out/stats.csv" || ! grep -q '^extra,grid,cell_size,' "$out/stats.csv"; then
  echo "FAIL: the CSV export lacks its header or the current structure's figures:"
  head -n 20 "$out/stats.csv"
  failures=$((failures + 1))
fi

if [ -n "$(ls -A "$XDG_CONFIG_HOME" 2> /dev/null)" ]; then
  echo "FAIL: a screenshot run wrote settings to $XDG_CONFIG_HOME"
  failures=$((failures + 1))
fi
echo "screenshots in $out"
[ $failures -eq 0 ]
