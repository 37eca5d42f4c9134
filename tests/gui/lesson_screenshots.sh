#!/bin/bash
# The lessons tested as a person would: every step of every shipped lesson opened from the command line
# (--lesson NAME --step N) in a screenshot run under xvfb-run, which must run and draw a picture that is not
# blank; a broken lesson file must be refused with exit status 2 and a message naming the file, the step and
# the key; the presentation view (--present) must draw no menu bar and leave the world's middle free of any
# panel, where the normal view of the same step covers it with the step's panel; and the presentation view
# at UI scale 2 on a 1920x1080 window must run.
#
# usage: lesson_screenshots.sh SPHERETEST PNG_CHECK LESSONS_DIR OUTPUT_DIR
# Exits 77 (skipped) when xvfb-run is not installed. Settings are never read or written.

set -u
app=$1
check=$2
lessons=$3
out=$4

if ! command -v xvfb-run > /dev/null; then
  echo "xvfb-run not found (Debian package xvfb): skipping"
  exit 77
fi
mkdir -p "$out"
rm -f "$out"/*.png "$out"/*.log "$out"/*.lesson
export SPHERETEST_NO_SETTINGS=1
export XDG_CONFIG_HOME="$out/config-must-stay-empty"
unset SDL_VIDEODRIVER SPHERETEST_OPEN_PANELS SPHERETEST_TEACH SPHERETEST_UI_SCALE SPHERETEST_WINDOW_SIZE

failures=0
shoot() {  # NAME SIZE ARGS...: one screenshot run; output goes to NAME.log
  local name=$1 size=$2
  shift 2
  if ! xvfb-run -a -s "-screen 0 ${size}x24" "$app" --frames 5 --threads 2 --screenshot "$out/$name.png" "$@" \
      > "$out/$name.log" 2>&1; then
    echo "FAIL $name: the app exited with an error:"
    cat "$out/$name.log"
    failures=$((failures + 1))
    return 1
  fi
}

# Every step of every lesson.
lessonCount=0
for file in "$lessons"/*.lesson; do
  name=$(basename "$file" .lesson)
  steps=$(grep -c '^\[step\]' "$file")
  lessonCount=$((lessonCount + 1))
  for step in $(seq 1 "$steps"); do
    if shoot "$name-$step" 1280x800 --lesson "$name" --step "$step"; then
      "$check" "$out/$name-$step.png" 1280 800 2000 || failures=$((failures + 1))
    fi
  done
done
if [ "$lessonCount" -lt 5 ]; then
  echo "FAIL: $lessonCount lessons in $lessons, expected at least 5"
  failures=$((failures + 1))
fi

# A broken lesson: exit status 2, one line naming the file, the step and the key; no window.
broken="$out/broken.lesson"
printf 'title = Broken\n[step]\ntitle = fine\ntext = fine\n[step]\ntitle = bad\ntext = bad\ncount = lots\n' \
  > "$broken"
xvfb-run -a -s "-screen 0 1280x800x24" "$app" --lesson "$broken" --frames 5 --screenshot "$out/broken.png" \
  > "$out/broken.log" 2>&1
status=$?
if [ $status -ne 2 ] || ! grep -q "$broken: step 2: count: expected a whole number from 1 to 10,000,000, got 'lots'" \
    "$out/broken.log" || [ -e "$out/broken.png" ]; then
  echo "FAIL broken: exit $status (expected 2) and the message naming the file, step and key:"
  cat "$out/broken.log"
  failures=$((failures + 1))
fi

# The presentation view against the normal view of a step whose panel (Split view) covers the world's
# middle: the menu bar's colour (36,36,36) along the top, the panels' background (15,15,16) in the middle.
menu="0 0 640 18 36,36,36"
middle="250 250 550 550 15,15,16"
if shoot normal 1280x800 --lesson quadtree --step 6 && shoot present 1280x800 --lesson quadtree --step 6 --present; then
  "$check" --share "$out/normal.png" $menu 50 100 || failures=$((failures + 1))
  "$check" --share "$out/normal.png" $middle 20 100 || failures=$((failures + 1))
  "$check" --share "$out/present.png" $menu 0 2 || failures=$((failures + 1))
  "$check" --share "$out/present.png" $middle 0 2 || failures=$((failures + 1))
  # The lesson's text is there: the strip right of the square world is the panel's background and text.
  "$check" --share "$out/present.png" 820 100 1270 700 15,15,16 50 100 || failures=$((failures + 1))
fi

# The presentation view at UI scale 2 on a projector's 1920x1080.
if SPHERETEST_UI_SCALE=2 SPHERETEST_WINDOW_SIZE=1920x1080 shoot present-2x 1920x1080 --lesson grid --step 1 --present; then
  "$check" "$out/present-2x.png" 1920 1080 2000 || failures=$((failures + 1))
  "$check" --share "$out/present-2x.png" 1100 100 1900 1000 15,15,16 40 100 || failures=$((failures + 1))
fi

# A first start (no settings saved yet) offers the lessons: the window, closed by a signal as a desktop
# closes it, saves the Start here list as shown. A later start has settings and opens as it was left.
first="$out/first-start"
rm -rf "$first"
mkdir -p "$first"
env -u SPHERETEST_NO_SETTINGS XDG_CONFIG_HOME="$first" xvfb-run -a -s "-screen 0 1280x800x24" \
  sh -c '"$0" --count 500 --threads 2 & pid=$!; sleep 4; kill -TERM $pid; wait $pid' "$app" > "$out/first-start.log" 2>&1
if ! grep -q '^part.Start here.shown=1$' "$first/spheretest/settings.ini" 2> /dev/null; then
  echo "FAIL first start: the lessons were not offered (settings: $first/spheretest/settings.ini)"
  cat "$out/first-start.log"
  failures=$((failures + 1))
fi

if [ -n "$(ls -A "$XDG_CONFIG_HOME" 2> /dev/null)" ]; then
  echo "FAIL: a screenshot run wrote settings to $XDG_CONFIG_HOME"
  failures=$((failures + 1))
fi
echo "screenshots in $out"
[ $failures -eq 0 ]
