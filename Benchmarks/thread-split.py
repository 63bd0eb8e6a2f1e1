#!/usr/bin/env python3
"""How to split 2+ cores between photos in flight and libheif's decoding threads per photo.

    Benchmarks/thread-split.py [--runs N] [--files N] [--quick]

Measures, on iPhone HEICs from TestMedia/photos (IMG_5195, pug, xiaomi, empty_icc,
sample_still_photo, repeated to --files photos):
  1. the batch, end to end (HEIC → JPEG through the public PhotoConverter API and the
     BatchScheduler, `heic-decode-floor --convert-to`) and decode-only (`heic-decode-floor`), for
     jobs 1/2/3 × decoding threads 0 (tiles on the job's own thread), 1, 2 and 4 (libheif's default);
  2. `offconvert heic-to-jpg` on the batch against the decode-only floor at the product's own split;
  3. one 12 MP photo (pug.heic): offconvert, heif-convert and the floor at each thread count;
  4. startup alone: `offconvert --version` against `heif-convert --version`.
Every group's commands alternate run by run (forward, then reversed), so drift on a shared machine
hits them alike. Wall time and CPU time (user + system of the whole process tree) are both
reported as medians: on a loaded machine the CPU time is the steadier of the two.
Writes Benchmarks/RESULTS-threads.md.
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RELEASE = os.path.join(ROOT, ".build", "release")
PHOTOS = os.path.join(ROOT, "TestMedia", "photos")
BATCH_SOURCES = ["IMG_5195.HEIC", "pug.heic", "xiaomi.heic", "empty_icc.heic", "sample_still_photo.heic"]
CORES = os.cpu_count() or 1


def run_once(argv, prepare=None):
    """Wall and CPU seconds of one run of argv (stdout and stderr discarded, failure raises)."""
    if prepare:
        prepare()
    env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix="offconvert-threads-state-"))
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"failed: {' '.join(argv[:4])} ...\n{err[-1500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(group, runs):
    """group: list of (label, argv, prepare). Returns {label: (median wall, median cpu)}."""
    times = {label: [] for label, _, _ in group}
    for label, argv, prepare in group:  # warm-up, also proves each command works
        run_once(argv, prepare)
    for i in range(runs):
        for label, argv, prepare in (group if i % 2 == 0 else list(reversed(group))):
            times[label].append(run_once(argv, prepare))
    result = {}
    for label, samples in times.items():
        result[label] = (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples))
        print(f"   {label:<48} wall {result[label][0]:7.3f}s  cpu {result[label][1]:7.3f}s", flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="1 run, 6 files")
    args = parser.parse_args()
    runs, count = (1, 6) if args.quick else (args.runs, args.files)
    started = datetime.datetime.now(datetime.timezone.utc)
    subprocess.run(["swift", "build", "-c", "release", "--product", "offconvert"], cwd=ROOT, check=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", "heic-decode-floor"], cwd=ROOT, check=True)
    offconvert, floor = os.path.join(RELEASE, "offconvert"), os.path.join(RELEASE, "heic-decode-floor")
    work = tempfile.mkdtemp(prefix="offconvert-threads-")
    try:
        batch = []
        for i in range(count):
            path = os.path.join(work, f"photo{i:03d}.heic")
            shutil.copy(os.path.join(PHOTOS, BATCH_SOURCES[i % len(BATCH_SOURCES)]), path)
            batch.append(path)
        out = os.path.join(work, "out")

        def fresh_out():
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)

        thread_counts = [0, 1, 2, 4]
        jobs_counts = [1, 2, 3]
        print(f"== batch of {count}: jobs × threads, end to end and decode-only", flush=True)
        matrix = measure(
            [(f"convert j{j} t{t}", [floor, "--jobs", str(j), "--threads", str(t), "--convert-to", out, "--quality", "90"] + batch, fresh_out)
             for j in jobs_counts for t in thread_counts]
            + [(f"decode j{j} t{t}", [floor, "--jobs", str(j), "--threads", str(t)] + batch, None)
               for j in jobs_counts for t in thread_counts], runs)

        print(f"== batch of {count}: offconvert heic-to-jpg against the floor at the product's split", flush=True)
        product = measure(
            [(f"offconvert j{j}", [offconvert, "heic-to-jpg", *batch, "--output-dir", out, "--quality", "90", "--quiet", "--jobs", str(j)], fresh_out)
             for j in jobs_counts]
            + [(f"floor j{j}", [floor, "--jobs", str(j)] + batch, None) for j in jobs_counts], runs)

        one = os.path.join(PHOTOS, "pug.heic")
        print("== one 12 MP photo (pug.heic)", flush=True)
        single = measure(
            [("offconvert heic-to-jpg", [offconvert, "heic-to-jpg", one, "--output-dir", out, "--quality", "90", "--quiet"], fresh_out),
             ("heif-convert", ["heif-convert", "-q", "90", one, os.path.join(out, "hc.jpg")], fresh_out)]
            + [(f"floor t{t}", [floor, "--threads", str(t), one], None) for t in thread_counts], runs * 3)

        print("== startup", flush=True)
        startup = measure([("offconvert --version", [offconvert, "--version"], None),
                           ("heif-convert --version", ["heif-convert", "--version"], None)], runs * 10)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write(started, runs, count, jobs_counts, thread_counts, matrix, product, single, startup)


def write(started, runs, count, jobs_counts, thread_counts, matrix, product, single, startup):
    load = os.getloadavg()
    lines = ["# Decoding threads × jobs in flight", "",
             f"Generated by `Benchmarks/thread-split.py` on {started:%Y-%m-%d %H:%M} UTC, {CORES} cores, load average "
             f"{load[0]:.1f} at the end (a shared machine: compare within a table, not across runs). "
             f"Medians of {runs} alternated runs (single photo: {runs * 3}, startup: {runs * 10}); CPU = user + system.",
             "", f"## Batch of {count} iPhone HEICs → JPEG quality 90, end to end (wall s / CPU s)", "",
             "Through the public PhotoConverter API and the BatchScheduler (`heic-decode-floor --convert-to`), "
             "threads forced per photo. Threads 0 = tiles decoded on the job's own thread; 4 = libheif's default.", "",
             "| jobs | " + " | ".join(f"threads {t}" for t in thread_counts) + " |",
             "|---:|" + "---:|" * len(thread_counts)]
    for j in jobs_counts:
        lines.append(f"| {j} | " + " | ".join(f"{matrix[f'convert j{j} t{t}'][0]:.2f} / {matrix[f'convert j{j} t{t}'][1]:.2f}" for t in thread_counts) + " |")
    lines += ["", f"## Batch of {count}, decode only (wall s / CPU s)", "",
              "| jobs | " + " | ".join(f"threads {t}" for t in thread_counts) + " |", "|---:|" + "---:|" * len(thread_counts)]
    for j in jobs_counts:
        lines.append(f"| {j} | " + " | ".join(f"{matrix[f'decode j{j} t{t}'][0]:.2f} / {matrix[f'decode j{j} t{t}'][1]:.2f}" for t in thread_counts) + " |")
    lines += ["", f"## `offconvert heic-to-jpg` ({count} photos) against the decode-only floor, product's default split", "",
              "| --jobs | offconvert wall s | floor wall s | wall ratio | offconvert CPU s | floor CPU s | CPU ratio |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for j in jobs_counts:
        ours, base = product[f"offconvert j{j}"], product[f"floor j{j}"]
        lines.append(f"| {j} | {ours[0]:.2f} | {base[0]:.2f} | {ours[0] / base[0]:.3f} | {ours[1]:.2f} | {base[1]:.2f} | {ours[1] / base[1]:.3f} |")
    lines += ["", "## One 12 MP photo (pug.heic, 4032×3024 grid of 512×512 tiles)", "",
              "| command | wall s | CPU s |", "|---|---:|---:|"]
    for label, (wall, cpu) in single.items():
        lines.append(f"| {label} | {wall:.3f} | {cpu:.3f} |")
    lines += ["", "## Startup", "", "| command | wall ms | CPU ms |", "|---|---:|---:|"]
    for label, (wall, cpu) in startup.items():
        lines.append(f"| {label} | {wall * 1000:.1f} | {cpu * 1000:.1f} |")
    lines += ["", "## Reading these tables", "",
              "- On a loaded machine a process with more runnable threads gets a larger share of the cores, so wall "
              "times there favour more threads whatever the split is worth on an idle machine; CPU times do not. "
              "`nice -n -20 Benchmarks/thread-split.py` (as root) approximates an idle machine.",
              "- The product's default (`DecodingThreads.perPhoto`): one photo decodes its tiles on every core; a batch "
              "runs one photo per core (`--jobs` default) with its tiles on the job's own thread (threads 0), the "
              "cheapest in CPU: no tile threads created, no oversubscription; the batch's last photos, with fewer left "
              "than jobs, get the cores back.",
              "- The floor decodes with the product's code and settings and writes nothing; the CPU ratio is what "
              "encoding, metadata and writing add to the decode.", ""]
    with open(os.path.join(HERE, "RESULTS-threads.md"), "w") as f:
        f.write("\n".join(lines))
    print(f"results: {os.path.join(HERE, 'RESULTS-threads.md')}")


if __name__ == "__main__":
    main()
