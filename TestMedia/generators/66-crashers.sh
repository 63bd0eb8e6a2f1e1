#!/usr/bin/env bash
# The damaged photos of ../shared/media/crashers/ (each a bit-flipped copy of a phone photo that
# aborted `heic-to-jpg` with heap corruption), rebuilt exactly from the originals in
# TestMedia/photos/ by the bits that were flipped: offset and XOR mask of each changed byte, read
# off the shared files with a byte compare. Into generated/crashers/.
#   pug-flipped-1.heic     pug.heic, 1 bit             "double free or corruption (out)"
#   IMG_5195-flipped.HEIC  IMG_5195.HEIC, 1 bit        "munmap_chunk(): invalid pointer"
#   xiaomi-flipped.heic    xiaomi.heic, 13 bits        "double free or corruption (out)"
#   IMG_3853-flipped.HEIC  IMG_3853.HEIC (iOS 18), 7   "double free or corruption (!prev)"
# The fifth shared crasher (Issue_487-flipped.heic) is not rebuilt: its original is not in
# TestMedia (1.6 MB); the mutation campaign covers it.
set -euo pipefail
mkdir -p "$OUT/crashers"
python3 - "$MEDIA/photos" "$OUT/crashers" <<'PY'
import sys
source, out = sys.argv[1], sys.argv[2]
flips = {
    "pug-flipped-1.heic": ("pug.heic", [(305505, 64)]),
    "IMG_5195-flipped.HEIC": ("IMG_5195.HEIC", [(820299, 4)]),
    "xiaomi-flipped.heic": ("xiaomi.heic", [(5785, 8), (35579, 1), (114587, 2), (148701, 16), (294444, 8), (407205, 128),
        (418403, 64), (485783, 1), (524798, 16), (633034, 64), (727123, 8), (735221, 64), (894321, 64)]),
    "IMG_3853-flipped.HEIC": ("IMG_3853.HEIC", [(68664, 128), (1065030, 2), (1971818, 1), (2498739, 16), (2648590, 1),
        (2806488, 4), (3172680, 4)]),
}
for name, (original, changes) in flips.items():
    data = bytearray(open(f"{source}/{original}", "rb").read())
    for offset, mask in changes:
        data[offset] ^= mask
    open(f"{out}/{name}", "wb").write(data)
PY
