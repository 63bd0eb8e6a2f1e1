"""offconvert benchmarks, side by side with the tools people would use instead.

    Benchmarks/run [--runs N] [--only NAME[,NAME]] [--quick] [--media DIR]
    Benchmarks/run --render [--check]
    Benchmarks/run --estimate
    Benchmarks/run --footage DIR [--quick] [--runs N] [--binary PATH] [--report FILE]

A measuring run installs the peer tools it needs from Debian packages (Scripts/install-deps
--bench), builds offconvert in release mode, prepares each workload from the real media in
../shared/media (or --media DIR) when it is present (committed TestMedia or generated substitutes
otherwise), then times whole commands: one warm-up, then N runs of every contender, alternating
the contenders run by run so machine drift hits all of them alike. Heavy workloads (each run two
full encodes) skip the warm-up and take fewer runs (1 with --quick, at most 3 otherwise).

Every contender gets the same terms: the same parallelism (xargs -P<cores> for a tool that converts
one file per process, or the tool's own threads), the same quality and chroma subsampling (q85,
4:2:0), the same output format and the same work. Beside each time: the output's size and, for lossy
outputs, SSIM and PSNR against the source computed by ffmpeg (Benchmarks/quality.py). Peak RSS is
the whole process tree's (the summed PSS of every process of the run, sampled every 20 ms, and at
least the largest high-water mark of any one of them), so xargs peers count all their processes.

Every measured workload is stored in Benchmarks/results.json with its date, run count and the
revision of its terms; with --only the other workloads keep their stored rows. RESULTS.md,
ratios.svg and the README's benchmark section (between <!-- bench:begin --> and
<!-- bench:end -->) are then regenerated from the whole stored set by Benchmarks/render.py: no
benchmark figure in the README is typed by hand. A workload measured before its terms last
changed is shown as stale, never as current.

--footage DIR measures the user's own files instead: every video and photo under DIR (see
Benchmarks/footage.py).

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
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "media"))
BIN = os.path.join(ROOT, ".build", "release", "offconvert")
CORES = os.cpu_count() or 1
START = time.perf_counter()
RESULTS_JSON = os.path.join(HERE, "results.json")


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
        STATE_TEMPLATE = None
    if STATE_TEMPLATE is None:
        STATE_TEMPLATE = os.path.join(STATE_ROOT, "template")
        # One real conversion installs the state (`allowance` only reads it and creates nothing):
        # a tiny PNG to JPEG, so every copy starts with one of its three free conversions used.
        seed = os.path.join(STATE_ROOT, "seed")
        os.makedirs(seed, exist_ok=True)
        png = os.path.join(seed, "seed.png")
        with open(png, "wb") as f:
            f.write(tiny_png())
        subprocess.run([BIN, "convert", png, "--to", "jpg", "-o", seed, "--quiet"], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, XDG_STATE_HOME=STATE_TEMPLATE))
    state = tempfile.mkdtemp(dir=STATE_ROOT)
    shutil.copytree(STATE_TEMPLATE, state, dirs_exist_ok=True)
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = state
    return env


def tiny_png():
    """A 2x2 grey PNG, written with zlib: no imaging library needed."""
    import struct, zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\x80\x80\x80" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def cleanup_state():
    global STATE_ROOT, STATE_TEMPLATE
    if STATE_ROOT:
        shutil.rmtree(STATE_ROOT, ignore_errors=True)
    STATE_ROOT = STATE_TEMPLATE = None


class TreeSampler:
    """The peak memory of a process tree: every process of the run's session (bash, xargs and all
    they started, orphans included), read every 20 ms. The peak is the larger of the tree's summed
    proportional set size (PSS: a page two processes share counts half in each, so the sum is what
    the tree really holds at once) and the largest high-water mark (VmHWM) of any one process.
    getrusage's ru_maxrss is not used: the first process of the run inherits the Python harness's
    own high-water mark when it is exec'd, which added the harness's size to every row."""
    INTERVAL = 0.02

    def __init__(self, session):
        self.session, self.peak_kib = session, 0
        self._sessions = {}  # pid → its session, read once per process (the sampling stays cheap)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _members(self):
        pids = []
        alive = [entry for entry in os.listdir("/proc") if entry.isdigit()]
        self._sessions = {pid: self._sessions[pid] for pid in alive if pid in self._sessions}  # a PID used again is read again
        for entry in alive:
            if entry not in self._sessions:
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        self._sessions[entry] = int(f.read().rsplit(b")", 1)[1].split()[3])
                except (OSError, IndexError, ValueError):
                    continue
            if self._sessions[entry] == self.session:
                pids.append(entry)
        return pids

    @staticmethod
    def _field_kib(path, key):
        try:
            with open(path, "rb") as f:
                for line in f:
                    if line.startswith(key):
                        return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            pass
        return 0

    def sample(self):
        members = self._members()
        total = sum(self._field_kib(f"/proc/{pid}/smaps_rollup", b"Pss:") for pid in members)
        largest = max((self._field_kib(f"/proc/{pid}/status", b"VmHWM:") for pid in members), default=0)
        self.peak_kib = max(self.peak_kib, total, largest)

    def _loop(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.INTERVAL)

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.peak_kib / 1024.0


def run_command(cmd, cwd, sample_memory=False, env=None):
    """Runs a shell command in a session of its own; returns (wall s, CPU s of the whole tree, peak
    MiB of the tree or None). The command's output goes nowhere; its errors are kept for the message
    when it fails."""
    env = env or fresh_state()
    start = time.perf_counter()
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    sampler = TreeSampler(proc.pid) if sample_memory else None
    err = proc.stderr.read().decode(errors="replace")  # a full pipe would stall the command
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = sampler.stop() if sampler else None
    if proc.returncode != 0:
        raise RuntimeError(f"command failed ({proc.returncode}): {cmd}\n{err[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, peak


def timed(cmd, cwd):
    """Wall time and CPU time (user + system, the whole process tree) of a shell command."""
    elapsed, cpu, _ = run_command(cmd, cwd)
    return elapsed, cpu


class Contender:
    """One command of a workload. `role`: "ours", "peer" (another tool doing the same job) or
    "reference" (a floor or a variant of ours that explains a row, never a competitor).
    `outputs`: a glob pattern or a function giving the files the command wrote; `quality`: a
    function from those files to [(ssim, psnr)] (None for lossless or non-picture output);
    `target`: a size the outputs must not pass; `source`: the input, for telling a copy from an
    encode. `measure`: a free-text result (legacy, e.g. the memory budget)."""

    def __init__(self, label, cmd, ours=False, reset=None, measure=None, role=None, outputs=None, quality=None,
                 target=None, source=None):
        self.label, self.cmd, self.ours, self.reset, self.measure = label, cmd, ours, reset, measure
        self.role = "ours" if ours else (role or "peer")
        self.outputs, self.quality, self.target, self.source = outputs, quality, target, source
        self.times, self.cpu, self.rss, self.extra, self.assessed = [], [], [], None, {}


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


def output_files(c):
    import glob
    if c.outputs is None:
        return []
    paths = c.outputs() if callable(c.outputs) else glob.glob(c.outputs)
    return sorted(p for p in paths if os.path.isfile(p))


def assess(c):
    """Size, quality, over-target count and encode mode of a contender's outputs, as they are after
    its last run (untimed)."""
    import quality
    paths = output_files(c)
    if c.outputs is None:
        return {}
    found = {"bytes": quality.output_bytes(paths), "files": len(paths)}
    if c.target:
        found["target"] = c.target
        found["over"] = sum(1 for p in paths if os.path.getsize(p) > c.target)
    if c.quality and paths:
        pairs = [q for q in c.quality(paths) if q and q[0] is not None]
        if pairs:
            found["ssim"] = statistics.mean(s for s, _ in pairs)
            found["ssim_min"] = min(s for s, _ in pairs)
            found["psnr"] = statistics.mean(p for _, p in pairs if p is not None) if any(p is not None for _, p in pairs) else None
    if c.source and paths:
        modes = sorted({quality.encode_mode(p, c.source) for p in paths})
        found["mode"] = ", ".join(modes)
    return found


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
                last = w.heavy and i == runs - 1
                # A heavy workload samples memory and measures its result in each contender's
                # last run, since a separate pass would cost another full encode; the sampler
                # reads /proc every 20 ms, a cost the other runs do not have.
                seconds, cpu, peak = run_command(c.cmd, work, sample_memory=last)
                c.times.append(seconds)
                c.cpu.append(cpu)
                if last:
                    c.rss.append(peak)
                    if c.measure: c.extra = c.measure()
                    c.assessed = assess(c)
            except RuntimeError as error:
                drop(c, error)
                continue
    for c in w.contenders:
        if not w.heavy:
            if c.reset: c.reset()
            _, _, peak = run_command(c.cmd, work, sample_memory=True)  # untimed: the memory pass
            c.rss.append(peak)
            if c.measure: c.extra = c.measure()
            c.assessed = assess(c)
        rss = f"  peak {max(c.rss):7.1f} MiB" if c.rss else ""
        seen = c.assessed
        quality = (f"  {seen['bytes'] / 1e6:.3f} MB" if "bytes" in seen else "") + \
                  (f"  SSIM {seen['ssim']:.4f}" if seen.get("ssim") is not None else "") + \
                  (f"  {seen['mode']}" if seen.get("mode") else "")
        print(f"   {c.label:<44} median {statistics.median(c.times):7.3f}s  cpu {statistics.median(c.cpu):7.3f}s{rss}{quality}"
              + (f"  {c.extra}" if c.extra else ""), flush=True)


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except Exception:
        return "?"


def measured(w, started, quick, terms):
    """A measured workload as stored in results.json."""
    ours = statistics.median(next(c for c in w.contenders if c.ours).times)
    rows = []
    for c in w.contenders:
        median = statistics.median(c.times)
        row = {"label": c.label, "ours": c.ours, "role": c.role, "median": median, "min": min(c.times),
               "max": max(c.times), "cpu": statistics.median(c.cpu),
               "ratio": None if c.ours or ours <= 0 else median / ours,
               "rss": max(c.rss) if c.rss else None, "rss_kind": "tree", "result": c.extra or ""}
        row.update(c.assessed)
        rows.append(row)
    return {"name": w.name, "title": w.title, "note": w.note, "measured": f"{started:%Y-%m-%d %H:%M} UTC",
            "runs": w.runs, "quick": quick, "warmup": not w.heavy, "terms": terms, "rows": rows,
            "load": round(os.getloadavg()[0], 1)}


def merge(stored, fresh, order):
    """Fresh workloads replace their stored namesakes; the others stay. Catalogue order first,
    then any stored workload the catalogue no longer has."""
    by_name = {w["name"]: w for w in stored}
    by_name.update({w["name"]: w for w in fresh})
    known = [by_name.pop(n) for n in order if n in by_name]
    return known + list(by_name.values())


def load_results():
    if not os.path.exists(RESULTS_JSON):
        return {"workloads": []}
    with open(RESULTS_JSON) as f:
        return json.load(f)


def write_results(fresh, started, order):
    """Merges `fresh` into results.json (with this machine and the tools' versions), then
    regenerates RESULTS.md, ratios.svg and the README's section from it."""
    import render
    stored = load_results()
    workloads = merge(stored.get("workloads", []), fresh, order)
    machine = (f"{platform.machine()}, {CORES} cores, "
               f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, Linux {platform.release()}")
    versions = "; ".join(f"{n}: {v}" for n, v in [
        ("offconvert", tool_version(f"{BIN} --version")), ("ffmpeg", tool_version("ffmpeg -version")),
        ("heif-convert", tool_version("dpkg-query -W -f 'libheif-examples ${Version}' libheif-examples")),
        ("vips", tool_version("vips --version")), ("ImageMagick", tool_version("convert-im6.q16 -version")),
        ("cwebp", tool_version("cwebp -version")),
        ("HandBrakeCLI", tool_version("HandBrakeCLI --version 2>/dev/null | grep -i handbrake"))])
    # Sections other scripts measure (host-responsiveness.py's) stay as they are.
    results = dict(stored)
    results.update(machine=machine, cores=CORES, versions=versions, workloads=workloads)
    with open(RESULTS_JSON, "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
        f.write("\n")
    render.write_all(results)


def main():
    global SHARED, BIN
    sys.path.insert(0, HERE)
    import workloads as catalogue  # Benchmarks/workloads.py: the workload definitions
    import render
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=None, help="timed runs per contender (default 5; heavy workloads at most 3; "
                                                            "--footage: default 3)")
    parser.add_argument("--only", default="", help="comma-separated workload names: " + ",".join(catalogue.names()))
    parser.add_argument("--quick", action="store_true",
                        help="3 runs (1 for heavy workloads), smaller inputs; with --footage: one run, no warm-up, memory "
                             "sampled during that run")
    parser.add_argument("--render", action="store_true",
                        help="measure nothing: rebuild RESULTS.md, ratios.svg and the README section between "
                             "<!-- bench:begin --> and <!-- bench:end --> from results.json (idempotent)")
    parser.add_argument("--check", action="store_true",
                        help="with --render: write nothing, exit 1 (with a diff) when README.md, RESULTS.md or ratios.svg "
                             "differ from what --render writes")
    parser.add_argument("--estimate", action="store_true",
                        help="print the estimated wall time of a full run and of --quick (from results.json) and exit")
    parser.add_argument("--media", default=SHARED, help="the real media folder (default: ../shared/media next to the checkout)")
    parser.add_argument("--footage", metavar="DIR",
                        help="benchmark every video and photo under DIR (recursively) in the situations people use "
                             "(send-to-windows, compress --target 25MB, email, heic-to-jpg, compress-photos) against the "
                             "peers doing the same job; writes a table per file and in total")
    parser.add_argument("--binary", metavar="PATH",
                        help="the offconvert to measure with --footage (default: a release build of this checkout, "
                             "built when missing)")
    parser.add_argument("--report", metavar="FILE", default="footage-report.md",
                        help="with --footage: where the table goes (Markdown; the same data as FILE.json beside it); "
                             "default ./footage-report.md")
    parser.add_argument("--video-target", default="25MB", help="with --footage: the size target of compress (default 25MB)")
    parser.add_argument("--photo-target", default="500KB",
                        help="with --footage: the size target of compress-photos (default 500KB)")
    args = parser.parse_args()
    if args.check and not args.render:
        parser.error("--check goes with --render")
    if args.footage:
        import footage
        if args.binary:
            BIN = os.path.abspath(args.binary)
        elif not os.path.exists(BIN):
            sh(f"cd {ROOT} && swift build -c release --product offconvert && swift build -c release --product offconvert-photo "
               f"&& swift build -c release --product offconvert-media")
        try:
            sys.exit(footage.run(os.path.abspath(args.footage), BIN, args))
        finally:
            cleanup_state()
    SHARED = os.path.abspath(args.media)
    only = [n for n in args.only.split(",") if n]
    unknown = [n for n in only if n not in catalogue.names()]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}; known: {', '.join(catalogue.names())}")
    if args.render:
        results = load_results()
        if args.check:
            differing = render.check(results)
            for name, diff in differing:
                print(f"{name} differs from what `Benchmarks/run --render` writes:\n{diff}", file=sys.stderr)
            if differing:
                print("run `Benchmarks/run --render` (or a measuring run) and commit the result", file=sys.stderr)
            sys.exit(1 if differing else 0)
        render.write_all(results)
        return
    if args.estimate:
        print(render.estimate_text(load_results(), only))
        return
    print(f"real media: {SHARED}" + ("" if os.path.isdir(SHARED) else " (absent: committed and generated substitutes)"))
    print(render.estimate_text(load_results(), only), flush=True)
    runs = 3 if args.quick else (args.runs or 5)
    started = datetime.datetime.now(datetime.timezone.utc)
    sh(f"{ROOT}/Scripts/install-deps --bench")
    sh(f"cd {ROOT} && {ROOT}/TestMedia/generate && swift build -c release --product offconvert && swift build -c release --product offconvert-photo && swift build -c release --product offconvert-media")
    work = tempfile.mkdtemp(prefix="offconvert-bench-")
    try:
        done = []
        for w in catalogue.build(work, BIN, args.quick, only):
            try:
                run_workload(w, (1 if args.quick else min(runs, 3)) if w.heavy else runs, work)
                done.append(measured(w, started, args.quick, catalogue.terms(w.name)))
            except Exception as error:  # one broken workload does not lose the others' results
                print(f"   skipped: {error}", file=sys.stderr)
        write_results(done, started, catalogue.names())
        print(f"results: {os.path.join(HERE, 'RESULTS.md')} and README.md's benchmark section "
              f"({time.perf_counter() - START:.0f} s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        cleanup_state()


if __name__ == "__main__":  # pragma: no cover
    main()
