#!/usr/bin/env bash
# Live Photos: an iPhone HEIC (photos/IMG_5195.HEIC, whose MakerNote content identifier is
# 570F1469-09C7-4E50-9875-05F21D5BD166) and MOVs made from video/bt601.mov (H.264 + AAC, 1 s)
# with a com.apple.quicktime.content.identifier key, as iPhones write them.
#
#   live/IMG_5195.HEIC + live/IMG_5195.MOV        a pair under the same name
#   live/renamed/Holiday.HEIC + IMG_0042.MOV      a pair renamed on export: only the identifier ties them
#   live/decoy/IMG_5195.HEIC + IMG_5195.MOV       same names, another identifier: not a pair
#   live/folder/                                  two photos, the pair's MOV and an unrelated video, for batches
#   live/jpeg/IMG_5195.JPG + IMG_5195.MOV         a JPEG still (tokyo.jpg given the HEIC's MakerNote by exiftool)
set -euo pipefail
cd "$OUT"
id=570F1469-09C7-4E50-9875-05F21D5BD166
mkdir -p live/renamed live/decoy live/folder live/jpeg
mov() {
  ffmpeg -nostdin -v error -y -i "$MEDIA/video/bt601.mov" -map 0:v -map 0:a -c copy -fflags +bitexact -map_metadata -1 \
    -movflags use_metadata_tags -metadata "com.apple.quicktime.content.identifier=$1" \
    -metadata "com.apple.quicktime.make=Apple" "$2"
}
cp "$MEDIA/photos/IMG_5195.HEIC" live/IMG_5195.HEIC
mov "$id" live/IMG_5195.MOV
cp "$MEDIA/photos/IMG_5195.HEIC" live/renamed/Holiday.HEIC
cp live/IMG_5195.MOV live/renamed/IMG_0042.MOV
cp "$MEDIA/photos/IMG_5195.HEIC" live/decoy/IMG_5195.HEIC
mov 00000000-1111-2222-3333-444444444444 live/decoy/IMG_5195.MOV
cp "$MEDIA/photos/IMG_5195.HEIC" live/folder/IMG_5195.HEIC
cp live/IMG_5195.MOV live/folder/IMG_5195.MOV
cp "$MEDIA/photos/tokyo.jpg" live/folder/tokyo.jpg
cp "$MEDIA/video/sample.mp4" live/folder/other.mp4
cp "$MEDIA/photos/tokyo.jpg" live/jpeg/IMG_5195.JPG
exiftool -q -overwrite_original -tagsfromfile "$MEDIA/photos/IMG_5195.HEIC" -MakerNotes live/jpeg/IMG_5195.JPG
cp live/IMG_5195.MOV live/jpeg/IMG_5195.MOV
