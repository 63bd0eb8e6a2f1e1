#!/usr/bin/env bash
# CMYK and YCCK JPEGs as print shops, Photoshop and stock libraries write them. No freely
# licensed camera-independent sample is at hand, so they are made the way those programs make
# them, from a 256x192 crop of tokyo.jpg:
#   cmyk/profile.jpg    separated to CMYK through Ghostscript's default_cmyk.icc (a SWOP-like
#                       press profile, Debian libgs-common) with that 187 kB profile embedded (it
#                       spans three APP2 ICC_PROFILE segments); Adobe APP14, inverted samples
#                       (Photoshop's convention, which Pillow's encoder follows)
#   cmyk/noprofile.jpg  the same CMYK samples without a profile
#   cmyk/ycck.jpg       the same samples stored as YCCK (libjpeg-turbo's tjCompress2 from
#                       TJPF_CMYK, inverted as Photoshop stores them), no profile
# Debian's own Pillow (python3-pil, /usr/bin/python3) writes the CMYK files; the YCCK one comes
# from libturbojpeg through ctypes. Both are Debian 12 builds, so the bytes are the same each run.
set -euo pipefail
mkdir -p "$OUT/cmyk"
cd "$OUT/cmyk"
ffmpeg -nostdin -v error -y -i "$MEDIA/photos/tokyo.jpg" -vf "scale=512:-2,crop=256:192:128:40" -frames:v 1 -pix_fmt rgb24 source.png
/usr/bin/python3 - <<'PY'
import ctypes, ctypes.util
from PIL import Image, ImageCms

press = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
rgb = Image.open("source.png").convert("RGB")
cmyk = ImageCms.profileToProfile(rgb, ImageCms.createProfile("sRGB"), press, renderingIntent=0, outputMode="CMYK")
cmyk.save("profile.jpg", quality=92, icc_profile=open(press, "rb").read())
cmyk.save("noprofile.jpg", quality=92)

turbo = ctypes.CDLL("libturbojpeg.so.0")
turbo.tjInitCompress.restype = ctypes.c_void_p
handle = ctypes.c_void_p(turbo.tjInitCompress())
inverted = bytes(255 - b for b in cmyk.tobytes())
out = ctypes.POINTER(ctypes.c_ubyte)()
size = ctypes.c_ulong(0)
TJPF_CMYK, TJSAMP_420 = 11, 2
status = turbo.tjCompress2(handle, inverted, cmyk.width, 0, cmyk.height, TJPF_CMYK, ctypes.byref(out), ctypes.byref(size), TJSAMP_420, 92, 0)
assert status == 0, "tjCompress2 failed"
open("ycck.jpg", "wb").write(ctypes.string_at(out, size.value))
turbo.tjFree(out)
turbo.tjDestroy(handle)
PY
rm source.png
