#!/usr/bin/env python3
"""An app's own tasks while it converts: the longest a 20 ms tick came late on Swift's global
executor and on the main actor, during each pipeline, converted through ConvertCore's public API
on a ConversionLimits of the app's own (Examples/Sources/HostTicker, built in release here).
Issue #53's goal: under 50 ms in every pipeline. Before the engine's fan-out moved to its own
WorkerPool, a HEIC conversion stopped both tickers for 3.8 s of a 4.0 s job and a Sony 10-bit
HEIF for 15.8 s of 17.0 s.

    Benchmarks/host-responsiveness.py [--runs N] [--binary PATH]

Stores its rows under "host_responsiveness" in results.json and renders the README and
RESULTS.md from it (Benchmarks/render.py). There are no peers: the measure is whether the host
stalls, not how fast the conversion is.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

# (pipeline, file under TestMedia, HostTicker options)
PIPELINES = [
    ("12 MP grid HEIC with gain map → JPEG", "photos/IMG_3853.HEIC", ["--to", "jpeg"]),
    ("10-bit HEIF → JPEG", "photos/cat.hif", ["--to", "jpeg"]),
    ("PQ HDR HEIC, generated 384x256 → JPEG (tone map, gain map)", "generated/hdr-stills/pq.heic", ["--to", "jpeg"]),
    ("HEIC → JPEG XL", "photos/IMG_5195.HEIC", ["--to", "jxl"]),
    ("HEIC → AVIF", "photos/pug.heic", ["--to", "avif"]),
    ("HLG video → H.264 SDR (video tone map)", "video/hlg10-color-test.mp4", []),
    ("video compress to 300 kB (x264)", "video/bikes.mp4", ["--compress", "300000"]),
    ("200 photo jobs at once (JPEG → JPEG)", "photos/tokyo.jpg", ["--to", "jpeg", "--repeat", "200"]),
]
GOAL_MS = 50


def build():
    scratch = os.path.join(ROOT, ".build", "examples-release")
    subprocess.run(["swift", "build", "-c", "release", "--package-path", os.path.join(ROOT, "Examples"),
                    "--scratch-path", scratch, "--product", "HostTicker", "--disable-index-store"], check=True)
    return os.path.join(scratch, "release", "HostTicker")


def measure(binary, runs):
    rows = []
    for pipeline, fixture, options in PIPELINES:
        path = os.path.join(ROOT, "TestMedia", fixture)
        if not os.path.exists(path):
            raise SystemExit(f"{fixture} is missing: run TestMedia/generate first")
        lines = []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as out:
                done = subprocess.run([binary, "--threads", "2", *options, out, path],
                                      capture_output=True, text=True, check=True)
                lines.append(json.loads(done.stdout.splitlines()[-1]))
        seconds = sorted(line["seconds"] for line in lines)
        rows.append({
            "pipeline": pipeline, "file": fixture, "runs": runs,
            "seconds": seconds[len(seconds) // 2],
            "global_gap_ms": max(line["globalGapMs"] for line in lines),
            "main_gap_ms": max(line["mainGapMs"] for line in lines),
            "peak_threads": max(line["peakThreads"] for line in lines),
            "codec_threads": lines[0]["codecThreads"], "helper_threads": lines[0]["helperThreads"],
        })
        print(f"{pipeline}: {rows[-1]}", file=sys.stderr)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--binary", help="a built HostTicker (default: build Examples in release)")
    arguments = parser.parse_args()
    binary = arguments.binary or build()
    rows = measure(binary, arguments.runs)
    import harness
    import render
    results = harness.load_results()
    results["host_responsiveness"] = {
        "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "goal_ms": GOAL_MS, "rows": rows,
    }
    with open(harness.RESULTS_JSON, "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
        f.write("\n")
    render.write_all(results)


if __name__ == "__main__":
    main()
