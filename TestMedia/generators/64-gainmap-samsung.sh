#!/usr/bin/env bash
# A HEIC laid out as a Samsung Galaxy (S24 and later) writes an HDR photo: no real sample is in
# TestMedia, so this one is made from tokyo.jpg. The primary is a 512x384 picture; its gain map a
# 256x192 grey auxiliary image (the picture's own luma, so highlights get the boost) with
# Samsung's auxiliary type urn:com:samsung:photo:2024:aux:hdrgainmap and an auxl reference; the
# map's parameters are Ultra HDR's hdrgm: attributes in the primary's XMP item.
#
#   gainmap/samsung.heic  GainMapMin 0, GainMapMax 2.3, Gamma 1, offsets 1/64,
#                         HDRCapacityMin 0, HDRCapacityMax 2.3 (headroom 2.3 stops).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/gainmap"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "crop=512:384:0:0" -frames:v 1 -pix_fmt rgb24 \
  -fflags +bitexact -flags:v +bitexact "$tmp/picture.png"
ffmpeg -nostdin -v error -y -i "$tmp/picture.png" -vf "scale=256:192:flags=area,format=gray" -frames:v 1 \
  -fflags +bitexact -flags:v +bitexact "$tmp/map.png"
heif-enc -p x265:pools=none -q 90 -o "$tmp/picture.heic" "$tmp/picture.png" >/dev/null
heif-enc -p x265:pools=none -q 90 -o "$tmp/map.heic" "$tmp/map.png" >/dev/null
printf '%s' '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2.3" hdrgm:Gamma="1" hdrgm:OffsetSDR="0.015625" hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2.3" hdrgm:BaseRenditionIsHDR="False"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>' > "$tmp/hdrgm.xmp"
python3 "$here/heif_layout.py" "$OUT/gainmap/samsung.heic" --picture 512x384 --nclx 1,13,6,1 \
  --aux "urn:com:samsung:photo:2024:aux:hdrgainmap=$tmp/map.heic" --xmp "$tmp/hdrgm.xmp" "$tmp/picture.heic"
