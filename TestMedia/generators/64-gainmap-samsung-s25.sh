#!/usr/bin/env bash
# HEICs laid out as a Galaxy S25 Ultra writes an HDR photo (modelled on
# photos/hdr/samsung-s25-gainmap.heic in ../shared/media, 1.2 MB, too large to keep here), made
# from tokyo.jpg: the primary a 2x2 grid of hidden 256x192 tiles (512x384); the gain map (the
# picture's luma at a quarter of its sides, blurred: a phone's map is smooth) a hidden grid of two
# 64x96 tiles side by side (128x96) with the auxiliary type
# urn:com:samsung:photo:2024:aux:hdrgainmap; the primary's XMP names the map only (hdrgm:Version
# and a Container directory) while the map's parameters are in an XMP item of the map itself and
# in an ISO 21496-1 tmap item (derived from the primary and the map, in an altr group, `tmap` brand),
# whose record is the S25's own bytes (GainMapMax and HDRCapacityMax 2.3 as 9647923/4194304).
#
#   gainmap/samsung-s25.heic      primary XMP names the map; map XMP hdrgm: 0..2.3, gamma 1,
#                                 offsets 0; tmap item with the same values.
#   gainmap/samsung-map-xmp.heic  the same without the tmap item: the parameters only in the
#                                 map's own XMP.
#   gainmap/samsung-tmap.heic     the same without the map's XMP: the parameters only in the tmap.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/gainmap"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "crop=512:384:0:0" -frames:v 1 -pix_fmt rgb24 \
  -fflags +bitexact -flags:v +bitexact "$tmp/picture.png"
tiles=()
for y in 0 1; do
  for x in 0 1; do
    ffmpeg -nostdin -v error -y -i "$tmp/picture.png" -vf "crop=256:192:$((x * 256)):$((y * 192))" -frames:v 1 \
      -fflags +bitexact -flags:v +bitexact "$tmp/tile$y$x.png"
    heif-enc -p x265:pools=none -q 80 -o "$tmp/tile$y$x.heic" "$tmp/tile$y$x.png" >/dev/null
    tiles+=("$tmp/tile$y$x.heic")
  done
done
ffmpeg -nostdin -v error -y -i "$tmp/picture.png" -vf "scale=128:96:flags=area,gblur=sigma=1.5,format=gray" -frames:v 1 \
  -fflags +bitexact -flags:v +bitexact "$tmp/map.png"
for x in 0 1; do
  ffmpeg -nostdin -v error -y -i "$tmp/map.png" -vf "crop=64:96:$((x * 64)):0" -frames:v 1 \
    -fflags +bitexact -flags:v +bitexact "$tmp/map$x.png"
  heif-enc -p x265:pools=none -q 90 -o "$tmp/map$x.heic" "$tmp/map$x.png" >/dev/null
done
printf '%s' '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.1.2"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"><Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/heic"/></rdf:li><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/heic" Item:Length="0"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>' > "$tmp/primary.xmp"
printf '%s' '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.5.0"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" hdrgm:GainMapMin="0.000000" hdrgm:GainMapMax="2.300000" hdrgm:Gamma="1.000000" hdrgm:OffsetSDR="0.000000" hdrgm:OffsetHDR="0.000000" hdrgm:HDRCapacityMin="0.000000" hdrgm:HDRCapacityMax="2.300000" hdrgm:BaseRenditionIsHDR="False"/></rdf:RDF></x:xmpmeta>' > "$tmp/map.xmp"
# The S25's tmap payload, byte for byte: version 0, versions 0/0, flags 0x40 (one channel, base
# colour space), headroom 0/1 and 9647923/4194304, then min, max, gamma, offsets.
printf "%s" 0000000000400000000000000001009333330040000000000000000000010093333300400000000000010000000100000000000000010000000000000001 \
  | python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read()))" > "$tmp/tmap.bin"
layout() {
  python3 "$here/heif_layout.py" "$1" --picture 512x384 --grid 2x2 --nclx 1,13,6,1 \
    --aux "urn:com:samsung:photo:2024:aux:hdrgainmap=$tmp/map0.heic,$tmp/map1.heic" --aux-grid 2x1 --aux-size 128x96 \
    --xmp "$tmp/primary.xmp" "${@:2}" "${tiles[@]}"
}
layout "$OUT/gainmap/samsung-s25.heic" --aux-xmp "$tmp/map.xmp" --tmap "$tmp/tmap.bin"
layout "$OUT/gainmap/samsung-map-xmp.heic" --aux-xmp "$tmp/map.xmp"
layout "$OUT/gainmap/samsung-tmap.heic" --tmap "$tmp/tmap.bin"
