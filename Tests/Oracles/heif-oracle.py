"""Decodes a HEIF's primary image with pillow-heif (which bundles a newer libheif than Debian 12's
1.15) to an 8-bit binary PPM: the independent decoder the HEIF reader tests check pixels against.

    heif-oracle.py INPUT.heic OUTPUT.ppm

Scripts/test installs pillow-heif into .build/oracle-venv when it is missing."""
import sys

import pillow_heif

image = pillow_heif.read_heif(sys.argv[1], convert_hdr_to_8bit=True)
width, height = image.size
channels = 4 if image.mode == "RGBA" else 3
data, stride = image.data, image.stride
with open(sys.argv[2], "wb") as out:
    out.write(b"P6\n%d %d\n255\n" % (width, height))
    for row in range(height):
        line = data[row * stride:row * stride + width * channels]
        if channels == 4:
            line = bytes(b for i, b in enumerate(line) if i % 4 != 3)
        out.write(line)
