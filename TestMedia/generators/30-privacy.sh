#!/usr/bin/env bash
# Privacy fixtures: small files that record a location in each place strip-location edits.
#
#   gps-exif-xmp.png     PNG with an eXIf chunk (GPS IFD) and an uncompressed iTXt XMP packet
#                        (exif:GPSLatitude/Longitude, photoshop:City).
#   gps-exif-xmp.webp    lossless WebP with EXIF (GPS) and XMP chunks.
#   gps-xmp.jpg          JPEG with EXIF GPS and XMP location fields.
#   gps-exif-xmp.heic    gps-xmp.jpg through heif-enc: HEIC with an Exif item and an XMP mime item.
#   gps-exif-xmp.avif    the same as AVIF.
#   location-xyz.mp4     H.264 + AAC MP4 with a udta ©xyz location.
#   location-keys.mov    H.264 MOV whose location is only the com.apple.quicktime.location.ISO6709
#                        mdta key (as an iPhone writes it), next to a make key that must stay and
#                        a content identifier and a serial number that sharing must drop.
#   playlist.mp4         an HLS playlist named .mp4 whose segments are http://127.0.0.1:9/x.ts and
#                        ../video/motion.mov (outside its folder): opening it must reach neither.
#   playlist.m3u8        the same playlist with its usual extension (FFmpeg probes it as HLS).
#   list.mp4             an ffconcat list named .mp4 naming location-xyz.mp4 next to it and
#                        ../video/motion.mov: opening it must open neither.
#
# exiftool writes the metadata; it and ffmpeg give the same bytes on every run.
set -euo pipefail
cd "$OUT"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact -flags:a +bitexact)
gps=(-GPSLatitude=35.6586 -GPSLatitudeRef=N -GPSLongitude=139.7454 -GPSLongitudeRef=E -Make=Test -Model=Privacy)
xmpgps=(-XMP-exif:GPSLatitude=35.6586 -XMP-exif:GPSLongitude=139.7454 -XMP-photoshop:City=Tokyo)

ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=size=64x48:rate=1" -frames:v 1 "${exact[@]}" gps-exif-xmp.png
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=size=64x48:rate=1" -frames:v 1 "${exact[@]}" -c:v libwebp -lossless 1 gps-exif-xmp.webp
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=size=64x48:rate=1" -frames:v 1 "${exact[@]}" -q:v 3 gps-xmp.jpg
exiftool -q -overwrite_original "${gps[@]}" "${xmpgps[@]}" gps-exif-xmp.png gps-exif-xmp.webp gps-xmp.jpg
heif-enc -p x265:pools=none -q 50 gps-xmp.jpg -o gps-exif-xmp.heic >/dev/null
heif-enc -A -q 50 gps-xmp.jpg -o gps-exif-xmp.avif >/dev/null

ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
  -t 0.4 -c:v libx264 -preset ultrafast -c:a aac "${exact[@]}" -metadata location="+35.6586+139.7454/" location-xyz.mp4
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 -c:v libx264 -preset ultrafast \
  "${exact[@]}" -movflags use_metadata_tags -metadata "com.apple.quicktime.location.ISO6709=+35.6586+139.7454+040.000/" \
  -metadata "com.apple.quicktime.make=Apple" -metadata "com.apple.quicktime.content.identifier=5F1B0C2E-TEST" \
  -metadata "com.example.camera.serialnumber=SN123456" location-keys.mov

printf '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nhttp://127.0.0.1:9/x.ts\n#EXTINF:1,\n../video/motion.mov\n#EXT-X-ENDLIST\n' > playlist.mp4
cp playlist.mp4 playlist.m3u8
printf 'ffconcat version 1.0\nfile location-xyz.mp4\nfile ../video/motion.mov\n' > list.mp4
