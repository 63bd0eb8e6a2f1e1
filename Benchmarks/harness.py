"""offconvert benchmarks, side by side with the tools people would use instead.

    Benchmarks/run [--runs N] [--only NAME[,NAME]] [--quick]

Installs the peer tools it needs from Debian packages (Scripts/install-deps --bench), builds
offconvert in release mode, prepares each workload from the real media in ../shared/media when it
is present (generated substitutes otherwise), then times whole commands: one warm-up, then N runs
of every contender, alternating the contenders run by run so machine drift hits all of them alike.
Peak memory is the largest single process's maximum RSS (getrusage). Results go to
Benchmarks/RESULTS.md (table) and Benchmarks/ratios.svg (chart), replacing the previous ones.

A ratio is peer time / our time: above 1 means offconvert is faster.
"""
import argparse
import datetime
import glob
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


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def fresh_state():
    """The environment with an empty offconvert state folder: each timed run gets its own daily
    allowance and no resume journal from the previous run (which would skip every item)."""
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="offconvert-bench-state-")
    return env


def timed(cmd, cwd):
    """Runs a shell command and returns its wall time in seconds."""
    env = fresh_state()
    start = time.perf_counter()
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, _ = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"command failed ({code}): {cmd}\n{err[-2000:]}")
    return elapsed


class Contender:
    def __init__(self, label, cmd, ours=False, reset=None, measure=None):
        self.label, self.cmd, self.ours, self.reset, self.measure = label, cmd, ours, reset, measure
        self.times, self.rss, self.extra = [], [], None


class Workload:
    def __init__(self, name, title, contenders, note=""):
        self.name, self.title, self.contenders, self.note = name, title, contenders, note


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
    working = []
    for c in w.contenders:  # warm-up (also proves every contender works before timing)
        if c.reset: c.reset()
        try:
            timed(c.cmd, work)
            working.append(c)
        except RuntimeError as error:
            if c.ours:
                raise
            print(f"   dropped {c.label}: {str(error).splitlines()[0]}", file=sys.stderr)
            w.note = (w.note + " " if w.note else "") + f"{c.label} failed here and is left out."
    w.contenders = working
    for i in range(runs):
        order = w.contenders if i % 2 == 0 else list(reversed(w.contenders))
        for c in order:
            if c.reset: c.reset()
            seconds = timed(c.cmd, work)
            c.times.append(seconds)
    for c in w.contenders:
        if c.reset: c.reset()
        c.rss.append(rss_isolated(c.cmd, work))
        if c.measure: c.extra = c.measure()
        print(f"   {c.label:<44} median {statistics.median(c.times):7.3f}s  peak {max(c.rss):7.1f} MiB"
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


def write_results(workloads, runs, started):
    lines = ["# Benchmark results", "",
             f"Generated by `Benchmarks/run` on {started:%Y-%m-%d %H:%M} UTC; {runs} timed runs per contender after one warm-up, contenders alternated run by run.",
             "",
             f"Machine: {platform.machine()}, {CORES} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, Linux {platform.release()}.",
             "",
             "Versions: " + "; ".join(f"{n}: {v}" for n, v in [
                 ("offconvert", tool_version(f"{BIN} --version")), ("ffmpeg", tool_version("ffmpeg -version")),
                 ("heif-convert", tool_version("dpkg-query -W -f 'libheif-examples ${Version}' libheif-examples")),
                 ("vips", tool_version("vips --version")), ("ImageMagick", tool_version("convert-im6.q16 -version")),
                 ("HandBrakeCLI", tool_version("HandBrakeCLI --version 2>/dev/null | grep -i handbrake"))]),
             "",
             "Ratio = contender's median time / offconvert's median time (above 1: offconvert is faster). Peak RSS is the process tree's largest resident set.",
             ""]
    chart = []
    for w in workloads:
        ours = next(c for c in w.contenders if c.ours)
        ours_median = statistics.median(ours.times)
        lines += [f"## {w.title}", ""]
        if w.note: lines += [w.note, ""]
        lines += ["| contender | median s | min–max s | ratio | peak RSS MiB | result |", "|---|---:|---:|---:|---:|---|"]
        for c in w.contenders:
            median = statistics.median(c.times)
            ratio = median / ours_median if ours_median > 0 else float("nan")
            lines.append(f"| {c.label} | {median:.3f} | {min(c.times):.3f}–{max(c.times):.3f} | "
                         f"{'—' if c.ours else f'{ratio:.2f}'} | {max(c.rss):.0f} | {c.extra or ''} |")
            if not c.ours: chart.append((f"{w.name}: {c.label}", ratio))
        lines.append("")
    lines += ["![ratios](ratios.svg)", ""]
    with open(os.path.join(HERE, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines))
    svg_chart(chart, os.path.join(HERE, "ratios.svg"))


def main():
    sys.path.insert(0, HERE)
    import workloads as catalogue  # Benchmarks/workloads.py: the workload definitions
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="")
    parser.add_argument("--quick", action="store_true", help="3 runs, smaller inputs")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    started = datetime.datetime.now(datetime.timezone.utc)
    sh(f"{ROOT}/Scripts/install-deps --bench")
    sh(f"cd {ROOT} && {ROOT}/TestMedia/generate && swift build -c release --product offconvert")
    work = tempfile.mkdtemp(prefix="offconvert-bench-")
    try:
        chosen = [w for w in catalogue.all_workloads(work, BIN, args.quick)
                  if not args.only or w.name in args.only.split(",")]
        done = []
        for w in chosen:
            try:
                run_workload(w, runs, work)
                done.append(w)
            except Exception as error:  # one broken workload does not lose the others' results
                print(f"   skipped: {error}", file=sys.stderr)
        write_results(done, runs, started)
        print(f"results: {os.path.join(HERE, 'RESULTS.md')}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    main()
