#!/usr/bin/env bash
# Grids for heic-to-jpg's banded encode (one row or column of tiles decoded and encoded at a time),
# each of which must give exactly the stream of the whole picture's planes: a 3x3 grid of 128x96
# tiles (cut from tokyo.jpg) whose last column and row overhang an odd-sized picture (351x271),
# with each irot and imir. A transform that puts the odd, cropped column or row first (irot 1 and
# 2, imir 0, which swaps top and bottom) is not banded; the even-* ones crop to 352x270 and are.
#
#   heif-bands/plain.heic, irot1.heic, irot2.heic, irot3.heic, imir0.heic, imir1.heic,
#   even-irot2.heic, even-imir0.heic
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/heif-bands"
cd "$OUT/heif-bands"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "crop=384:288:0:0" -frames:v 1 -pix_fmt rgb24 \
  -fflags +bitexact -flags:v +bitexact "$tmp/picture.png"
list=()
for ((r = 0; r < 3; r++)); do
  for ((c = 0; c < 3; c++)); do
    ffmpeg -nostdin -v error -y -i "$tmp/picture.png" -vf "crop=128:96:$((c * 128)):$((r * 96))" -pix_fmt rgb24 \
      -fflags +bitexact -flags:v +bitexact "$tmp/$r-$c.png"
    heif-enc -p x265:pools=none -q 90 -o "$tmp/$r-$c.heic" "$tmp/$r-$c.png" >/dev/null
    list+=("$tmp/$r-$c.heic")
  done
done
layout() { python3 "$here/heif_layout.py" "$1" --picture 351x271 --grid 3x3 "${@:2}" "${list[@]}"; }
layout plain.heic
for turns in 1 2 3; do layout "irot$turns.heic" --irot "$turns"; done
for axis in 0 1; do layout "imir$axis.heic" --imir "$axis"; done
python3 "$here/heif_layout.py" even-irot2.heic --picture 352x270 --grid 3x3 --irot 2 "${list[@]}"
python3 "$here/heif_layout.py" even-imir0.heic --picture 352x270 --grid 3x3 --imir 0 "${list[@]}"
