#!/usr/bin/env bash
# Real files kept small in git, unpacked into generated/ (TestMedia stays under its ~25 MB bound):
#   formats/cmyk-16bit.psd, formats/pool.tga   photos/formats/*.xz, unpacked byte-identical to the
#     originals (SOURCES.md names them); a 557 KB ICC profile and an uncompressed picture that xz packs small.
#   broken/corrupted.jpg   DSCN0010.jpg (a Nikon COOLPIX P6000 photo with EXIF GPS) with a quarter
#     of its entropy-coded data cut out of the middle and its EOI kept: the scan meets EOI early,
#     which libjpeg reports as "Corrupt JPEG data: premature end of data segment" (damaged data,
#     not a file cut short), and djpeg still shows the upper half of the picture.
set -euo pipefail
mkdir -p "$OUT/formats" "$OUT/broken"
python3 - "$MEDIA/photos/DSCN0010.jpg" "$OUT/broken/corrupted.jpg" "$MEDIA"/photos/formats/*.xz <<'PY'
import lzma, os, sys
for packed in sys.argv[3:]:
    name = os.path.basename(packed)[: -len(".xz")]
    open(f"{os.environ['OUT']}/formats/{name}", "wb").write(lzma.open(packed).read())
data = open(sys.argv[1], "rb").read()
scan = data.index(b"\xff\xda")
start = scan + (len(data) - scan) // 2
open(sys.argv[2], "wb").write(data[:start] + data[start + (len(data) - scan) // 4:])
PY
