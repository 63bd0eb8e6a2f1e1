#!/usr/bin/env bash
# Clips with subtitle tracks, as films and ripped episodes carry them.
#   subtitles.mkv  H.264 + AAC + SRT (English, default) + ASS (French) + WebVTT (German): the
#                  text kinds a Matroska file holds. (FFmpeg cannot encode PGS; a PGS track
#                  would be copied the same way.)
#   subtitles.mp4  H.264 + AAC + two mov_text tracks (English, Spanish), as phones and
#                  HandBrake write them.
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)
srt() { printf '1\n00:00:00,200 --> 00:00:01,000\n%s\n\n2\n00:00:01,200 --> 00:00:01,900\n%s\n\n' "$1" "$2"; }

ff -f lavfi -i "testsrc2=size=320x240:rate=25:duration=2" \
   -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
   -f srt -i <(srt "Hello" "Goodbye") -f srt -i <(srt "Bonjour" "Au revoir") -f srt -i <(srt "Hallo" "Tschüss") \
   -map 0:v -map 1:a -map 2:s -map 3:s -map 4:s \
   -c:v libx264 -preset ultrafast -g 25 -c:a aac -b:a 64k -c:s:0 srt -c:s:1 ass -c:s:2 webvtt \
   -metadata:s:s:0 language=eng -metadata:s:s:1 language=fra -metadata:s:s:2 language=ger \
   -disposition:s:0 default "${common[@]}" "$OUT/subtitles.mkv"

ff -f lavfi -i "testsrc2=size=320x240:rate=25:duration=2" \
   -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
   -f srt -i <(srt "Hello" "Goodbye") -f srt -i <(srt "Hola" "Adiós") \
   -map 0:v -map 1:a -map 2:s -map 3:s \
   -c:v libx264 -preset ultrafast -g 25 -c:a aac -b:a 64k -c:s mov_text \
   -metadata:s:s:0 language=eng -metadata:s:s:1 language=spa "${common[@]}" "$OUT/subtitles.mp4"
