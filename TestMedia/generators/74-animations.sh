#!/usr/bin/env bash
# Animations as the web and phones share them, 24 frames at 10 fps (2.4 s), 160x120:
#   anim/spinner.gif    ffmpeg's GIF encoder with a generated palette: after the first frame it
#                       stores only the changed rectangle over a transparent index, so a reader
#                       must composite each frame on the ones before it
#   anim/spinner.webp   the same frames as a lossless animated WebP (gif2webp, Debian's webp)
#   anim/spinner.apng   the same frames as an APNG (ffmpeg's apng muxer), looping forever
#   anim/cut.gif        spinner.gif cut after two thirds (an interrupted download)
set -euo pipefail
mkdir -p "$OUT/anim"
cd "$OUT/anim"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact)
source=(-f lavfi -i "testsrc2=size=160x120:rate=10,trim=end_frame=24")
ffmpeg -nostdin -v error -y "${source[@]}" -vf "split[a][b];[a]palettegen=stats_mode=full[p];[b][p]paletteuse=dither=none" \
  "${exact[@]}" -loop 0 spinner.gif
gif2webp -quiet spinner.gif -o spinner.webp
ffmpeg -nostdin -v error -y "${source[@]}" -pix_fmt rgb24 "${exact[@]}" -plays 0 -f apng spinner.apng
size=$(stat -c %s spinner.gif)
head -c $((size * 2 / 3)) spinner.gif > cut.gif
