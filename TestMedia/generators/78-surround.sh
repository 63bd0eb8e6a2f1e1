#!/usr/bin/env bash
# Films' sound: surround and lossless.
#   surround-eac3.mkv  H.264 + 5.1(side) E-AC-3 at 384 kb/s, as streaming rips and TV recordings carry it.
#   truehd.mkv         H.264 + 5.1 TrueHD (24-bit lossless), as Blu-ray rips carry it.
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)
video=(-f lavfi -i "testsrc2=size=160x120:rate=25:duration=2")
noise() { echo "anoisesrc=d=2:c=pink:r=48000:a=0.1:seed=$1,aformat=channel_layouts=5.1(side)"; }

ff "${video[@]}" -f lavfi -i "$(noise 1)" -c:v libx264 -preset ultrafast -c:a eac3 -b:a 384k "${common[@]}" "$OUT/surround-eac3.mkv"
ff "${video[@]}" -f lavfi -i "$(noise 2)" -c:v libx264 -preset ultrafast -c:a truehd -strict experimental "${common[@]}" "$OUT/truehd.mkv"
