#!/usr/bin/env bash
# A stereo photo as 3D cameras write it (an MPO: CIPA DC-007 Multi-Picture Format). No freely
# licensed MPO from a real camera is at hand, so the layout is built from the specification, the
# way Fujifilm's FinePix REAL 3D W3 and the Nintendo 3DS lay it out: the left-eye JPEG with an
# APP2 "MPF" segment (a little-endian TIFF structure: MPFVersion "0100", NumberOfImages 2, and
# two 16-byte MPEntry records: attribute, size, offset from the MPF TIFF header, dependents),
# then the right-eye JPEG, with its own EXIF, appended. Both are 320x240; the right eye is the
# same scene shifted 12 pixels, and its EXIF says Orientation 1 like the left.
#
#   mpo/stereo.mpo   attributes 0x20020002 (representative, disparity) and 0x00020002 (disparity)
set -euo pipefail
mkdir -p "$OUT/mpo"
cd "$OUT/mpo"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact)
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=344x240:rate=1" -frames:v 1 -vf crop=320:240:0:0 "${exact[@]}" -q:v 3 left.jpg
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=344x240:rate=1" -frames:v 1 -vf crop=320:240:12:0 "${exact[@]}" -q:v 3 right.jpg
exiftool -q -overwrite_original -Make=FUJIFILM "-Model=FinePix REAL 3D W3" -Orientation#=1 left.jpg right.jpg
python3 - <<'PY'
import struct
left, right = open("left.jpg", "rb").read(), open("right.jpg", "rb").read()

def mpf(left_size, right_offset, right_size):
    entries = struct.pack("<IIIHH", 0x20020002, left_size, 0, 0, 0) + struct.pack("<IIIHH", 0x00020002, right_size, right_offset, 0, 0)
    ifd_entries = [
        struct.pack("<HHI4s", 0xB000, 7, 4, b"0100"),
        struct.pack("<HHII", 0xB001, 4, 1, 2),
        struct.pack("<HHII", 0xB002, 7, len(entries), 8 + 2 + 3 * 12 + 4),
    ]
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 3) + b"".join(ifd_entries) + struct.pack("<I", 0) + entries
    payload = b"MPF\x00" + tiff
    return b"\xff\xe2" + struct.pack(">H", len(payload) + 2) + payload

# The MPF segment goes after the first APP1 (EXIF); its size does not depend on the values in it.
app1_end = 2 + 2 + struct.unpack(">H", left[4:6])[0]
segment_size = len(mpf(0, 0, 0))
left_size = len(left) + segment_size
tiff_at = app1_end + 4 + 4  # marker, length, "MPF\0"
segment = mpf(left_size, left_size - tiff_at, len(right))
open("stereo.mpo", "wb").write(left[:app1_end] + segment + left[app1_end:] + right)
PY
rm -f left.jpg right.jpg
