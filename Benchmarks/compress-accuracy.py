#!/usr/bin/env python3
"""Target-size accuracy of `offconvert compress` against a plain ffmpeg 2-pass.

    Benchmarks/compress-accuracy.py [BINARY] [--quick] [--shared=DIR] [--only-shared]

For every clip in TestMedia/video, the generated videos and ../shared/media/video (read-only), at
targets of 50 % and 25 % of the clip's size (and 25 MB / 8 MB for a generated 60 s 720p clip),
prints a Markdown table: target, achieved bytes, achieved/target, encodes run and wall time, for
offconvert and for ffmpeg 2-pass x264 with the usual formula
(video bitrate = target × 8 / duration − audio bitrate, audio AAC 128 kb/s).

It also says how far offconvert's predictions land: the planned size of an encode at the target's
bitrate (`--dry-run --json`'s expectedBytes) against the file it made, and, where the normal quality
was stopped after its first frames, the CRF-23 size it projected against ffmpeg's real CRF-23
encode of the same picture and sound (SDR clips; an HDR one would need the same tone map).
"""
import re
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
args = [a for a in sys.argv[1:] if not a.startswith("--")]
# The real clips: ../shared/media/video next to the checkout, or --shared=DIR (from a worktree).
SHARED = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--shared=")),
              os.path.normpath(os.path.join(ROOT, "..", "shared", "media", "video")))
ONLY_SHARED = "--only-shared" in sys.argv
BIN = args[0] if args else os.path.join(ROOT, ".build", "debug", "offconvert")
QUICK = "--quick" in sys.argv


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type",
                          "-of", "json", path], capture_output=True, text=True).stdout
    info = json.loads(out or "{}")
    duration = float(info.get("format", {}).get("duration", 0) or 0)
    kinds = [s.get("codec_type") for s in info.get("streams", [])]
    return duration, "audio" in kinds, "video" in kinds


def run_ours(path, target, work, *extra):
    out = os.path.join(work, "ours")
    os.makedirs(out, exist_ok=True)
    # A fresh state folder per run: the free daily allowance must not cut the table short.
    env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix="state-", dir=work))
    start = time.perf_counter()
    proc = subprocess.run([BIN, "compress", path, "--target", f"{target}B", "--output-dir", out, "--overwrite",
                           "--json", "--no-resume", *extra], capture_output=True, text=True, env=env)
    return proc, time.perf_counter() - start


def encodes_of(notes):
    """How many encodes a run cost, read from its notes: 1, a stopped share plus 1, 1+1 when the
    normal quality ran to the end over the target, +k for corrections, +fill for a short clip's raised
    encode, 0.03+ for a larger start."""
    if any("copied without re-encoding" in n and "already" in n for n in notes):
        return "remux", None
    stopped = next((re.search(r"would come out at about (\d+) B \(projected from its first (\d+) %", n) for n in notes
                    if "would come out at about" in n), None)
    text = f"0.{int(stopped.group(2)):02d}+1" if stopped else "1"
    if any(n.startswith("the normal quality (CRF 23) came out at") for n in notes):
        text = "1+1"
    if any(n.startswith("made ") and " rather than " in n for n in notes):
        text = "0.03+" + text
    again = next((int(m.group(1)) for m in (re.match(r"encoded again (\d+) time", n) for n in notes) if m), 0)
    if again:
        text += f"+{again}"
    # A short clip that came out far under is encoded again, raised (one or two more encodes).
    if any(n.startswith("encoded again at a higher bitrate") for n in notes):
        text += "+fill"
    if any("eased to CRF" in n for n in notes):
        text += " (CRF eased)"
    return text, int(stopped.group(1)) if stopped else None


def ours(path, target, work):
    plan, _ = run_ours(path, target, work, "--dry-run")
    planned = next((json.loads(line).get("expectedBytes") for line in plan.stdout.splitlines()
                    if json.loads(line).get("event") == "plan"), None)
    proc, wall = run_ours(path, target, work)
    for line in proc.stdout.splitlines():
        event = json.loads(line)
        if event.get("event") == "finished":
            notes = event.get("notes", [])
            encodes, projected = encodes_of(notes)
            at_bitrate = notes and notes[0].startswith("H.264 at ") and "normal quality" not in notes[0]
            return dict(bytes=event["bytes"], encodes=encodes, wall=wall, error="", notes=notes,
                        planned=planned if at_bitrate else None, projected=projected)
        if event.get("event") == "failed" and "error" in event:
            return dict(bytes=None, encodes="-", wall=wall, error=event["error"]["message"])
    return dict(bytes=None, encodes="-", wall=wall, error=proc.stderr.strip()[-200:])


def crf23_bytes(path, notes, work):
    """ffmpeg's CRF-23 medium encode of the picture with the sound as ours had it; None for HDR."""
    info = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=color_transfer",
                           "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip()
    if info in ("smpte2084", "arib-std-b67"):
        return None
    audio = ["-an"]
    if "audio copied without re-encoding" in notes:
        audio = ["-map", "0:a:0", "-c:a", "copy"]
    for n in notes:
        m = re.match(r"audio re-encoded to AAC at (\d+) kb/s, (mono|stereo)", n)
        if m:
            audio = ["-map", "0:a:0", "-c:a", "aac", "-b:a", m.group(1) + "k", "-ac", "1" if m.group(2) == "mono" else "2"]
    out = os.path.join(work, "crf23.mp4")
    done = subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0:v:0", "-c:v", "libx264", "-preset",
                           "medium", "-crf", "23", "-pix_fmt", "yuv420p", *audio, "-movflags", "+faststart", out],
                          capture_output=True)
    return os.path.getsize(out) if done.returncode == 0 else None


def ffmpeg_two_pass(path, target, duration, has_audio, work):
    out = os.path.join(work, "ff.mp4")
    log = os.path.join(work, "ff2pass")
    audio = 128_000 if has_audio else 0
    video = int(target * 8 / duration - audio)
    if video <= 0:
        return None, "-", 0.0, "formula gives no video bitrate"
    common = ["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0:v:0", "-c:v", "libx264", "-preset", "medium",
              "-b:v", str(video), "-passlogfile", log, "-pix_fmt", "yuv420p"]
    start = time.perf_counter()
    first = subprocess.run(common + ["-pass", "1", "-an", "-f", "null", "-"], capture_output=True, text=True)
    if first.returncode != 0:
        return None, "-", 0.0, first.stderr.strip()[-120:]
    second = subprocess.run(common + ["-pass", "2"] + (["-map", "0:a:0", "-c:a", "aac", "-b:a", "128k"] if has_audio else [])
                            + ["-movflags", "+faststart", out], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if second.returncode != 0:
        return None, "-", wall, second.stderr.strip()[-120:]
    return os.path.getsize(out), "2", wall, ""


def clips(work):
    found = sorted(glob.glob(os.path.join(ROOT, "TestMedia", "video", "*")))
    found += [os.path.join(ROOT, "TestMedia", "generated", "video-long.mp4")]
    if ONLY_SHARED:
        found = []
    found += sorted(glob.glob(os.path.join(SHARED, "*")))
    if ONLY_SHARED:
        return [(p, None) for p in found]
    long_clip = os.path.join(work, "long-720p.mp4")
    seconds = 20 if QUICK else 60
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
                    "-vf", "noise=alls=12:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "14",
                    "-c:a", "aac", "-b:a", "160k", long_clip], check=True)
    return [(p, None) for p in found] + [(long_clip, [25_000_000, 8_000_000])]


def main():
    work = tempfile.mkdtemp(prefix="offconvert-compress-bench-")
    print("| clip | duration s | target bytes | offconvert bytes | ratio | encodes | planned → made | CRF 23 projected → real "
          "| s | ffmpeg 2-pass bytes | ratio | s |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for path, targets in clips(work):
        duration, has_audio, has_video = probe(path)
        if not has_video or duration <= 0:
            continue
        size = os.path.getsize(path)
        name = os.path.relpath(path, ROOT) if path.startswith(ROOT) else ("shared/" + os.path.basename(path)
                                                                         if path.startswith(SHARED) else os.path.basename(path))
        for target in targets or [size // 2, size // 4]:
            run = ours(path, target, work)
            got, encodes, wall, error = run["bytes"], run["encodes"], run["wall"], run["error"]
            ff, _, ff_wall, ff_error = ffmpeg_two_pass(path, target, duration, has_audio, work)
            planned = f"{got / run['planned']:.3f}" if got and run.get("planned") else "—"
            real = crf23_bytes(path, run["notes"], work) if run.get("projected") else None
            projected = f"{run['projected'] / real:.3f}" if real else "—"

            def cell(value):
                return f"{value}" if value is not None else "—"

            def ratio(value):
                return f"{value / target:.3f}" + (" **over**" if value > target else "") if value else "—"
            error, ff_error = error.replace("\n", " "), ff_error.replace("\n", " ")
            print(f"| {name} | {duration:.1f} | {target} | {cell(got) if got else error[:90]} | {ratio(got)} | {encodes} "
                  f"| {planned} | {projected} | {wall:.1f}"
                  f" | {cell(ff) if ff else ff_error[:60]} | {ratio(ff)} | {ff_wall:.1f} |", flush=True)


if __name__ == "__main__":
    main()
