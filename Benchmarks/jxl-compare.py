#!/usr/bin/env python3
"""JPEG XL against JPEG and AVIF at the same --quality, lossless JPEG recompression, and the JPEG
XL encoder's time against cjxl. Writes Benchmarks/RESULTS-jxl.md.

    Benchmarks/jxl-compare.py [PHOTO...]      (default: the photos below from ../shared/media)

For each photo: offconvert converts it to PNG (the reference: upright, same colours) and to JPEG,
AVIF and JPEG XL at each quality; every output is decoded by its own format's tool (djpeg via
ffmpeg, heif-convert, djxl) and compared with the reference by Butteraugli (libjxl 0.7's own API,
called through ctypes: 3-norm and max; lower is better, 1.0 is libjxl's "visually lossless") and
ffmpeg's SSIM. Sizes are bytes of the file. The JPEG recompression rows check `djxl` gives back
the original bytes (cmp) and report the size saved. The timing rows encode the same PNG with
`offconvert convert --to jxl` and `cjxl` at the same distance, effort 7, median of 3.
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OFFCONVERT = os.path.join(ROOT, ".build", "release", "offconvert")
if not os.path.exists(OFFCONVERT):
    OFFCONVERT = os.path.join(ROOT, ".build", "debug", "offconvert")
MEDIA = os.path.join(ROOT, "..", "shared", "media", "photos")
PHOTOS = ["ColorfulCups_2560x1600.jpg", "DSCN0010.jpg", "IMG_5195.HEIC", "pug.heic", "tokyo.jpg", "Kleiber_by_Lukas_Baubkus.jpg"]
JPEGS = ["ColorfulCups_2560x1600.jpg", "DSCN0010.jpg", "Elephants_5640x3172.jpg", "Kleiber_by_Lukas_Baubkus.jpg", "tokyo.jpg",
         "ultraHDR.jpg", "orientation/Landscape_6.jpg"]
QUALITIES = [75, 85, 90]


class PixelFormat(ctypes.Structure):
    _fields_ = [("num_channels", ctypes.c_uint32), ("data_type", ctypes.c_int), ("endianness", ctypes.c_int),
                ("align", ctypes.c_size_t)]


jxl = ctypes.CDLL("libjxl.so.0.7")
jxl.JxlButteraugliApiCreate.restype = ctypes.c_void_p
jxl.JxlButteraugliApiCreate.argtypes = [ctypes.c_void_p]
jxl.JxlButteraugliCompute.restype = ctypes.c_void_p
jxl.JxlButteraugliCompute.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(PixelFormat),
                                      ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(PixelFormat), ctypes.c_char_p,
                                      ctypes.c_size_t]
jxl.JxlButteraugliResultGetDistance.restype = ctypes.c_float
jxl.JxlButteraugliResultGetDistance.argtypes = [ctypes.c_void_p, ctypes.c_float]
jxl.JxlButteraugliResultGetMaxDistance.restype = ctypes.c_float
jxl.JxlButteraugliResultGetMaxDistance.argtypes = [ctypes.c_void_p]
jxl.JxlButteraugliResultDestroy.argtypes = [ctypes.c_void_p]
jxl.JxlButteraugliApiDestroy.argtypes = [ctypes.c_void_p]


def run(*args, env=None):
    return subprocess.run(args, check=True, capture_output=True, env=env)


def offconvert(*args, state):
    # A fresh allowance for every call: the benchmark makes far more than three conversions.
    env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(dir=state), NO_COLOR="1")
    run(OFFCONVERT, *args, env=env)


def rgb(path):
    """8-bit RGB of an image ffmpeg reads, with its size."""
    probe = run("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                path).stdout.decode().strip().split(",")
    data = run("ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").stdout
    return int(probe[0]), int(probe[1]), data


def butteraugli(reference, distorted):
    (w, h, a), (w2, h2, b) = reference, distorted
    assert (w, h) == (w2, h2), "sizes differ"
    api = jxl.JxlButteraugliApiCreate(None)
    fmt = PixelFormat(3, 2, 0, 0)
    result = jxl.JxlButteraugliCompute(api, w, h, ctypes.byref(fmt), a, len(a), ctypes.byref(fmt), b, len(b))
    score = jxl.JxlButteraugliResultGetDistance(result, 3.0), jxl.JxlButteraugliResultGetMaxDistance(result)
    jxl.JxlButteraugliResultDestroy(result)
    jxl.JxlButteraugliApiDestroy(api)
    return score


def ssim(reference_png, decoded_png):
    out = subprocess.run(["ffmpeg", "-v", "info", "-i", decoded_png, "-i", reference_png, "-lavfi",
                          "[0]format=rgb24[a];[1]format=rgb24[b];[a][b]ssim", "-f", "null", "-"],
                         capture_output=True).stderr.decode()
    return float(out.rsplit("All:", 1)[1].split()[0])


def decode(path, work):
    png = os.path.join(work, os.path.basename(path) + ".png")
    if path.endswith(".jxl"):
        run("djxl", path, png)
    elif path.endswith(".avif"):
        run("heif-convert", path, png)
    else:
        run("ffmpeg", "-v", "error", "-y", "-i", path, png)
    return png


def compare(photos, work, state):
    rows = []
    for name in photos:
        source = os.path.join(MEDIA, name)
        stem = os.path.splitext(os.path.basename(name))[0]
        reference = os.path.join(work, stem + ".ref.png")
        offconvert("convert", source, "--to", "png", "-o", reference, "--keep-metadata", state=state)
        ref_rgb = rgb(reference)
        for quality in QUALITIES:
            for fmt in ["jpg", "avif", "jxl"]:
                out = os.path.join(work, f"{stem}.q{quality}.{fmt}")
                offconvert("convert", source, "--to", fmt, "--quality", str(quality), "-o", out, state=state)
                png = decode(out, work)
                pnorm, peak = butteraugli(ref_rgb, rgb(png))
                rows.append((name, f"{ref_rgb[0]}x{ref_rgb[1]}", quality, fmt, os.path.getsize(out), pnorm, peak,
                             ssim(reference, png)))
                print(rows[-1], flush=True)
    return rows


def recompress(jpegs, work, state):
    rows = []
    for name in jpegs:
        source = os.path.join(MEDIA, name)
        out = os.path.join(work, os.path.basename(name) + ".lossless.jxl")
        offconvert("convert", source, "--to", "jxl", "--lossless", "--keep-metadata", "-o", out, state=state)
        back = out + ".jpg"
        run("djxl", out, back)
        identical = subprocess.run(["cmp", "-s", source, back]).returncode == 0
        rows.append((name, os.path.getsize(source), os.path.getsize(out), identical))
        print(rows[-1], flush=True)
    return rows


def timing(photos, work, state):
    rows = []
    for name in photos:
        source = os.path.join(MEDIA, name)
        png = os.path.join(work, os.path.splitext(os.path.basename(name))[0] + ".time.png")
        offconvert("convert", source, "--to", "png", "-o", png, "--strip-metadata", state=state)
        ours, theirs = [], []
        for attempt in range(4):
            out = os.path.join(work, f"t{attempt}.jxl")
            start = time.monotonic()
            offconvert("convert", png, "--to", "jxl", "--quality", "85", "-o", out, "--overwrite", state=state)
            ours.append(time.monotonic() - start)
            start = time.monotonic()
            run("cjxl", png, out, "-d", "1.45", "-e", "7")
            theirs.append(time.monotonic() - start)
        # The first of each is a warm-up.
        rows.append((name, statistics.median(ours[1:]), statistics.median(theirs[1:])))
        print(rows[-1], flush=True)
    return rows


def main():
    photos = sys.argv[1:] or PHOTOS
    with tempfile.TemporaryDirectory() as work:
        state = os.path.join(work, "state")
        os.makedirs(state)
        compared = compare(photos, work, state)
        recompressed = recompress(JPEGS, work, state)
        timed = timing(photos[:3], work, state)
    lines = ["# JPEG XL against JPEG and AVIF", "",
             f"Generated by `Benchmarks/jxl-compare.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
             f"{os.cpu_count()} cores; libjxl 0.7.0, libjpeg-turbo and libheif/aom from Debian 12; offconvert from "
             f"`{os.path.relpath(OFFCONVERT, ROOT)}`; load average at the end {os.getloadavg()[0]:.0f} "
             "(other work on the machine slows both encoders alike; times are indicative).", "",
             "## Same `--quality`, three formats", "",
             "Butteraugli (libjxl 0.7's API: 3-norm and max over the picture; lower is better, 1.0 = visually lossless) and "
             "SSIM (ffmpeg, all channels) of each output's own decoder (ffmpeg/libjpeg, heif-convert, djxl) against "
             "offconvert's PNG of the source. `--quality` maps to libjxl's distance as cjxl does (85 → 1.45, 90 → 1.0).", "",
             "| photo | size | quality | format | bytes | Butteraugli 3-norm | Butteraugli max | SSIM |",
             "|---|---|---:|---|---:|---:|---:|---:|"]
    for name, size, quality, fmt, count, pnorm, peak, s in compared:
        lines.append(f"| {name} | {size} | {quality} | {fmt} | {count} | {pnorm:.3f} | {peak:.2f} | {s:.4f} |")
    lines += ["", "## Lossless JPEG recompression (`convert X.jpg --to jxl --lossless --keep-metadata`)", "",
              "| JPEG | bytes | JPEG XL bytes | saved | djxl gives the same bytes (cmp) |", "|---|---:|---:|---:|---|"]
    for name, before, after, identical in recompressed:
        lines.append(f"| {name} | {before} | {after} | {100 * (1 - after / before):.1f}% | {'yes' if identical else 'NO'} |")
    total_before = sum(r[1] for r in recompressed)
    total_after = sum(r[2] for r in recompressed)
    lines.append(f"| all | {total_before} | {total_after} | {100 * (1 - total_after / total_before):.1f}% | |")
    lines += ["", "## Encoder time against cjxl (same PNG, distance 1.45 = `--quality 85`, effort 7; median of 3 after a warm-up)", "",
              "offconvert's time includes its start, the PNG decode and the staged write; cjxl's its own PNG decode.", "",
              "| photo | offconvert s | cjxl s | cjxl / offconvert |", "|---|---:|---:|---:|"]
    for name, ours, theirs in timed:
        lines.append(f"| {name} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.2f} |")
    with open(os.path.join(HERE, "RESULTS-jxl.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
