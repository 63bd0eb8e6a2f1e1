#!/usr/bin/env bash
# HEICs laid out as cameras other than iPhones write them, for the direct YCbCr path (heic-to-jpg
# straight from the tiles) and the RGB path, each checked against pillow-heif. heif-enc codes the
# images (with the nclx it is given, which x265 also writes in the stream's VUI); heif_layout.py
# lays out meta around them. The pictures are cut from the real photo tokyo.jpg (natural colours:
# testsrc2's saturated bars sit outside what limited-range YCbCr can carry into JPEG's cube, so
# they would test clamping, not the conversion); none is square.
#
#   heif-cameras/overhang-irot.heic  a 3x3 grid of 128x96 tiles cropped to 352x272 (the last
#                                    column and row overhang, as Nokia's do), irot 90°, no colour box.
#   heif-cameras/bt601-limited.heic  the same grid with an nclx box only: BT.601 primaries,
#                                    matrix 5, limited range (a Nokia HDR-mode photo's signalling).
#   heif-cameras/ten-bit.heic        a 2x2 grid of 10-bit tiles of 192x128 cropped to 368x240,
#                                    nclx matrix 5 full range, irot 270° (a Sony camera's layout).
#   heif-cameras/single-709.heic     one 10-bit image without a grid, nclx BT.709 matrix 1,
#                                    limited range (as some Android phones write).
#   heif-cameras/canon-422-pq.heic   a 2x2 grid of 10-bit 4:2:2 tiles of 192x128 cropped to 368x240,
#                                    nclx BT.2020 primaries, PQ, matrix 9, limited range (Canon's
#                                    HDR HEIF layout).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/heif-cameras"
cd "$OUT/heif-cameras"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# tiles NAME COLS ROWS TILE_W TILE_H PIX_FMT HEIF_ENC_OPTIONS...: codes a picture cut into tiles.
tiles() {
  local name=$1 cols=$2 rows=$3 tw=$4 th=$5 fmt=$6
  shift 6
  ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "crop=$((cols * tw)):$((rows * th)):0:0" -frames:v 1 \
    -pix_fmt "$fmt" -fflags +bitexact -flags:v +bitexact "$tmp/$name.png"
  local list=()
  for ((r = 0; r < rows; r++)); do
    for ((c = 0; c < cols; c++)); do
      ffmpeg -nostdin -v error -y -i "$tmp/$name.png" -vf "crop=$tw:$th:$((c * tw)):$((r * th))" -pix_fmt "$fmt" \
        -fflags +bitexact -flags:v +bitexact "$tmp/$name-$r-$c.png"
      heif-enc -p x265:pools=none -q 90 "$@" -o "$tmp/$name-$r-$c.heic" "$tmp/$name-$r-$c.png" >/dev/null
      list+=("$tmp/$name-$r-$c.heic")
    done
  done
  echo "${list[@]}"
}
python3 "$here/heif_layout.py" overhang-irot.heic --picture 352x272 --grid 3x3 --irot 1 \
  $(tiles plain 3 3 128 96 rgb24)
python3 "$here/heif_layout.py" bt601-limited.heic --picture 352x272 --grid 3x3 --nclx 5,6,5,0 \
  $(tiles limited 3 3 128 96 rgb24 --colour_primaries 5 --transfer_characteristic 6 --matrix_coefficients 5 --full_range_flag 0)
python3 "$here/heif_layout.py" ten-bit.heic --picture 368x240 --grid 2x2 --irot 3 --nclx 1,13,5,1 \
  $(tiles deep 2 2 192 128 rgb48be -b 10 --matrix_coefficients 5 --full_range_flag 1)
python3 "$here/heif_layout.py" single-709.heic --picture 320x240 --nclx 1,1,1,0 \
  $(tiles single 1 1 320 240 rgb48be -b 10 --colour_primaries 1 --transfer_characteristic 1 --matrix_coefficients 1 --full_range_flag 0)
python3 "$here/heif_layout.py" canon-422-pq.heic --picture 368x240 --grid 2x2 --nclx 9,16,9,0 \
  $(tiles canon 2 2 192 128 rgb48be -b 10 -p chroma=422 --colour_primaries 9 --transfer_characteristic 16 --matrix_coefficients 9 --full_range_flag 0)
