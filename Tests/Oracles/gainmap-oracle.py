#!/usr/bin/env python3
"""Independent check of an Ultra HDR JPEG made from an iPhone HEIC (no offconvert code).

usage: gainmap-oracle.py SOURCE.heic OUTPUT.jpg [SIDE_BY_SIDE.png] [--fit fill|crop|pad WxH] [--srgb]

When SOURCE is itself a gain-map JPEG (Ultra HDR, ISO 21496-1), the reference is libultrahdr's
own HDR decode of SOURCE and the SDR picture its SDR decode: OUTPUT must keep SOURCE's HDR.

--fit: OUTPUT was resized to a box that way; the reference gets the same geometry, computed here
(the centred region with the box's aspect ratio for fill and crop; the picture fitted inside and
centred on white bars that have no boost for pad). --srgb: OUTPUT was converted to sRGB; the
reference's SDR picture goes from Display P3 to sRGB primaries in linear light (clipped, as a
colour conversion clips), then gets the boost.

When SOURCE is a JPEG with Apple's gain map (MPF image 2 whose XMP names
urn:com:apple:photo:2020:aux:hdrgainmap; what iPhones wrote before iOS 18), its primary and map
are decoded by Pillow (the map's bytes cut out by exiftool -b -MPImage2) and Apple's formula below
applies, with the headroom from the primary's MakerNote. The JSON then also has map_correlation:
the Pearson correlation of OUTPUT's gain map (its MPF image 2, Pillow) with SOURCE's map turned
into Ultra HDR's log coding here (r = log2(1 + (headroom - 1) x gain) / log2(headroom)), at
OUTPUT's map size, and map_mean_error, their mean absolute difference in 8-bit codes.

When SOURCE has a Samsung gain map, its primary's hdrgm: XMP (exiftool) gives the same
parameters and the same formula applies.

When SOURCE has an ISO 21496-1 `tmap` item (iOS 18; an AVIF, whose primary and AV1 gain map
libavif decodes, see hdr-output-oracle.py's avif_planes), its record is read here (a small box
walker of its own, per ISO 21496-1: versions, flags, fractions; a three-channel record applies
each channel's values to that colour of the map) and the reference is the standard's formula over
the same planes:
hdr = (sdr + base_offset) x 2^(min + (max - min) x gain^(1/gamma)) - alternate_offset.

Reconstructs the HDR picture from the source with Apple's published formula
(hdr = sdr x (1 + (headroom - 1) x gain), gain map Rec.709-encoded, headroom from the MakerNote
tags 0x0021/0x0030 read by exiftool) over libheif's decode of the primary and the auxiliary
gain map (heif-convert --with-aux, or pillow-heif when libheif 1.15 refuses the file), then
decodes OUTPUT with Google's libultrahdr (imagecodecs.ultrahdr_decode) and compares the two in
linear light. Prints one JSON line: headroom, PSNR of the HDR rendition (peak = headroom), and
the largest difference of the SDR rendition. Optionally writes a PNG: SDR | HDR shown at
-headroom exposure, for a person to look at.
"""
import glob
import json
import struct
import os
import subprocess
import sys
import tempfile

import imagecodecs
import numpy as np
from PIL import Image


def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def rec709_to_linear(v):
    return np.where(v < 0.081, v / 4.5, ((v + 0.099) / 1.099) ** (1 / 0.45))


def apple_headroom(path):
    out = subprocess.run(["exiftool", "-j", "-n", "-MakerNotes:HDRHeadroom", "-MakerNotes:HDRGain", path],
                         capture_output=True, text=True, check=True).stdout
    tags = json.loads(out)[0]
    m33 = float(tags["HDRHeadroom"])
    m48 = float(tags.get("HDRGain", 0.0))
    if m33 < 1.0:
        stops = -20.0 * m48 + 1.8 if m48 <= 0.01 else -0.101 * m48 + 1.601
    else:
        stops = -70.0 * m48 + 3.0 if m48 <= 0.01 else -0.303 * m48 + 2.303
    return 2.0 ** max(stops, 0.0)


def source_planes(path):
    """The primary (8-bit RGB, upright) and the Apple gain map (8-bit grey, upright)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(["heif-convert", "--with-aux", path, os.path.join(tmp, "p.png")], capture_output=True)
        aux = glob.glob(os.path.join(tmp, "*hdrgainmap*.png"))
        if run.returncode == 0 and aux:
            sdr = np.asarray(Image.open(os.path.join(tmp, "p.png")).convert("RGB"))
            gain = np.asarray(Image.open(aux[0]).convert("L"))
            return sdr, gain
    import pillow_heif
    heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
    primary = heif.primary if hasattr(heif, "primary") else heif[0]
    sdr = np.asarray(primary.to_pillow().convert("RGB"))
    for aux_id in primary.info.get("aux", {}).get("urn:com:apple:photo:2020:aux:hdrgainmap", []):
        aux = primary.get_aux_image(aux_id)
        return sdr, np.asarray(aux.to_pillow().convert("L"))
    raise SystemExit("no Apple gain map in " + path)


def mpf_image2(path):
    """The bytes of MPF image 2 of JPEG `path` (exiftool cuts them out), or None."""
    out = subprocess.run(["exiftool", "-b", "-MPImage2", path], capture_output=True).stdout
    return out if out[:2] == b"\xff\xd8" else None


def apple_jpeg_map(path):
    """The gain map of an Apple gain-map JPEG (8-bit grey, as stored), or None for another JPEG."""
    image2 = mpf_image2(path)
    if image2 is None or b"urn:com:apple:photo:2020:aux:hdrgainmap" not in image2:
        return None
    import io
    return np.asarray(Image.open(io.BytesIO(image2)).convert("L"))


def map_correlation(source, output, headroom):
    """Pearson correlation of OUTPUT's gain map with SOURCE's Apple map in the log coding, and
    their mean absolute difference in 8-bit codes (Apple's codes taken as they are differ by
    about 2.4 on average in the test photo, mostly black: the correlation alone barely tells)."""
    import io
    out_map = np.asarray(Image.open(io.BytesIO(mpf_image2(output))).convert("L")).astype(np.float64)
    orientation = Image.open(source).getexif().get(0x0112, 1)
    source_map = upright(apple_jpeg_map(source)[..., None], orientation)[..., 0]
    apple = rec709_to_linear(upsample(source_map, *out_map.shape) / 255)
    expected = np.log2(1 + (headroom - 1) * apple) / np.log2(headroom) * 255
    correlation = float(np.corrcoef(out_map.ravel(), expected.ravel())[0, 1])
    return correlation, float(np.mean(np.abs(out_map - expected)))


def samsung_record(path):
    """The hdrgm: parameters of SOURCE's XMP (exiftool; the primary's or the map's) when SOURCE has a Samsung gain map
    (auxiliary type urn:com:samsung:photo:2024:aux:hdrgainmap, listed by pillow-heif), in the
    ISO record's names; else None."""
    import pillow_heif
    if "urn:com:samsung:photo:2024:aux:hdrgainmap" not in pillow_heif.open_heif(path).info.get("aux", {}):
        return None
    out = subprocess.run(["exiftool", "-j", "-n", "-XMP-hdrgm:all", path], capture_output=True, text=True, check=True).stdout
    tags = json.loads(out)[0]
    names = {"HDRCapacityMin": "base_headroom", "HDRCapacityMax": "alternate_headroom", "GainMapMin": "min",
             "GainMapMax": "max", "Gamma": "gamma", "OffsetSDR": "base_offset", "OffsetHDR": "alternate_offset"}
    return {ours: float(tags[theirs]) for theirs, ours in names.items()}


def boxes(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[start + 8:start + 16])[0], 16
        elif size == 0:
            size = end - start
        yield kind.decode("latin1"), start + header, start + size
        start += size


def tmap_record(path):
    """The ISO 21496-1 parameters of SOURCE's tmap item (in idat or the file), or None."""
    data = open(path, "rb").read()
    meta = next((b for b in boxes(data, 0, len(data)) if b[0] == "meta"), None)
    if meta is None:
        return None
    children = {kind: (start, end) for kind, start, end in boxes(data, meta[1] + 4, meta[2])}
    start, end = children["iinf"]
    version = data[start]
    cursor = start + 4 + (2 if version == 0 else 4)
    tmap = None
    for kind, body, stop in boxes(data, cursor, end):
        infe_version = data[body]
        item = struct.unpack(">H", data[body + 4:body + 6])[0]
        if data[body + 8:body + 12] == b"tmap":
            tmap = item
    if tmap is None:
        return None
    start, end = children["iloc"]
    version = data[start]
    sizes = data[start + 4]
    offset_size, length_size, base_size = sizes >> 4, sizes & 15, data[start + 5] >> 4
    index_size = data[start + 5] & 15 if version in (1, 2) else 0
    cursor = start + 6
    count = struct.unpack(">H", data[cursor:cursor + 2])[0]
    cursor += 2
    location = None
    for _ in range(count):
        item = struct.unpack(">H", data[cursor:cursor + 2])[0]
        cursor += 2
        method = 0
        if version in (1, 2):
            method = data[cursor + 1] & 15
            cursor += 2
        cursor += 2
        base = int.from_bytes(data[cursor:cursor + base_size], "big")
        cursor += base_size
        extents = struct.unpack(">H", data[cursor:cursor + 2])[0]
        cursor += 2
        for _ in range(extents):
            cursor += index_size
            offset = int.from_bytes(data[cursor:cursor + offset_size], "big")
            cursor += offset_size
            length = int.from_bytes(data[cursor:cursor + length_size], "big")
            cursor += length_size
            if item == tmap:
                location = (method, base + offset, length)
    method, offset, length = location
    if method == 1:
        offset += children["idat"][0]
    record = data[offset:offset + length]
    assert record[0] == 0, "tmap version"
    flags = record[5]
    channels = 3 if flags & 0x80 else 1
    values, cursor = [], 6
    common = None
    if flags & 0x08:
        common = struct.unpack(">I", record[cursor:cursor + 4])[0]
        cursor += 4
    for signed in (False, False) + (True, True, False, True, True) * channels:
        numerator = struct.unpack(">i" if signed else ">I", record[cursor:cursor + 4])[0]
        cursor += 4
        denominator = common
        if denominator is None:
            denominator = struct.unpack(">I", record[cursor:cursor + 4])[0]
            cursor += 4
        values.append(numerator / denominator)
    names = ["base_headroom", "alternate_headroom", "min", "max", "gamma", "base_offset", "alternate_offset"]
    if channels == 1:
        return dict(zip(names, values))
    # A multichannel record (libavif writes one): each per-channel value an array of R, G, B.
    per_channel = [np.array(values[2 + index::5]) for index in range(5)]
    return dict(zip(names, values[:2] + per_channel))


def boost(gain8, height, width, iso):
    """2^(log boost) of each pixel (and channel, for a three-channel map), the map scaled up to
    height x width, by ISO 21496-1's formula."""
    if gain8.ndim == 3:
        gain = np.stack([upsample(gain8[..., c], height, width) for c in range(3)], axis=-1) / 255
    else:
        gain = upsample(gain8, height, width)[..., None] / 255
    log_boost = iso["min"] + (iso["max"] - iso["min"]) * gain ** (1 / iso["gamma"])
    return 2.0 ** log_boost


def avif_source(source):
    """SOURCE's primary (8-bit RGB) and gain map (8-bit, RGB for a three-channel record) when it is
    an AVIF with a tmap item (decoded by libavif in hdr-output-oracle.py), else None."""
    data = open(source, "rb").read(64)
    if data[4:8] != b"ftyp" or b"avif" not in data[8:int.from_bytes(data[:4], "big")]:
        return None
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "hdr_output_oracle", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hdr-output-oracle.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.avif_planes(source)


def upsample(gain, height, width):
    """Bilinear, sample centres aligned, as a decoder scales a smaller map up."""
    gh, gw = gain.shape
    ys = (np.arange(height) + 0.5) * gh / height - 0.5
    xs = (np.arange(width) + 0.5) * gw / width - 0.5
    y0 = np.clip(np.floor(ys).astype(int), 0, gh - 1)
    x0 = np.clip(np.floor(xs).astype(int), 0, gw - 1)
    y1 = np.clip(y0 + 1, 0, gh - 1)
    x1 = np.clip(x0 + 1, 0, gw - 1)
    fy = np.clip(ys - y0, 0, 1)[:, None]
    fx = np.clip(xs - x0, 0, 1)[None, :]
    g = gain.astype(np.float32)
    top = g[y0][:, x0] * (1 - fx) + g[y0][:, x1] * fx
    bottom = g[y1][:, x0] * (1 - fx) + g[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


P3_TO_SRGB = np.array([[1.2249401, -0.2249404, 0.0], [-0.0420569, 1.0420571, 0.0], [-0.0196376, -0.0786361, 1.0982735]],
                      dtype=np.float32)


def options(arguments):
    positional, fit, box, srgb = [], None, None, False
    index = 0
    while index < len(arguments):
        if arguments[index] == "--fit":
            fit, box = arguments[index + 1], tuple(int(v) for v in arguments[index + 2].split("x"))
            index += 3
        elif arguments[index] == "--srgb":
            srgb = True
            index += 1
        else:
            positional.append(arguments[index])
            index += 1
    return positional, fit, box, srgb


def shrink(planes, size):
    return np.stack([np.asarray(Image.fromarray(planes[..., c].astype(np.float32), "F").resize(size, Image.BOX))
                     for c in range(planes.shape[-1])], axis=-1)


def geometry(fit, box, reference, sdr):
    """The reference and SDR picture resized as `fit` into `box` says (see the usage)."""
    height, width = sdr.shape[:2]
    bw, bh = box
    if fit in ("fill", "crop"):
        w, h = width, height
        if width * bh > bw * height:
            w = round(height * bw / bh)
        else:
            h = round(width * bh / bw)
        x, y = (width - w) // 2, (height - h) // 2
        reference, sdr = reference[y:y + h, x:x + w], sdr[y:y + h, x:x + w]
        size = box if fit == "fill" or w >= bw or h >= bh else (w, h)
        return shrink(reference, size), shrink(sdr, size)
    if bw * height <= bh * width:
        size = (bw, max(1, round(height * bw / width)))
    else:
        size = (max(1, round(width * bh / height)), bh)
    reference, sdr = shrink(reference, size), shrink(sdr, size)
    canvas_ref = np.ones((bh, bw, 3), np.float32)
    canvas_sdr = np.ones((bh, bw, 3), np.float32)
    x, y = (bw - size[0]) // 2, (bh - size[1]) // 2
    canvas_ref[y:y + size[1], x:x + size[0]] = reference
    canvas_sdr[y:y + size[1], x:x + size[0]] = sdr
    return canvas_ref, canvas_sdr


# The PSNR printed for identical pictures (JSON has no infinity).
EXACT = 999.0


def upright(planes, orientation):
    """`planes` as EXIF `orientation` says they are displayed (libultrahdr decodes them as stored)."""
    steps = {2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
             5: lambda a: a.transpose(1, 0, 2), 6: lambda a: np.rot90(a, -1),
             7: lambda a: np.rot90(a, 2).transpose(1, 0, 2), 8: lambda a: np.rot90(a, 1)}
    step = steps.get(orientation)
    return np.ascontiguousarray(step(planes)) if step else planes


def source_reference(source, srgb=False):
    """SOURCE's SDR picture (8-bit codes, linear) and its HDR rendition (linear, SDR white = 1,
    in SOURCE's primaries; sRGB ones with --srgb), as the usage says, with the headroom and the
    ISO parameters the reference was built from (None for Apple's formula or a JPEG source)."""
    source_bytes = open(source, "rb").read()
    is_jpeg = source_bytes[:2] == b"\xff\xd8"
    apple_jpeg = apple_jpeg_map(source) if is_jpeg else None
    if apple_jpeg is not None:
        is_jpeg = False
    iso = None if is_jpeg or apple_jpeg is not None else tmap_record(source) or samsung_record(source)
    if apple_jpeg is not None:
        # Upright by the primary's EXIF Orientation, the map as its primary.
        with Image.open(source) as primary:
            orientation = primary.getexif().get(0x0112, 1)
            sdr8 = upright(np.asarray(primary.convert("RGB")), orientation)
        gain8 = upright(apple_jpeg[..., None], orientation)[..., 0]
    elif is_jpeg:
        if not imagecodecs.ultrahdr_check(source_bytes):
            raise SystemExit("libultrahdr does not see an Ultra HDR image in " + source)
        orientation = Image.open(source).getexif().get(0x0112, 1)
        sdr8 = upright(imagecodecs.ultrahdr_decode(source_bytes, dtype=np.uint8)[..., :3], orientation)
    else:
        sdr8, gain8 = avif_source(source) or source_planes(source)
    height, width, _ = sdr8.shape
    sdr = srgb_to_linear(sdr8.astype(np.float32) / 255)
    if srgb:
        sdr = np.clip(sdr @ P3_TO_SRGB.T, 0, 1)
        sdr8 = (linear_to_srgb(sdr) * 255).round()
    if is_jpeg:
        reference = upright(imagecodecs.ultrahdr_decode(source_bytes, dtype=np.float16)[..., :3].astype(np.float32), orientation)
        headroom = max(1.0, float(reference.max()))
    elif iso is not None:
        headroom = 2.0 ** iso["alternate_headroom"]
        reference = (sdr + iso["base_offset"]) * boost(gain8, height, width, iso) - iso["alternate_offset"]
    else:
        headroom = apple_headroom(source)
        gain = rec709_to_linear(upsample(gain8, height, width) / 255)
        reference = sdr * (1 + (headroom - 1) * gain)[..., None]
    return sdr8, sdr, reference, headroom, iso


def main():
    positional, fit, box, srgb = options(sys.argv[1:])
    sys.argv = [sys.argv[0]] + positional
    source, output = sys.argv[1], sys.argv[2]
    sdr8, sdr, reference, headroom, iso = source_reference(source, srgb)
    height, width, _ = sdr8.shape

    data = open(output, "rb").read()
    if not imagecodecs.ultrahdr_check(data):
        raise SystemExit("libultrahdr does not see an Ultra HDR image in " + output)
    decoded = imagecodecs.ultrahdr_decode(data, dtype=np.float16)[..., :3].astype(np.float32)
    if fit is not None:
        reference, sdr = geometry(fit, box, reference, sdr)
        sdr8 = (linear_to_srgb(sdr) * 255).round()
        height, width = sdr.shape[:2]
    if decoded.shape != reference.shape:
        # A resized output (--max-size, --resize): the reference is area-averaged to its size,
        # in linear light, and so is the source SDR picture.
        if abs(decoded.shape[1] / decoded.shape[0] - width / height) > 0.01:
            raise SystemExit(f"shape differs: {decoded.shape} vs {reference.shape}")
        size = (decoded.shape[1], decoded.shape[0])
        reference = shrink(reference, size)
        sdr = shrink(sdr, size)
        sdr8 = (linear_to_srgb(sdr) * 255).round()
        width, height = size
    mse = float(np.mean((decoded - reference) ** 2))
    psnr = 10 * np.log10(headroom ** 2 / mse) if mse > 0 else EXACT
    # SDR rendition: libultrahdr's own SDR decode of the primary against the source primary.
    sdr_out = imagecodecs.ultrahdr_decode(data, dtype=np.uint8)[..., :3].astype(np.float32)
    sdr_mse = float(np.mean((sdr_out - sdr8.astype(np.float32)) ** 2))
    sdr_psnr = 10 * np.log10(255.0 ** 2 / sdr_mse) if sdr_mse > 0 else EXACT
    ratio = float(np.median(decoded[reference > 0.05] / reference[reference > 0.05]))
    result = {"iso": 1.0 if iso is not None else 0.0, "headroom": headroom, "hdr_psnr": psnr, "sdr_psnr": sdr_psnr, "median_ratio": ratio,
              "hdr_peak": float(decoded.max()), "reference_peak": float(reference.max())}
    if apple_jpeg_map(source) is not None:
        result["map_correlation"], result["map_mean_error"] = map_correlation(source, output, headroom)
    print(json.dumps(result))
    if len(sys.argv) > 3:
        step = max(1, width // 480)
        left = (linear_to_srgb(sdr[::step, ::step]) * 255).astype(np.uint8)
        right = (linear_to_srgb(decoded[::step, ::step] / headroom) * 255).astype(np.uint8)
        Image.fromarray(np.concatenate([left, right], axis=1)).save(sys.argv[3])


if __name__ == "__main__":
    main()
