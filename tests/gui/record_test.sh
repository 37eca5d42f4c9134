#!/bin/bash
# Clips recorded from the window under xvfb-run and decoded again with FFmpeg's own tools (ffprobe, ffmpeg
# -f framemd5): for a GIF, an MP4 and a WebM, the decoded frames must be as many as recorded, of the
# clip's size, each different from the one before (the circles move), and a second recording of the same
# seed must be the same file, frame by frame and byte by byte; another seed must give other frames. The
# video's last frame must show what a screenshot of the same frame shows where the progress box is drawn
# on screen (the box stays out of clips).
#
# usage: record_test.sh SPHERETEST REGION_DIFF OUTPUT_DIR
# Exits 77 (skipped) when xvfb-run or FFmpeg's tools are not installed. Settings are never read or written.

set -u
app=$1
region_diff=$2
out=$3
frames=24
count=3000

for tool in xvfb-run ffprobe ffmpeg; do
  if ! command -v $tool > /dev/null; then
    echo "$tool not found (Debian packages xvfb, ffmpeg): skipping"
    exit 77
  fi
done
mkdir -p "$out"
rm -f "$out"/*.gif "$out"/*.mp4 "$out"/*.webm "$out"/*.png "$out"/*.log "$out"/*.md5
export SPHERETEST_NO_SETTINGS=1
export XDG_CONFIG_HOME="$out/config-must-stay-empty"
# The panels show timings, which change from run to run; the menu bar leaves its frame rate out of clips.
export SPHERETEST_OPEN_PANELS=
unset SDL_VIDEODRIVER

failures=0
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

window() {  # NAME ARGS...: one window run under Xvfb; output goes to NAME.log
  local name=$1
  shift
  if ! xvfb-run -a -s "-screen 0 1280x800x24" "$app" --count $count --threads 2 "$@" > "$out/$name.log" 2>&1; then
    fail "$name: the app exited with an error:"
    cat "$out/$name.log"
    return 1
  fi
}

frame_md5s() {  # FILE: one line per decoded frame, its MD5
  ffmpeg -v error -i "$1" -f framemd5 - | awk -F', *' '!/^#/ {print $6}'
}

check_clip() {  # EXTENSION CODECS WIDTH HEIGHT
  local ext=$1 codecs=$2 width=$3 height=$4
  window "a-$ext" --frames $frames --record "$out/a.$ext" || return
  window "b-$ext" --frames $frames --record "$out/b.$ext" || return
  if ! grep -q "^recorded $out/a.$ext: $frames frames" "$out/a-$ext.log"; then
    fail "$ext: no 'recorded' line:"
    cat "$out/a-$ext.log"
  fi
  local probe
  probe=$(ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 "$out/a.$ext")
  echo "$ext: $probe ($(stat -c %s "$out/a.$ext") bytes)"
  IFS=, read -r codec w h n <<< "$probe"
  [[ ",$codecs," == *",$codec,"* ]] || fail "$ext: codec $codec, expected one of $codecs"
  [ "$w" = "$width" ] && [ "$h" = "$height" ] || fail "$ext: ${w}x$h, expected ${width}x$height"
  [ "$n" = "$frames" ] || fail "$ext: $n frames decoded, expected $frames"

  frame_md5s "$out/a.$ext" > "$out/a-$ext.md5"
  frame_md5s "$out/b.$ext" > "$out/b-$ext.md5"
  [ "$(wc -l < "$out/a-$ext.md5")" = "$frames" ] || fail "$ext: framemd5 gave $(wc -l < "$out/a-$ext.md5") frames"
  # The circles move every frame, so no frame repeats the one before it.
  [ "$(uniq "$out/a-$ext.md5" | wc -l)" = "$frames" ] ||
    fail "$ext: only $(uniq "$out/a-$ext.md5" | wc -l) of $frames frames differ from the one before"
  cmp -s "$out/a-$ext.md5" "$out/b-$ext.md5" || fail "$ext: the same seed decoded to other frames"
  cmp -s "$out/a.$ext" "$out/b.$ext" || fail "$ext: the same seed gave another file"
}

check_clip gif gif 800 500
check_clip mp4 h264,mpeg4 1280 800
check_clip webm vp9,vp8 1280 800

# The comparisons above can tell clips apart: another seed gives none of the same frames.
if window seed --frames $frames --seed 2 --record "$out/seed.gif"; then
  frame_md5s "$out/seed.gif" > "$out/seed-gif.md5"
  [ "$(comm -12 <(sort "$out/a-gif.md5") <(sort "$out/seed-gif.md5") | wc -l)" = 0 ] ||
    fail "gif: another seed gave some of the same frames"
fi

# The clip starts after two frames that place the panels, so its last frame is the screenshot after
# frames + 2. The progress box sits at the bottom in the middle; there the video must show the screenshot's
# pixels, give or take the codec's losses (a box would differ by its text and border).
if window shot --frames $((frames + 2)) --screenshot "$out/shot.png"; then
  ffmpeg -v error -i "$out/a.mp4" -vf "select=eq(n\,$((frames - 1)))" -frames:v 1 "$out/a-last.png"
  "$region_diff" "$out/shot.png" "$out/a-last.png" 440 700 840 800 96 20 || fail "the progress box is in the clip"
fi

# A path that cannot be written is refused before the first frame, and nothing is left behind.
if xvfb-run -a -s "-screen 0 1280x800x24" "$app" --frames 5 --record "$out/missing/x.mp4" > "$out/refused.log" 2>&1; then
  fail "a clip in a missing directory was accepted"
elif [ $? -ne 2 ] || ! grep -q -- "--record" "$out/refused.log"; then
  fail "a clip in a missing directory: not exit 2 naming --record:"
  cat "$out/refused.log"
fi
if ls -A "$out" | grep -q '^\..*tmp-'; then
  fail "a temporary was left behind: $(ls -A "$out" | grep '^\..*tmp-')"
fi

if [ -n "$(ls -A "$XDG_CONFIG_HOME" 2> /dev/null)" ]; then
  fail "a recording run wrote settings to $XDG_CONFIG_HOME"
fi
echo "clips in $out"
[ $failures -eq 0 ]
