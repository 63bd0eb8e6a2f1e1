"""Compares pictures with Pillow as the independent decoder: for each REFERENCE OURS pair, both
are read by Pillow as 8-bit RGBA (16-bit samples cut to their high byte; an icon's largest
picture) and the largest difference of any sample is printed, one line a pair, or -1 when the
sizes differ.

    pillow-compare.py REFERENCE OURS [REFERENCE OURS ...]

Scripts/test installs Pillow and numpy into .build/oracle-venv when they are missing."""
import sys

import numpy
from PIL import Image


def rgba(path):
    image = Image.open(path)
    if image.mode in ("I", "I;16", "I;16B"):
        wide = numpy.asarray(image, dtype=numpy.uint32)
        grey = (wide >> 8 if wide.max() > 255 else wide).astype(numpy.uint8)
        image = Image.fromarray(grey, "L")
    elif image.mode.startswith("RGB") and getattr(image, "bits", 8) > 8:
        image = image.convert("RGBA")
    return numpy.asarray(image.convert("RGBA"), dtype=numpy.int32)


arguments = sys.argv[1:]
for reference, ours in zip(arguments[0::2], arguments[1::2]):
    a, b = rgba(reference), rgba(ours)
    print(int(numpy.abs(a - b).max()) if a.shape == b.shape else -1)
