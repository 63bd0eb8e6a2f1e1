#!/usr/bin/env python3
"""Independent check of a JPEG made from a PQ or HLG still without a gain map (no offconvert code).

usage: hdrstill-oracle.py SOURCE.heic|SOURCE.jxl OUTPUT.jpg [--naive]

Decodes SOURCE with pillow-heif (libheif) at its own depth, reads the transfer from its nclx (a
JPEG XL: djxl decodes it to 16 bits in its own colour encoding, jxlinfo names the transfer),
and renders the SDR picture itself, by the formulas offconvert's README states:
  PQ:  ST 2084 EOTF to display light; HLG: BT.2100 inverse OETF, then the OOTF for a 1000-nit
       display (Fd = 1000 x Ys^0.2 x E, Ys with BT.2020 weights);
  then BT.2390's EETF on each pixel's largest component (maxRGB), from the source peak (PQ: the
  brightest component in the picture, at least 203 nits; HLG: 1000 nits) to SDR white at 203
  nits (BT.2408), its ratio scaling all three components; linear = nits / 203, the sRGB curve,
  8 bits. Primaries stay BT.2020.
Decodes OUTPUT's primary with PIL and compares: PSNR of the SDR rendition, and "not flat, not
clipped": the luma (BT.2020 weights on the decoded values) reaches from the darkest 1% below 30
to the brightest 1% above 225, and fewer than 1% of pixels are white (all three >= 254) where
the source is clearly below its peak (under 90% of the peak's PQ signal: clipping the picture
did not have); "accepted" is both that and an SDR PSNR of at least 35 dB. span_of_reference: the
output's luma range (1% to 99%) over the reference's, for a source whose own range is narrow.
With an Ultra HDR OUTPUT, libultrahdr (imagecodecs.ultrahdr_decode) decodes its HDR rendition
(linear, SDR white = 1) and it is compared with the source's linear light / 203: PSNR with the
peak of the reference as the signal.
--naive: check, instead of OUTPUT, the rendition offconvert wrote before it tone mapped (the
code values scaled to 8 bits), so a test can show the checks reject it.
Prints one JSON line.
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pillow_heif
from PIL import Image

M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
WHITE = 203.0
WEIGHTS = np.array([0.2627, 0.6780, 0.0593])


def pq_to_nits(e):
    p = np.clip(e, 0, 1) ** (1 / M2)
    return 10000 * (np.maximum(p - C1, 0) / (C2 - C3 * p)) ** (1 / M1)


def nits_to_pq(n):
    y = (np.clip(n, 0, 10000) / 10000) ** M1
    return ((C1 + C2 * y) / (1 + C3 * y)) ** M2


def hlg_to_scene(e):
    a = 0.17883277
    b = 1 - 4 * a
    c = 0.5 - a * np.log(4 * a)
    e = np.clip(e, 0, 1)
    return np.where(e <= 0.5, e * e / 3, (np.exp((e - c) / a) + b) / 12)


def eetf(nits, peak):
    """BT.2390-4 section 5.4.1, black level 0, target peak SDR white."""
    source = nits_to_pq(peak)
    max_lum = nits_to_pq(WHITE) / source
    if max_lum >= 1:
        return np.minimum(nits, WHITE)
    e1 = np.minimum(1, nits_to_pq(nits) / source)
    ks = 1.5 * max_lum - 0.5
    t = (e1 - ks) / (1 - ks)
    spline = (2 * t**3 - 3 * t**2 + 1) * ks + (t**3 - 2 * t**2 + t) * (1 - ks) + (-2 * t**3 + 3 * t**2) * max_lum
    return pq_to_nits(np.where(e1 < ks, e1, spline) * source)


def srgb_encode(v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def psnr(a, b, peak):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return 99.0 if mse == 0 else 10 * np.log10(peak * peak / mse)


def djxl16(path):
    """A JPEG XL decoded by djxl (libjxl's own tool) to 16 bits in its own colour encoding: the
    signal (0...1, height x width x 3) and the transfer code point jxlinfo names (16 PQ, 18 HLG)."""
    info = subprocess.run(["jxlinfo", path], capture_output=True, text=True, check=True).stdout
    transfer = 16 if "PQ transfer function" in info else 18 if "HLG transfer function" in info else None
    with tempfile.TemporaryDirectory() as tmp:
        ppm = os.path.join(tmp, "decoded.ppm")
        subprocess.run(["djxl", path, ppm, "--bits_per_sample=16"], capture_output=True, check=True)
        raw = open(ppm, "rb").read()
    # P6, width, height, maxval, one whitespace byte, then big-endian samples.
    fields = raw.split(maxsplit=4)
    assert fields[0] == b"P6" and fields[3] == b"65535", fields[:4]
    width, height = int(fields[1]), int(fields[2])
    samples = np.frombuffer(raw[len(raw) - width * height * 6:], dtype=">u2").reshape(height, width, 3)
    return samples.astype(np.float64) / 65535, transfer


def source_light(path):
    """(display light in nits per component, peak for the EETF, transfer name, signal). A HEIF
    is decoded by pillow-heif, a JPEG XL by djxl."""
    if open(path, "rb").read(12) in (b"\x00\x00\x00\x0cJXL \r\n\x87\n",) or open(path, "rb").read(2) == b"\xff\x0a":
        signal, transfer = djxl16(path)
    else:
        heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=False)
        nclx = heif.info.get("nclx_profile") or {}
        transfer = nclx.get("transfer_characteristics")
        depth = int(heif.info.get("bit_depth", 10))
        # pillow-heif puts a 10-bit sample in the top bits of 16.
        values = np.asarray(heif).astype(np.int64)[..., :3] >> (16 - depth)
        signal = values / (2**depth - 1)
    if transfer == 16:
        nits = pq_to_nits(signal)
        return nits, max(WHITE, float(nits.max())), "PQ", signal
    if transfer == 18:
        scene = hlg_to_scene(signal)
        ys = np.maximum(scene @ WEIGHTS, 0)
        return 1000 * scene * (ys ** 0.2)[..., None], 1000.0, "HLG", signal
    raise SystemExit(f"{path}: transfer {transfer} is not PQ or HLG")


def main():
    args = sys.argv[1:]
    naive = "--naive" in args
    args = [a for a in args if a != "--naive"]
    source, output = args
    nits, peak, transfer, signal = source_light(source)
    brightest = nits.max(axis=-1, keepdims=True)
    ratio = np.where(brightest > 0, eetf(brightest, peak) / np.maximum(brightest, 1e-12), 1.0)
    reference = np.round(srgb_encode(nits * ratio / WHITE) * 255)
    data = open(output, "rb").read()
    if naive:
        sdr = np.round(signal * 255)
    else:
        sdr = np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(np.float64)
    if sdr.shape != reference.shape:
        raise SystemExit(f"size {sdr.shape} is not the source's {reference.shape}")
    luma = sdr @ WEIGHTS
    low, high = np.percentile(luma, 1), np.percentile(luma, 99)
    white = np.all(sdr >= 254, axis=-1)
    below_peak = nits_to_pq(nits.max(axis=-1)) < 0.9 * nits_to_pq(peak)
    clipped = float(np.mean(white & below_peak))
    result = {
        "transfer": transfer, "peak_nits": round(peak, 1), "sdr_psnr": round(float(psnr(sdr, reference, 255)), 2),
        "luma_p1": round(float(low), 1), "luma_p99": round(float(high), 1), "clipped_fraction": round(clipped, 5),
    }
    ref_luma = reference @ WEIGHTS
    ref_span = np.percentile(ref_luma, 99) - np.percentile(ref_luma, 1)
    result["span_of_reference"] = round(float((high - low) / max(ref_span, 1)), 3)
    result["not_flat_not_clipped"] = bool(low < 30 and high > 225 and clipped < 0.01)
    result["accepted"] = bool(result["not_flat_not_clipped"] and result["sdr_psnr"] >= 35)
    if not naive and b"hdrgm" in data:
        import imagecodecs
        hdr = imagecodecs.ultrahdr_decode(data, dtype=np.float16)[..., :3].astype(np.float64)
        wanted = nits / WHITE
        result["hdr_psnr"] = round(float(psnr(hdr, wanted, float(wanted.max()))), 2)
        result["hdr_peak"] = round(float(hdr.max()), 3)
        result["reference_peak"] = round(float(wanted.max()), 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
