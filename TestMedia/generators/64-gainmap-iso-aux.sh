#!/usr/bin/env bash
# HEICs with a gain-map auxiliary image of the ISO URN (urn:com:photo:aux:hdrgainmap) and no tmap
# item, as libavif's colors_hdr_*.avif files have one: nothing states the map's parameters, so it
# is ignored, and `info` says so once. Made from tokyo.jpg: a 256x192 picture, its luma at half
# size as the map.
#
#   gainmap/iso-aux-no-tmap.heic     an SDR picture (sRGB nclx).
#   gainmap/iso-aux-no-tmap-pq.heic  the same marked PQ (BT.2020, ST 2084): an HDR still whose
#                                    map is ignored.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/gainmap"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "crop=512:384:0:0,scale=256:192:flags=area" -frames:v 1 \
  -pix_fmt rgb24 -fflags +bitexact -flags:v +bitexact "$tmp/picture.png"
ffmpeg -nostdin -v error -y -i "$tmp/picture.png" -vf "scale=128:96:flags=area,format=gray" -frames:v 1 \
  -fflags +bitexact -flags:v +bitexact "$tmp/map.png"
heif-enc -p x265:pools=none -q 80 -o "$tmp/picture.heic" "$tmp/picture.png" >/dev/null
heif-enc -p x265:pools=none -q 80 -o "$tmp/map.heic" "$tmp/map.png" >/dev/null
python3 "$here/heif_layout.py" "$OUT/gainmap/iso-aux-no-tmap.heic" --picture 256x192 --nclx 1,13,6,1 \
  --aux "urn:com:photo:aux:hdrgainmap=$tmp/map.heic" "$tmp/picture.heic"
python3 "$here/heif_layout.py" "$OUT/gainmap/iso-aux-no-tmap-pq.heic" --picture 256x192 --nclx 9,16,9,1 \
  --aux "urn:com:photo:aux:hdrgainmap=$tmp/map.heic" "$tmp/picture.heic"
