"""Reads AVIF files without libheif, for the AVIF input tests: each item's AV1 data is decoded by
ffmpeg (libdav1d) from its OBUs alone (the boxes are read here), and libavif (Pillow's AVIF
plugin) reads sequences and grids. Prints one JSON object.

    avif-oracle.py alpha SOURCE.avif OURS       largest and mean RGB differences (where not fully
                                                transparent) and the largest alpha difference of OURS (PNG, WebP) against the colour
                                                and alpha items as ffmpeg decodes them, and how
                                                many pixels are not opaque
    avif-oracle.py flat SOURCE.avif OURS.jpg    PSNR of OURS against that RGBA over white
    avif-oracle.py frames SOURCE.avif           libavif's frame count
    avif-oracle.py picture SOURCE.avif          libavif's picture: its size and frame count

Scripts/test installs Pillow and numpy into .build/oracle-venv (Pillow 11.2+ reads AVIF)."""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy
from PIL import Image


def boxes(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin1"), start, start + size
        start += size


def find(data, kind, start, end):
    return next(b for b in boxes(data, start, end) if b[0] == kind)


def items(path):
    """The coded bytes (OBUs) of the primary item and of its alpha auxiliary item, read from the
    file's boxes here (version 0/1 iloc with one extent per item, file offsets)."""
    data = open(path, "rb").read()
    _, ms, me = find(data, "meta", 0, len(data))
    _, ps, _ = find(data, "pitm", ms + 12, me)
    primary = struct.unpack(">H", data[ps + 12:ps + 14])[0]
    _, rs, re_ = find(data, "iref", ms + 12, me)
    # Version 0 references: from (16 bits), count, to... (the file's only auxiliary image is its alpha).
    alpha = next(struct.unpack(">H", data[s + 8:s + 10])[0] for kind, s, e in boxes(data, rs + 12, re_)
                 if kind == "auxl" and struct.unpack(">HH", data[s + 10:s + 14]) == (1, primary))
    _, ls, _ = find(data, "iloc", ms + 12, me)
    version = data[ls + 8]
    sizes = struct.unpack(">H", data[ls + 12:ls + 14])[0]
    osz, lsz, bsz = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    at, found = ls + 16, {}

    def read(width):
        nonlocal at
        value = int.from_bytes(data[at:at + width], "big") if width else 0
        at += width
        return value

    for _ in range(struct.unpack(">H", data[ls + 14:ls + 16])[0]):
        item = read(2)
        if version >= 1:
            read(2)
        read(2)
        base = read(bsz)
        extents = [(read(osz), read(lsz)) for _ in range(read(2))]
        found[item] = b"".join(data[base + o:base + o + n] for o, n in extents)
    return found[primary], found[alpha]


def ffmpeg_decode(obus, pix_fmt, channels, folder):
    """ffmpeg's (libdav1d's) decode of an AV1 OBU stream, with no container around it."""
    stream = os.path.join(folder, "item.obu")
    open(stream, "wb").write(obus)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-f", "obu", "-i", stream, "-frames:v", "1", "-f", "rawvideo",
                          "-pix_fmt", pix_fmt, "-"], check=True, capture_output=True).stdout
    return numpy.frombuffer(raw, dtype=numpy.uint8).astype(numpy.float64), channels


def heif_rgba(path, size):
    """The AVIF's colour and alpha items as ffmpeg decodes each (an alpha image is a monochrome
    AV1 image of its own), joined as RGBA of `size` (width, height)."""
    primary, alpha = items(path)
    with tempfile.TemporaryDirectory() as folder:
        rgb, _ = ffmpeg_decode(primary, "rgb24", 3, folder)
        grey, _ = ffmpeg_decode(alpha, "gray", 1, folder)
    width, height = size
    return numpy.dstack([rgb.reshape(height, width, 3), grey.reshape(height, width, 1)])


def avif(path):
    image = Image.open(path)
    if image.format != "AVIF":
        raise SystemExit(f"Pillow read {path} as {image.format}, not with libavif")
    return image


command, source = sys.argv[1], sys.argv[2]
if command == "alpha":
    ours = numpy.asarray(Image.open(sys.argv[3]).convert("RGBA"), dtype=numpy.int32)
    reference = heif_rgba(source, (ours.shape[1], ours.shape[0])).astype(numpy.int32)
    if reference.shape != ours.shape:
        raise SystemExit(f"sizes differ: {reference.shape} {ours.shape}")
    print(json.dumps({
        # Colour under full transparency is not shown, and WebP does not keep it.
        "rgb": int(numpy.abs(reference[..., :3] - ours[..., :3])[reference[..., 3] > 0].max()),
        "rgb_mean": float(numpy.abs(reference[..., :3] - ours[..., :3])[reference[..., 3] > 0].mean()),
        "alpha": int(numpy.abs(reference[..., 3] - ours[..., 3]).max()),
        "translucent": int((reference[..., 3] < 255).sum()),
    }))
elif command == "flat":
    ours = numpy.asarray(Image.open(sys.argv[3]).convert("RGB"), dtype=numpy.float64)
    rgba = heif_rgba(source, (ours.shape[1], ours.shape[0]))
    alpha = rgba[..., 3:] / 255
    reference = rgba[..., :3] * alpha + 255 * (1 - alpha)
    error = ((reference - ours) ** 2).mean()
    print(json.dumps({"psnr": 99.0 if error == 0 else float(10 * numpy.log10(255 ** 2 / error))}))
elif command == "frames":
    print(json.dumps({"frames": avif(source).n_frames}))
elif command == "picture":
    image = avif(source)
    print(json.dumps({"width": image.width, "height": image.height, "frames": image.n_frames}))
else:
    raise SystemExit(f"unknown command {command}")
