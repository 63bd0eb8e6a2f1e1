#!/usr/bin/env python3
"""Independent check of a HEIC written with a gain map from a HEIC (no offconvert code).

usage: heic-gainmap-oracle.py SOURCE.heic|SOURCE.jpg OUTPUT.heic

Decodes both files with pillow-heif (a libheif newer than the system's 1.15, which reads
auxiliary images): the primary and the auxiliary image whose type is Apple's
(urn:com:apple:photo:2020:aux:hdrgainmap) or Samsung's (urn:com:samsung:photo:2024:aux:hdrgainmap).
Each file's HDR rendition is rebuilt from its own planes and its own parameters, read by exiftool:

- Apple: hdr = sdr x (1 + (headroom - 1) x gain), gain Rec.709-encoded, headroom from the
  MakerNote tags 0x0021/0x0030 (Apple's published formula, see gainmap-oracle.py);
- Samsung: Ultra HDR's log formula with the file's hdrgm: XMP (the primary's, or the map's own
  as a Galaxy S25 writes it: exiftool reads every packet), else the tmap item's values,
  hdr = (sdr + OffsetSDR) x 2^(GainMapMin + (GainMapMax - GainMapMin) x gain^(1/Gamma)) - OffsetHDR.

A JPEG SOURCE with Apple's gain map (MPF image 2) is rebuilt by gainmap-oracle.py (Pillow decodes
its primary and map; Apple's formula, the MakerNote's headroom).

The source's rendition is area-averaged to the output's size when the output was resized. Prints
one JSON line: the output's auxiliary types, both headrooms, the PSNR of the output's HDR
rendition against the source's (peak = headroom) and of the SDR pictures, and whether the
output has an ISO 21496-1 `tmap` item with the source's values (read by gainmap-oracle.py's own
box walker; "tmap": null when the source has none).
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pillow_heif

spec = importlib.util.spec_from_file_location(
    "gainmap_oracle", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gainmap-oracle.py"))
base = importlib.util.module_from_spec(spec)
spec.loader.exec_module(base)

APPLE = "urn:com:apple:photo:2020:aux:hdrgainmap"
SAMSUNG = "urn:com:samsung:photo:2024:aux:hdrgainmap"


def hdrgm(path):
    """The hdrgm: values of `path`, else its tmap item's under the same names."""
    out = subprocess.run(["exiftool", "-j", "-n", "-XMP-hdrgm:all", path], capture_output=True, text=True, check=True).stdout
    tags = json.loads(out)[0]
    if "GainMapMax" not in tags:
        record = base.tmap_record(path)
        if record is None:
            raise SystemExit("no hdrgm: values or tmap item in " + path)
        names = {"GainMapMin": "min", "GainMapMax": "max", "Gamma": "gamma", "OffsetSDR": "base_offset",
                 "OffsetHDR": "alternate_offset", "HDRCapacityMin": "base_headroom", "HDRCapacityMax": "alternate_headroom"}
        return {ours: float(record[theirs]) for ours, theirs in names.items()}
    return {name: float(tags[name]) for name in
            ("GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR", "HDRCapacityMin", "HDRCapacityMax")}


def rendition(path):
    """(aux types, headroom, linear SDR, linear HDR) of a HEIC with a gain map, or of a JPEG with
    Apple's."""
    with open(path, "rb") as file:
        if file.read(2) == b"\xff\xd8":
            if base.apple_jpeg_map(path) is None:
                raise SystemExit("no Apple gain map in " + path)
            _, sdr, hdr, headroom, _ = base.source_reference(path)
            return [APPLE], headroom, sdr, hdr
    heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
    aux = heif.info.get("aux", {})
    sdr8 = np.asarray(heif.to_pillow().convert("RGB"))
    height, width, _ = sdr8.shape
    sdr = base.srgb_to_linear(sdr8.astype(np.float32) / 255)
    kind = APPLE if APPLE in aux else SAMSUNG
    if kind not in aux:
        raise SystemExit("no Apple or Samsung gain map in " + path + ": " + json.dumps(aux))
    gain8 = np.asarray(heif.get_aux_image(aux[kind][0]).to_pillow().convert("L"))
    gain = base.upsample(gain8, height, width) / 255
    if kind == APPLE:
        headroom = base.apple_headroom(path)
        hdr = sdr * (1 + (headroom - 1) * base.rec709_to_linear(gain))[..., None]
    else:
        p = hdrgm(path)
        headroom = 2.0 ** p["HDRCapacityMax"]
        log_boost = p["GainMapMin"] + (p["GainMapMax"] - p["GainMapMin"]) * gain ** (1 / p["Gamma"])
        hdr = (sdr + p["OffsetSDR"]) * (2.0 ** log_boost)[..., None] - p["OffsetHDR"]
    return sorted(aux), headroom, sdr, hdr


def psnr(a, b, peak):
    mse = float(np.mean((a - b) ** 2))
    return 10 * np.log10(peak ** 2 / mse) if mse > 0 else float("inf")


def main():
    _, source_hdr_headroom, source_sdr, source_hdr = rendition(sys.argv[1])
    types, headroom, sdr, hdr = rendition(sys.argv[2])
    if hdr.shape != source_hdr.shape:
        if abs(hdr.shape[1] / hdr.shape[0] - source_hdr.shape[1] / source_hdr.shape[0]) > 0.01:
            raise SystemExit(f"shape differs: {hdr.shape} vs {source_hdr.shape}")
        size = (hdr.shape[1], hdr.shape[0])
        source_hdr, source_sdr = base.shrink(source_hdr, size), base.shrink(source_sdr, size)
    source_tmap = base.tmap_record(sys.argv[1])
    same_tmap = None
    if source_tmap is not None:
        ours = base.tmap_record(sys.argv[2])
        same_tmap = ours is not None and all(abs(ours[k] - v) < 1e-6 for k, v in source_tmap.items())
    print(json.dumps({"aux": types, "tmap": same_tmap, "source_headroom": source_hdr_headroom, "headroom": headroom,
                      "hdr_psnr": psnr(hdr, source_hdr, source_hdr_headroom), "sdr_psnr": psnr(sdr, source_sdr, 1.0),
                      "width": hdr.shape[1], "height": hdr.shape[0]}))


if __name__ == "__main__":
    main()
