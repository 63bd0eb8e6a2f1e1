#!/usr/bin/env python3
"""The x264 preset for `send-to-windows`: medium, fast, faster and veryfast at CRF 23 (the
product's settings, run through the ffmpeg CLI so only the preset differs), next to HandBrakeCLI's
"Fast 1080p30", on SDR clips (HandBrake does not tone map HDR).

    Benchmarks/preset-compare.py [CLIP ...]

For each encode: CPU seconds (user + system of the whole process tree), output size, and PSNR and
SSIM of the decoded output against the source (ffmpeg's psnr and ssim filters; HandBrake's output
is scaled back to the source size first when it cropped). Writes Benchmarks/RESULTS-presets.md.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "media", "video"))
DEFAULT = ["motion.mov", "bikes.mp4", "cup.mp4", "sample.mp4"]
PRESETS = ["medium", "fast", "faster", "veryfast"]


def clips():
    names = sys.argv[1:] or DEFAULT
    found = []
    for name in names:
        for folder in (SHARED, os.path.join(ROOT, "TestMedia", "video"), ""):
            path = os.path.join(folder, name)
            if os.path.exists(path):
                found.append(path)
                break
    return found


def cpu_run(args):
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"failed: {' '.join(args)}\n{err[-1500:]}")
    return usage.ru_utime + usage.ru_stime


def size_of(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                          "-of", "json", path], capture_output=True, text=True, check=True).stdout
    stream = json.loads(out)["streams"][0]
    return stream["width"], stream["height"]


def quality(output, source):
    """(PSNR dB, SSIM) of output's video against the source's, frame by frame in order."""
    width, height = size_of(source)
    graph = (f"[0:v]scale={width}:{height}:flags=bicubic,format=yuv420p,split[a][b];"
             f"[1:v]format=yuv420p,split[c][d];[a][c]psnr;[b][d]ssim")
    err = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", output, "-i", source, "-filter_complex", graph,
                          "-f", "null", "-"], capture_output=True, text=True).stderr
    psnr = re.search(r"PSNR .*average:([0-9.inf]+)", err)
    ssim = re.search(r"SSIM .*All:([0-9.]+)", err)
    return (float(psnr.group(1)) if psnr else float("nan"), float(ssim.group(1)) if ssim else float("nan"))


def main():
    rows = []
    work = tempfile.mkdtemp(prefix="offconvert-presets-")
    for clip in clips():
        name = os.path.basename(clip)
        for preset in PRESETS:
            out = os.path.join(work, f"{preset}.mp4")
            cpu = cpu_run(["ffmpeg", "-v", "error", "-y", "-i", clip, "-map", "0:v:0", "-fps_mode", "passthrough",
                           "-c:v", "libx264", "-preset", preset, "-crf", "23", "-pix_fmt", "yuv420p", "-an", out])
            rows.append((name, f"x264 {preset}, CRF 23", cpu, os.path.getsize(out), *quality(out, clip)))
            print(rows[-1], flush=True)
        out = os.path.join(work, "hb.mp4")
        try:
            cpu = cpu_run(["HandBrakeCLI", "-i", clip, "-o", out, "--preset", "Fast 1080p30", "-a", "none"])
            rows.append((name, "HandBrakeCLI Fast 1080p30", cpu, os.path.getsize(out), *quality(out, clip)))
            print(rows[-1], flush=True)
        except (RuntimeError, FileNotFoundError) as error:
            print(f"HandBrake left out for {name}: {str(error).splitlines()[0]}", file=sys.stderr)
    lines = ["# x264 preset for send-to-windows", "",
             "Made by `Benchmarks/preset-compare.py` (SDR clips; video only, sound left out of every encode). "
             "CPU s = user + system of the encoder process; PSNR and SSIM of the decoded output against the "
             "source, frames paired by timestamp. HandBrake's \"Fast 1080p30\" is x264 RF 22 `fast`, 30 fps peak, auto-crop.", "",
             "| clip | encoder | CPU s | size kB | PSNR dB | SSIM |", "|---|---|---:|---:|---:|---:|"]
    for name, label, cpu, size, psnr, ssim in rows:
        lines.append(f"| {name} | {label} | {cpu:.2f} | {size / 1000:.0f} | {psnr:.2f} | {ssim:.4f} |")
    with open(os.path.join(HERE, "RESULTS-presets.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
