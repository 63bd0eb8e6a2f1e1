"""offconvert benchmarks, side by side with the tools people would use instead.

    Benchmarks/run [--runs N] [--only NAME[,NAME]] [--quick] [--media DIR] [--render]

Installs the peer tools it needs from Debian packages (Scripts/install-deps --bench), builds
offconvert in release mode, prepares each workload from the real media in ../shared/media (or --media DIR) when
it is present (committed TestMedia or generated substitutes otherwise), then times whole commands:
one warm-up, then N runs of every contender, alternating the contenders run by run so machine
drift hits all of them alike. Heavy workloads (each run two full encodes) skip the warm-up and
take fewer runs (1 with --quick, at most 3 otherwise). Peak memory is the largest single
process's maximum RSS (getrusage).

Every measured workload is stored in Benchmarks/results.json with its date and run count; with
--only the other workloads keep their stored rows (marked with their own date). RESULTS.md and
ratios.svg are then regenerated from the whole merged set.

A ratio is peer time / our time: above 1 means offconvert is faster.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "media"))
BIN = os.path.join(ROOT, ".build", "release", "offconvert")
CORES = os.cpu_count() or 1
START = time.perf_counter()


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


# Where each run's state folder is made (under the run's work folder, removed with it), and a
# state folder that has been used once, which every run starts from: a user's install has its
# allowance secret and record already, so a run must not pay for creating them.
STATE_ROOT = None
STATE_TEMPLATE = None


def fresh_state():
    """The environment with its own copy of a used offconvert state folder: each timed run gets
    its own daily allowance and no resume journal from the previous run (which would skip every
    item)."""
    global STATE_ROOT, STATE_TEMPLATE
    if STATE_ROOT is None or not os.path.isdir(STATE_ROOT):
        STATE_ROOT = tempfile.mkdtemp(prefix="offconvert-bench-state-")
    if STATE_TEMPLATE is None:
        STATE_TEMPLATE = os.path.join(STATE_ROOT, "template")
        subprocess.run([BIN, "allowance"], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, XDG_STATE_HOME=STATE_TEMPLATE))
    state = tempfile.mkdtemp(dir=STATE_ROOT)
    shutil.copytree(STATE_TEMPLATE, state, dirs_exist_ok=True)
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = state
    return env


def timed(cmd, cwd):
    """Runs a shell command and returns its wall time and CPU time (user + system, the whole
    process tree) in seconds."""
    env = fresh_state()
    start = time.perf_counter()
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"command failed ({code}): {cmd}\n{err[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


class Contender:
    def __init__(self, label, cmd, ours=False, reset=None, measure=None):
        self.label, self.cmd, self.ours, self.reset, self.measure = label, cmd, ours, reset, measure
        self.times, self.cpu, self.rss, self.extra = [], [], [], None


class Workload:
    """`heavy`: each run is long (two full encodes), so no warm-up and fewer runs."""
    def __init__(self, name, title, contenders, note="", heavy=False):
        self.name, self.title, self.contenders, self.note, self.heavy = name, title, contenders, note, heavy
        self.runs = 0


def media(*names):
    """Paths of real media in ../shared/media that exist (benchmarks may use it; tests never do)."""
    return [p for p in (os.path.join(SHARED, n) for n in names) if os.path.exists(p)]


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def rss_isolated(cmd, cwd):
    """Peak RSS (MiB) of the largest single process a command ran, measured in a fresh Python child
    so that RUSAGE_CHILDREN covers this command alone."""
    code = ("import os,resource,subprocess,sys;"
            "subprocess.run(['bash','-c',sys.argv[1]],check=True,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, cmd], cwd=cwd, check=True, capture_output=True, text=True,
                         env=fresh_state())
    return int(out.stdout.strip()) / 1024.0


def run_workload(w, runs, work):
    print(f"== {w.title}", flush=True)

    def drop(c, error):
        if c.ours:
            raise error
        print(f"   dropped {c.label}: {str(error).splitlines()[0]}", file=sys.stderr)
        w.note = (w.note + " " if w.note else "") + f"{c.label} failed here and is left out."
        w.contenders.remove(c)

    if not w.heavy:
        for c in list(w.contenders):  # warm-up (also proves every contender works before timing)
            if c.reset: c.reset()
            try:
                timed(c.cmd, work)
            except RuntimeError as error:
                drop(c, error)
    w.runs = runs
    for i in range(runs):
        order = w.contenders if i % 2 == 0 else list(reversed(w.contenders))
        for c in list(order):
            if c.reset: c.reset()
            try:
                seconds, cpu = timed(c.cmd, work)
                c.times.append(seconds)
                c.cpu.append(cpu)
            except RuntimeError as error:
                drop(c, error)
                continue
            # A heavy workload measures its result after each contender's last run, since
            # the RSS pass below would cost another full encode.
            if w.heavy and i == runs - 1 and c.measure: c.extra = c.measure()
    for c in w.contenders:
        if not w.heavy:
            if c.reset: c.reset()
            c.rss.append(rss_isolated(c.cmd, work))
            if c.measure: c.extra = c.measure()
        rss = f"  peak {max(c.rss):7.1f} MiB" if c.rss else ""
        print(f"   {c.label:<44} median {statistics.median(c.times):7.3f}s  cpu {statistics.median(c.cpu):7.3f}s{rss}"
              + (f"  {c.extra}" if c.extra else ""), flush=True)


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except Exception:
        return "?"


def svg_chart(rows, path):
    width, bar_h, gap, left = 760, 18, 6, 360
    height = 40 + len(rows) * (bar_h + gap)
    top = max([r for _, r in rows] + [1.0])
    scale = (width - left - 60) / top
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             '<text x="10" y="20" font-size="14">peer time / offconvert time (above 1: offconvert is faster)</text>']
    x1 = left + scale * 1.0
    parts.append(f'<line x1="{x1:.1f}" y1="28" x2="{x1:.1f}" y2="{height - 4}" stroke="#888" stroke-dasharray="3,3"/>')
    for i, (label, ratio) in enumerate(rows):
        y = 32 + i * (bar_h + gap)
        colour = "#2a7" if ratio >= 1 else "#c44"
        label = label.replace("&", "&amp;").replace("<", "&lt;")
        parts.append(f'<text x="{left - 8}" y="{y + 13}" text-anchor="end">{label}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{max(ratio * scale, 1):.1f}" height="{bar_h}" fill="{colour}"/>')
        parts.append(f'<text x="{left + ratio * scale + 4:.1f}" y="{y + 13}">{ratio:.2f}×</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


RESULTS_JSON = os.path.join(HERE, "results.json")


def measured(w, started, quick):
    """A measured workload as stored in results.json."""
    ours = statistics.median(next(c for c in w.contenders if c.ours).times)
    rows = []
    for c in w.contenders:
        median = statistics.median(c.times)
        rows.append({"label": c.label, "ours": c.ours, "median": median, "min": min(c.times), "max": max(c.times),
                     "cpu": statistics.median(c.cpu),
                     "ratio": None if c.ours or ours <= 0 else median / ours,
                     "rss": max(c.rss) if c.rss else None, "result": c.extra or ""})
    return {"name": w.name, "title": w.title, "note": w.note, "measured": f"{started:%Y-%m-%d %H:%M} UTC",
            "runs": w.runs, "quick": quick, "warmup": not w.heavy, "rows": rows,
            "load": round(os.getloadavg()[0], 1)}


def merge(stored, fresh, order):
    """Fresh workloads replace their stored namesakes; the others stay. Catalogue order first,
    then any stored workload the catalogue no longer has."""
    by_name = {w["name"]: w for w in stored}
    by_name.update({w["name"]: w for w in fresh})
    known = [by_name.pop(n) for n in order if n in by_name]
    return known + list(by_name.values())


def write_results(fresh, started, order):
    """Merges `fresh` into results.json and rebuilds RESULTS.md and ratios.svg from it; with no
    `started` (--render) nothing was measured and the stored machine and versions are kept."""
    stored = {}
    if os.path.exists(RESULTS_JSON):
        with open(RESULTS_JSON) as f:
            stored = json.load(f)
    workloads = merge(stored.get("workloads", []), fresh, order)
    if started or "machine" not in stored:
        machine = (f"{platform.machine()}, {CORES} cores, "
                   f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, Linux {platform.release()}")
        versions = "; ".join(f"{n}: {v}" for n, v in [
            ("offconvert", tool_version(f"{BIN} --version")), ("ffmpeg", tool_version("ffmpeg -version")),
            ("heif-convert", tool_version("dpkg-query -W -f 'libheif-examples ${Version}' libheif-examples")),
            ("vips", tool_version("vips --version")), ("ImageMagick", tool_version("convert-im6.q16 -version")),
            ("HandBrakeCLI", tool_version("HandBrakeCLI --version 2>/dev/null | grep -i handbrake"))])
    else:
        machine, versions = stored["machine"], stored["versions"]
    with open(RESULTS_JSON, "w") as f:
        json.dump({"machine": machine, "versions": versions, "workloads": workloads}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    dates = sorted({w["measured"] for w in workloads})
    last = f"{started:%Y-%m-%d %H:%M} UTC" if started else (dates[-1] if dates else "never")
    lines = ["# Benchmark results", "",
             f"Generated by `Benchmarks/run` from `results.json`; last run {last}. "
             + ("Every workload below was measured in that run." if dates == [last] else
                "Workloads measured in earlier runs (`--only` keeps the others) carry their own date below.")
             + " Each section says how many timed runs each contender had; contenders were alternated run by run.",
             "",
             f"Machine: {machine}.", "",
             "Versions: " + versions, "",
             "Ratio = contender's median wall time / offconvert's median wall time (above 1: offconvert is faster). "
             "CPU s is the median user + system time of the whole process tree: on a busy machine it shows the work "
             "done where wall times mostly show waiting for a core. "
             "Peak RSS is the process tree's largest resident set (not measured for heavy workloads).",
             "",
             "Target-size accuracy over every test clip (73 runs against a plain ffmpeg 2-pass) is in "
             "[RESULTS-compress.md](RESULTS-compress.md), made by `Benchmarks/compress-accuracy.py`. The x264 preset "
             "comparison for `send-to-windows` (medium, fast, faster, veryfast and HandBrake's Fast 1080p30 on SDR clips) "
             "is in [RESULTS-presets.md](RESULTS-presets.md), made by `Benchmarks/preset-compare.py`.",
             "",
             "JPEG XL against JPEG and AVIF at the same `--quality` (size, Butteraugli, SSIM), lossless JPEG "
             "recompression and the encoder's time against cjxl are in [RESULTS-jxl.md](RESULTS-jxl.md), made by "
             "`Benchmarks/jxl-compare.py`.",
             ""]
    chart = []
    for w in workloads:
        lines += [f"## {w['title']}", "",
                  f"*Measured {w['measured']}, {w['runs']} timed run{'s' if w['runs'] != 1 else ''}"
                  + (" after one warm-up" if w.get("warmup", True) else ", no warm-up")
                  + (", quick mode" if w.get("quick") else "")
                  + (f", 1-minute load average {w['load']} at the end on {CORES} cores (a shared machine: the wall times "
                     "mostly show waiting for a core, compare CPU s)" if w.get("load", 0) > CORES else "")
                  + f"; rerun alone with `Benchmarks/run --only {w['name']}`.*", ""]
        if w["note"]: lines += [w["note"], ""]
        lines += ["| contender | median s | min–max s | ratio | CPU s | peak RSS MiB | result |", "|---|---:|---:|---:|---:|---:|---|"]
        for r in w["rows"]:
            rss = "—" if r["rss"] is None else f"{r['rss']:.0f}"
            ratio = "—" if r["ratio"] is None else f"{r['ratio']:.2f}"
            cpu = "—" if r.get("cpu") is None else f"{r['cpu']:.3f}"
            lines.append(f"| {r['label']} | {r['median']:.3f} | {r['min']:.3f}–{r['max']:.3f} | {ratio} | {cpu} | {rss} | {r['result']} |")
            if r["ratio"] is not None: chart.append((f"{w['name']}: {r['label']}", r["ratio"]))
        lines.append("")
    lines += ["![ratios](ratios.svg)", ""]
    with open(os.path.join(HERE, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines))
    svg_chart(chart, os.path.join(HERE, "ratios.svg"))


def main():
    global SHARED
    sys.path.insert(0, HERE)
    import workloads as catalogue  # Benchmarks/workloads.py: the workload definitions
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated workload names: " + ",".join(catalogue.names()))
    parser.add_argument("--quick", action="store_true", help="3 runs (1 for heavy workloads), smaller inputs")
    parser.add_argument("--render", action="store_true", help="only rebuild RESULTS.md and ratios.svg from results.json")
    parser.add_argument("--media", default=SHARED, help="the real media folder (default: ../shared/media next to the checkout)")
    args = parser.parse_args()
    SHARED = os.path.abspath(args.media)
    only = [n for n in args.only.split(",") if n]
    unknown = [n for n in only if n not in catalogue.names()]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}; known: {', '.join(catalogue.names())}")
    if args.render:
        write_results([], None, catalogue.names())
        return
    print(f"real media: {SHARED}" + ("" if os.path.isdir(SHARED) else " (absent: committed and generated substitutes)"))
    runs = 3 if args.quick else args.runs
    started = datetime.datetime.now(datetime.timezone.utc)
    sh(f"{ROOT}/Scripts/install-deps --bench")
    sh(f"cd {ROOT} && {ROOT}/TestMedia/generate && swift build -c release --product offconvert && swift build -c release --product offconvert-photo && swift build -c release --product offconvert-media")
    work = tempfile.mkdtemp(prefix="offconvert-bench-")
    try:
        done = []
        for w in catalogue.build(work, BIN, args.quick, only):
            try:
                run_workload(w, (1 if args.quick else min(runs, 3)) if w.heavy else runs, work)
                done.append(measured(w, started, args.quick))
            except Exception as error:  # one broken workload does not lose the others' results
                print(f"   skipped: {error}", file=sys.stderr)
        write_results(done, started, catalogue.names())
        print(f"results: {os.path.join(HERE, 'RESULTS.md')} ({time.perf_counter() - START:.0f} s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if STATE_ROOT:
            shutil.rmtree(STATE_ROOT, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    main()
