#!/usr/bin/env bash
# Sound people keep: surround, lossless, covers.
#   surround-eac3.mkv  H.264 + 5.1(side) E-AC-3 at 384 kb/s, as streaming rips and TV recordings carry it.
#   truehd.mkv         H.264 + 5.1 TrueHD (24-bit lossless), as Blu-ray rips carry it.
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)
video=(-f lavfi -i "testsrc2=size=160x120:rate=25:duration=2")
noise() { echo "anoisesrc=d=2:c=pink:r=48000:a=0.1:seed=$1,aformat=channel_layouts=5.1(side)"; }

ff "${video[@]}" -f lavfi -i "$(noise 1)" -c:v libx264 -preset ultrafast -c:a eac3 -b:a 384k "${common[@]}" "$OUT/surround-eac3.mkv"
ff "${video[@]}" -f lavfi -i "$(noise 2)" -c:v libx264 -preset ultrafast -c:a truehd -strict experimental "${common[@]}" "$OUT/truehd.mkv"

# Music with cover art, as shops and rippers tag it.
#   song-cover.mp3   MP3 with an ID3v2.3 APIC JPEG cover (320x320), title and artist.
#   song-cover.flac  FLAC with a PNG PICTURE block (320x320).
cover=(-f lavfi -i "testsrc2=size=320x320:rate=1:duration=1")
tone=(-f lavfi -i "sine=frequency=440:sample_rate=44100:duration=2")
ff "${tone[@]}" "${cover[@]}" -map 0:a -map 1:v -frames:v 1 -c:a libmp3lame -b:a 128k -c:v mjpeg -id3v2_version 3 \
   -disposition:v attached_pic -metadata title=Song -metadata artist=Band -fflags +bitexact "$OUT/song-cover.mp3"
ff "${tone[@]}" "${cover[@]}" -map 0:a -map 1:v -frames:v 1 -c:a flac -c:v png -disposition:v attached_pic \
   -metadata title=Song -fflags +bitexact "$OUT/song-cover.flac"

# Sound as phones and dictaphones record it, and a plain tone.
#   voice-8k.m4a  8 kHz mono AAC at 24 kb/s, titled (a voice memo).
#   tone-1s.wav   exactly 1 s (44100 samples) of 16-bit PCM.
ff -f lavfi -i "sine=frequency=300:sample_rate=8000:duration=3" -c:a aac -b:a 24k -metadata title=Memo -fflags +bitexact \
   -flags:a +bitexact "$OUT/voice-8k.m4a"
ff -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1" -c:a pcm_s16le -fflags +bitexact "$OUT/tone-1s.wav"
#   opus-clip.mkv  H.264 + exactly 1 s of Opus (48000 samples): its last block ends with DiscardPadding.
ff -f lavfi -i "testsrc2=size=160x120:rate=25:duration=1" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=1" \
   -c:v libx264 -preset ultrafast -c:a libopus -b:a 64k "${common[@]}" "$OUT/opus-clip.mkv"
