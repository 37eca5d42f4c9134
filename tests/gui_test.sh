#!/bin/bash
# The window tested as a person would: for every registered structure, run the app under xvfb-run with
# 5,000 circles, save a screenshot, and check that it has the window's size, is not blank and shows the
# structure's nodes. Two more runs draw 40,000 circles on one thread and on three, which must give the same
# picture; others check that the query's hits stay visible at 100,000 circles and that node drawings stay
# inside the world; one more uses SDL's offscreen video driver instead of an X server.
#
# usage: gui_test.sh SPHERETEST PNG_CHECK OUTPUT_DIR
# Exits 77 (skipped) when xvfb-run is not installed. Settings are never read or written: --screenshot
# runs leave the user's configuration alone, and SPHERETEST_NO_SETTINGS makes sure of it.

set -u
app=$1
check=$2
out=$3
frames=20
count=5000

if ! command -v xvfb-run > /dev/null; then
  echo "xvfb-run not found (Debian package xvfb): skipping"
  exit 77
fi
mkdir -p "$out"
rm -f "$out"/*.png
export SPHERETEST_NO_SETTINGS=1
export XDG_CONFIG_HOME="$out/config-must-stay-empty"
unset SDL_VIDEODRIVER

structures=$("$app" --list-structures | sed -n 's/^  \([a-z0-9][a-z0-9_-]*\) .*/\1/p')
if [ -z "$structures" ]; then
  echo "no structures listed by $app --list-structures"
  exit 1
fi

failures=0
shoot() {  # NAME [extra env...]: one screenshot run; stdout and stderr go to NAME.log
  local name=$1
  shift
  if ! env "$@" "${runner[@]}" "$app" --count $count --structure "$structure" --frames $frames \
      --screenshot "$out/$name.png" > "$out/$name.log" 2>&1; then
    echo "FAIL $name: the app exited with an error:"
    cat "$out/$name.log"
    failures=$((failures + 1))
    return 1
  fi
}

runner=(xvfb-run -a -s "-screen 0 1280x800x24")
for structure in $structures; do
  shoot "$structure" || continue
  if [ "$structure" = brute ]; then
    "$check" "$out/$structure.png" 1280 800 2000 || failures=$((failures + 1))
  else
    "$check" "$out/$structure.png" 1280 800 2000 "$out/brute.png" 1500 || failures=$((failures + 1))
  fi
done

# The same frame drawn on one thread and on three is the same picture (below the menu bar's frame rate,
# with every panel closed, since the panels show the thread count and timings): the simulation, the
# structure and the CPU drawing of small circles share their work out without changing it.
structure=$(echo "$structures" | grep -v '^brute$' | head -n 1)
for threads in 1 3; do
  if ! SPHERETEST_OPEN_PANELS= "${runner[@]}" "$app" --count 40000 --structure "$structure" --frames $frames --threads $threads \
      --screenshot "$out/threads-$threads.png" > "$out/threads-$threads.log" 2>&1; then
    echo "FAIL threads-$threads: the app exited with an error:"
    cat "$out/threads-$threads.log"
    failures=$((failures + 1))
  fi
done
"$check" --same "$out/threads-1.png" "$out/threads-3.png" 24 || failures=$((failures + 1))

# What the node drawings must never do, checked on the window with every panel closed (the world then fills
# the window below the menu bar, a square of about 730 pixels around x 640, y 411): at 100,000 circles the
# circle query's hits stay visible over the cells of the walk (its disc of about 51 pixels is mostly hit
# yellow), and no node drawing reaches past the world (a loose quadtree's loose bounds and grown root would
# run to the window's edges).
runner=(xvfb-run -a -s "-screen 0 1280x800x24")
structure=loose-quadtree
if SPHERETEST_OPEN_PANELS= "${runner[@]}" "$app" --count 100000 --structure $structure --frames 5 \
    --screenshot "$out/hits-100k.png" > "$out/hits-100k.log" 2>&1; then
  "$check" --count "$out/hits-100k.png" 255 225 0 60 590 361 690 461 1500 || failures=$((failures + 1))
else
  echo "FAIL hits-100k: the app exited with an error:"
  cat "$out/hits-100k.log"
  failures=$((failures + 1))
fi
for structure in loose-quadtree enneatree sphere-tree aabb-tree; do
  if SPHERETEST_OPEN_PANELS= "${runner[@]}" "$app" --count 3000 --structure $structure --frames 5 \
      --screenshot "$out/clipped-$structure.png" > "$out/clipped-$structure.log" 2>&1; then
    "$check" --content-box "$out/clipped-$structure.png" 30 800 790 || failures=$((failures + 1))
  else
    echo "FAIL clipped-$structure: the app exited with an error:"
    cat "$out/clipped-$structure.log"
    failures=$((failures + 1))
  fi
done

# SDL's offscreen driver renders through EGL without any X server.
runner=()
structure=$(echo "$structures" | grep -v '^brute$' | head -n 1)
if shoot "offscreen-$structure" SDL_VIDEODRIVER=offscreen; then
  "$check" "$out/offscreen-$structure.png" 1280 800 2000 "$out/brute.png" 1500 || failures=$((failures + 1))
fi

if [ -n "$(ls -A "$XDG_CONFIG_HOME" 2> /dev/null)" ]; then
  echo "FAIL: a screenshot run wrote settings to $XDG_CONFIG_HOME"
  failures=$((failures + 1))
fi
echo "screenshots in $out"
[ $failures -eq 0 ]
