#!/usr/bin/env bash
# A drone clip whose subtitle track is its flight log: DJI drones write an SRT beside each clip,
# one cue a frame, and users mux it in to keep the overlay. The cues copy DJI's layouts as
# public parsers' sample files show them (JuanIrache/DJI_SRT_Parser's samples, a Mini 3 Pro's
# as quoted by dji-drone-metadata-embedder); the positions are made up (Shenzhen, 22.543 N
# 113.958 E). The picture and sound are TestMedia/video/sample.mp4's (1 s), its tags dropped
# so that the cues are the only location.
#   dji-telemetry.mp4   H.264 + AAC + mov_text: 30 cues of a Mini 3 Pro
#                       ("[latitude: 22.543210] [longitude: 113.958120] [rel_alt: 9.000 abs_alt: 25.300]")
#   dji-telemetry.mkv   H.264 + AAC + SRT: 10 cues of a Phantom 4 ("HOME(113.9580,22.5430) ...",
#                       "GPS(113.9581,22.5431,25) BAROMETER:9.0")
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
clip="$MEDIA/video/sample.mp4"
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 -map_chapters -1)
stamp() { printf '00:00:%02d,%03d' $(($1 / 1000)) $(($1 % 1000)); }

mini3() {
  for i in $(seq 1 30); do
    start=$(( (i - 1) * 33 )); end=$(( i * 33 ))
    printf '%d\n%s --> %s\n' "$i" "$(stamp $start)" "$(stamp $end)"
    printf '<font size="28">FrameCnt: %d, DiffTime: 33ms\n' "$i"
    printf '2024-08-07 12:34:24.%03d\n' $(( 380 + start ))
    printf '[iso: 100] [shutter: 1/3200.0] [fnum: 1.7] [ev: 0] [color_md: default] [focal_len: 24.00] '
    printf '[latitude: 22.5432%02d] [longitude: 113.9581%02d] [rel_alt: 9.000 abs_alt: 25.300] [ct: 5310] </font>\n\n' \
      "$i" "$i"
  done
}

phantom() {
  for i in $(seq 1 10); do
    start=$(( (i - 1) * 100 )); end=$(( i * 100 ))
    printf '%d\n%s --> %s\n' "$i" "$(stamp $start)" "$(stamp $end)"
    printf 'HOME(113.9580,22.5430) 2017.07.29 15:18:50\n'
    printf 'GPS(113.958%d,22.543%d,25) BAROMETER:9.0\n' "$i" "$i"
    printf 'ISO:100 Shutter:60 EV: Fnum:2.2 \n\n'
  done
}

ff -i "$clip" -f srt -i <(mini3) -map 0:v -map 0:a -map 1:s -c:v copy -c:a copy -c:s mov_text \
   "${common[@]}" "$OUT/dji-telemetry.mp4"
ff -i "$clip" -f srt -i <(phantom) -map 0:v -map 0:a -map 1:s -c:v copy -c:a copy -c:s srt \
   "${common[@]}" "$OUT/dji-telemetry.mkv"
