#!/usr/bin/env bash
# Two grids of one layout, one with four times the pixels of the other, for the memory test of
# heic-to-jpg (peak RSS compared between them, no clock): four 256x256 tiles cut from the real
# photo tokyo.jpg, coded once each by heif-enc and repeated across the grid by heif_layout.py.
#
#   heif-memory/grid-8x8.heic    8x8 tiles, 2048x2048
#   heif-memory/grid-16x16.heic  16x16 tiles, 4096x4096
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/heif-memory"
cd "$OUT/heif-memory"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
coded=()
for origin in 0:0 256:0 0:256 256:256; do
  name="tile-${origin/:/-}"
  ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "crop=256:256:$origin" -frames:v 1 -pix_fmt rgb24 \
    -fflags +bitexact -flags:v +bitexact "$tmp/$name.png"
  heif-enc -p x265:pools=none -q 85 -o "$tmp/$name.heic" "$tmp/$name.png" >/dev/null
  coded+=("$tmp/$name.heic")
done
# grid N: an NxN grid, the four tiles in turn.
grid() {
  local n=$1 list=()
  for ((index = 0; index < n * n; index++)); do list+=("${coded[$((index % 4))]}"); done
  python3 "$here/heif_layout.py" "grid-${n}x${n}.heic" --picture $((n * 256))x$((n * 256)) --grid ${n}x${n} "${list[@]}"
}
grid 8
grid 16
