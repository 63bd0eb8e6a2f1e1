"""Everything the benchmarks publish, generated from Benchmarks/results.json: RESULTS.md, ratios.svg
and the README's section between <!-- bench:begin --> and <!-- bench:end -->. Nothing here
measures or reads the clock: the same results.json always gives the same bytes, so
`Benchmarks/run --render` run twice changes nothing and `--render --check` can fail a test when
the README says anything else.

Only the standard library (it runs in the test suite with whatever python3 is first on PATH).
"""
import difflib
import os
import re

import workloads as catalogue

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
README = os.path.join(ROOT, "README.md")
RESULTS_MD = os.path.join(HERE, "RESULTS.md")
RATIOS_SVG = os.path.join(HERE, "ratios.svg")
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


# --- reading the stored results ------------------------------------------------------------------

def cores_of(results):
    if results.get("cores"):
        return int(results["cores"])
    found = re.search(r"(\d+) cores", results.get("machine", ""))
    return int(found.group(1)) if found else 1


def ordered(results):
    """Stored workloads in catalogue order, then any the catalogue no longer has (stored order)."""
    stored = results.get("workloads", [])
    names = catalogue.names()
    known = sorted((w for w in stored if w["name"] in names), key=lambda w: names.index(w["name"]))
    return known + [w for w in stored if w["name"] not in names]


def stale_reason(w):
    """Why a stored workload is not current, or None when it was measured under today's terms."""
    if w["name"] not in catalogue.names():
        return "no longer in the catalogue"
    revision, what = catalogue.TERMS.get(w["name"], (1, ""))
    if w.get("terms", 1) < revision:
        return f"measured before equal terms: {what}"
    return None


def ours_row(w):
    return next(r for r in w["rows"] if catalogue.role_of(r) == "ours")


def find(w, prefix):
    return next((r for r in w["rows"] if r["label"].startswith(prefix)), None)


def day(w):
    return w["measured"][:10]


# --- formatting --------------------------------------------------------------------------------

def secs(x):
    return f"{x:.3f}"


def size(row):
    if row.get("bytes") is None:
        return None
    b = row["bytes"]
    text = f"{b / 1e6:.2f} MB" if b >= 1e6 else f"{b / 1e3:.0f} kB"
    if row.get("files", 1) > 1:
        text += f" ({row['files']} files)"
    if row.get("target"):
        over = row.get("over", 0)
        text += f", {b / row['target'] / max(row.get('files', 1), 1):.1%} of target" + (", OVER" if over else "")
    return text


def recorded(row):
    """Whether the row was measured with sizes and quality at all (rows from before they were)."""
    return "bytes" in row or "rss_kind" in row


def ssim(row):
    return None if row.get("ssim") is None else f"{row['ssim']:.4f}"


def psnr(row):
    return None if row.get("psnr") is None else f"{row['psnr']:.1f}"


def rss(row):
    return None if row.get("rss") is None else f"{row['rss']:.0f}"


def rss_kind(row):
    return "tree" if row.get("rss_kind") == "tree" else "largest"


def pair(ours, peer, fn, missing="—"):
    a, b = fn(ours), fn(peer)
    if a is None and b is None:
        return missing
    return f"{a or '—'} / {b or '—'}"


# --- the verdicts: goals and where we are slower -----------------------------------------------

def verdicts(workloads):
    """Generated lines, one per peer row we lose to and per goal missed, each with its reason."""
    lines = []
    for w in workloads:
        ours = ours_row(w)
        why = catalogue.WHY.get(w["name"])
        for r in w["rows"]:
            if catalogue.role_of(r) != "peer" or r.get("ratio") is None or r["ratio"] >= 1:
                continue
            reason = why(w, r) if why else None
            if reason is None:
                reason = noise_or_unknown(ours, r)
            lines.append(f"- **{catalogue.SHORT.get(w['name'], w['title'])}: {r['ratio']:.2f}× {r['label']}** "
                         f"(`{w['name']}`, {day(w)}): {secs(ours['median'])} s against {secs(r['median'])} s, "
                         f"CPU {ours['cpu']:.2f} s against {r['cpu']:.2f} s. {reason}")
        for names, prefix, minimum, what, explain in catalogue.GOALS:
            if w["name"] not in names:
                continue
            r = find(w, prefix)
            if r is None or r.get("ratio") is None or r["ratio"] >= minimum or r["ratio"] < 1 and catalogue.role_of(r) == "peer":
                continue  # met, or already listed as a loss above
            lines.append(f"- **{catalogue.SHORT.get(w['name'], w['title'])}: {r['ratio']:.2f}× {r['label']}, "
                         f"short of {what}** (`{w['name']}`, {day(w)}). {explain(w, r)}")
    return lines


def noise_or_unknown(ours, peer):
    if peer["min"] <= ours["max"] and ours["min"] <= peer["max"]:
        return (f"Within run-to-run noise: the ranges overlap (ours {secs(ours['min'])}–{secs(ours['max'])} s, "
                f"the peer {secs(peer['min'])}–{secs(peer['max'])} s).")
    return "The reason has not been measured yet."


# --- the estimate ------------------------------------------------------------------------------

def workload_seconds(w, runs, quick):
    """Seconds one workload takes to measure: its contenders' stored medians summed, times the
    runs (warm-up + timed runs + the memory pass; heavy ones: their timed runs), plus a quarter
    of a run for the SSIM passes (ffmpeg decoding both pictures), scaled when the stored inputs
    were smaller than today's."""
    per_run = sum(r["median"] for r in w["rows"]) * catalogue.ESTIMATE_SCALE.get(w["name"], 1.0)
    heavy = not w.get("warmup", True)
    if heavy:
        return per_run * ((1 if quick else min(runs, 3)) + QUALITY_SHARE)
    return per_run * (1 + (3 if quick else runs) + 1 + QUALITY_SHARE)


QUALITY_SHARE = 0.25


def estimate(results, only=(), runs=5, quick=False):
    """(seconds, names without a stored measurement) of a measuring run of `only` (all when empty)."""
    stored = {w["name"]: w for w in results.get("workloads", [])}
    total, guessed = 0.0, []
    for name in catalogue.names():
        if only and name not in only:
            continue
        if name in stored:
            total += workload_seconds(stored[name], runs, quick)
        else:
            total += catalogue.ESTIMATE_GUESS.get(name, 60.0) * ((1 if quick else 3) + QUALITY_SHARE)
            guessed.append(name)
    return total, guessed


def estimate_text(results, only=()):
    full, guessed = estimate(results, only)
    quick, _ = estimate(results, only, quick=True)
    what = f"`--only {','.join(only)}`" if only else "a full `Benchmarks/run`"
    text = (f"Estimated wall time of {what}: about {full / 60:.0f} minutes of measuring on {cores_of(results)} cores "
            f"(`--quick`: about {quick / 60:.0f}), from the stored medians")
    if guessed:
        text += f" (no stored row for {', '.join(guessed)}: guessed)"
    return text + ("; plus installing peers, the release build and preparing inputs (the generated camera HEIFs "
                   "take minutes the first time, then are kept in .build/bench-heic).")


# --- README section -----------------------------------------------------------------------------

def readme_section(results):
    workloads = ordered(results)
    current = [w for w in workloads if stale_reason(w) is None]
    stale = [w for w in workloads if stale_reason(w) is not None]
    out = [BEGIN,
           "<!-- Generated by `Benchmarks/run --render` from Benchmarks/results.json; edit Benchmarks/render.py or "
           "Benchmarks/workloads.py, never this block: a test fails when it differs from what --render writes. -->",
           "",
           f"Measured on {results.get('machine', 'an unrecorded machine')} ({results.get('versions', 'versions unrecorded')}). "
           "Ratio = the peer's median wall time / ours: above 1, offconvert is faster. Size: the bytes written (a batch: "
           "all its files; a size target: the share of it and OVER when passed). SSIM and PSNR (dB) are against the "
           "source, computed by ffmpeg's filters (photos in RGB, a HEIF decoded by heif-convert; videos in 4:2:0 at "
           "the source's size); \"—\" for a lossless output or no independent reference, \"not recorded\" for a row "
           "measured before sizes and SSIM were. Peak RSS: \"tree\" sums every process of the run (an xargs peer "
           "counts all of its processes), \"largest\" is the largest single process by getrusage, as older rows "
           "were measured (it under-reports xargs peers and counted the measuring Python's own size as well). "
           "Floors, variants and notes are in "
           "[Benchmarks/RESULTS.md](Benchmarks/RESULTS.md).",
           "",
           "| workload | peer | ours s | peer s | ratio | size ours / peer | SSIM ours / peer | PSNR dB ours / peer "
           "| peak RSS MiB ours / peer | measured |",
           "|---|---|---:|---:|---:|---|---|---|---|---|"]
    for w in current:
        ours = ours_row(w)
        for r in w["rows"]:
            if catalogue.role_of(r) != "peer":
                continue
            quality_missing = "not recorded" if not (recorded(ours) and recorded(r)) else "—"
            memory = pair(ours, r, rss)
            if memory != "—":
                kinds = sorted({rss_kind(ours), rss_kind(r)})
                memory += f" ({' / '.join(kinds)})"
            out.append(f"| {catalogue.SHORT.get(w['name'], w['title'])} | {r['label']} | {secs(ours['median'])} | "
                       f"{secs(r['median'])} | {r['ratio']:.2f} | {pair(ours, r, size, quality_missing)} | "
                       f"{pair(ours, r, ssim, quality_missing)} | {pair(ours, r, psnr, quality_missing)} | {memory} | {day(w)} |")
    out += ["", "Where we are slower or miss a goal (generated from the rows above and their floors):", ""]
    lines = verdicts(current)
    out += lines or ["- nowhere among the current rows."]
    if stale:
        out += ["", "Not re-measured under equal terms, so left out of the table until "
                    f"`Benchmarks/run --only {','.join(w['name'] for w in stale)}` measures them again (their old rows "
                    "are in RESULTS.md, marked stale):", ""]
        for w in stale:
            old = "; ".join(f"{r['ratio']:.2f}× {r['label']}" for r in w["rows"] if catalogue.role_of(r) == "peer"
                            and r.get("ratio") is not None)
            out.append(f"- `{w['name']}`, stored from {day(w)}" + (f" (old terms: {old})" if old else "")
                       + f": {stale_reason(w)}.")
    missing = [n for n in catalogue.names() if n not in {w["name"] for w in workloads}]
    if missing:
        out += ["", f"Never measured yet: {', '.join(f'`{n}`' for n in missing)}."]
    out += host_section(results)
    out += ["", estimate_text(results), END]
    return "\n".join(out)


def host_section(results):
    """Lines of the host-responsiveness table (Benchmarks/host-responsiveness.py), with a verdict;
    nothing when it was never measured."""
    host = results.get("host_responsiveness")
    if not host:
        return []
    goal = host["goal_ms"]
    out = ["", f"An app's own tasks while it converts (`Benchmarks/host-responsiveness.py`, measured {host['measured']}): "
               "the longest a 20 ms tick came late on Swift's global executor and on the main actor while "
               "`Examples/Sources/HostTicker` converts through the public API on `ConversionLimits(codecThreads: 2)` "
               f"(worst of {host['rows'][0]['runs']} runs; goal under {goal} ms), and the process's peak thread count.",
           "",
           "| pipeline | job s | global executor gap ms | main actor gap ms | peak threads |",
           "|---|---:|---:|---:|---:|"]
    for r in host["rows"]:
        out.append(f"| {r['pipeline']} | {secs(r['seconds'])} | {r['global_gap_ms']:.1f} | {r['main_gap_ms']:.1f} "
                   f"| {r['peak_threads']} |")
    over = [r["pipeline"] for r in host["rows"] if max(r["global_gap_ms"], r["main_gap_ms"]) >= goal]
    out += ["", f"Over the {goal} ms goal: {', '.join(over)}." if over else f"Every pipeline stays under the {goal} ms goal."]
    return out


def spliced_readme(results, text):
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"README.md has no {BEGIN} … {END} section")
    return text[:start] + readme_section(results) + text[end + len(END):]


# --- RESULTS.md and ratios.svg ---------------------------------------------------------------

def results_md(results):
    workloads = ordered(results)
    cores = cores_of(results)
    dates = sorted({w["measured"] for w in workloads})
    lines = ["# Benchmark results", "",
             "Generated by `Benchmarks/run` (or `--render`) from `results.json`; "
             + (f"measured from {dates[0]} to {dates[-1]}, each workload in its own run, dated below. " if dates else "nothing measured yet. ")
             + "Each section says how many timed runs each contender had; contenders were alternated run by run.",
             "",
             f"Machine: {results.get('machine', '?')}.", "",
             "Versions: " + results.get("versions", "?"), "",
             "Ratio = contender's median wall time / offconvert's median wall time (above 1: offconvert is faster). "
             "CPU s is the median user + system time of the whole process tree: on a busy machine it shows the work "
             "done where wall times mostly show waiting for a core. Peak RSS \"tree\": the summed PSS of every process "
             "of the run, sampled every 20 ms, or the highest high-water mark of any one of them when higher; "
             "\"largest\": rows measured before, getrusage's largest single process, which under-reports xargs peers "
             "and also counted the measuring Python process's own size (inherited when the command was exec'd). Size: "
             "the bytes written; SSIM and PSNR (dB): against the source, by ffmpeg's ssim and psnr filters "
             "(Benchmarks/quality.py). Mode: how x264 was driven, read from each output (copied: the source's own "
             "stream). Role: ours, a peer (another tool doing the same job), or a reference row (a floor or a variant "
             "that explains the others, never a competitor).",
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
    for w in workloads:
        lines += [f"## {w['title']}", ""]
        reason = stale_reason(w)
        if reason:
            lines += [f"**Stale** ({reason}): not comparable with the current terms and left out of the README until "
                      f"`Benchmarks/run --only {w['name']}` measures it again.", ""]
        lines += [f"*Measured {w['measured']}, {w['runs']} timed run{'s' if w['runs'] != 1 else ''}"
                  + (" after one warm-up" if w.get("warmup", True) else ", no warm-up")
                  + (", quick mode" if w.get("quick") else "")
                  + (f", 1-minute load average {w['load']} at the end on {cores} cores (a shared machine: the wall times "
                     "mostly show waiting for a core, compare CPU s)" if (w.get("load") or 0) > cores else "")
                  + f"; rerun alone with `Benchmarks/run --only {w['name']}`.*", ""]
        if w["note"]:
            lines += [w["note"], ""]
        lines += ["| contender | role | median s | min–max s | ratio | CPU s | peak RSS MiB | size | SSIM | PSNR dB | mode | result |",
                  "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|"]
        for r in w["rows"]:
            memory = "—" if r.get("rss") is None else f"{r['rss']:.0f} ({rss_kind(r)})"
            ratio = "—" if r.get("ratio") is None else f"{r['ratio']:.2f}"
            cpu = "—" if r.get("cpu") is None else f"{r['cpu']:.3f}"
            blank = "—" if recorded(r) else "not recorded"
            lines.append(f"| {r['label']} | {catalogue.role_of(r)} | {r['median']:.3f} | {r['min']:.3f}–{r['max']:.3f} | "
                         f"{ratio} | {cpu} | {memory} | {size(r) or blank} | {ssim(r) or blank} | {psnr(r) or blank} | "
                         f"{r.get('mode') or '—'} | {r.get('result') or ''} |")
        lines.append("")
    host = host_section(results)
    if host:
        lines += ["## host-responsiveness", *host[1:], ""]
    lines += ["![ratios](ratios.svg)", ""]
    return "\n".join(lines)


def svg_chart(results):
    rows = []
    for w in ordered(results):
        if stale_reason(w):
            continue
        for r in w["rows"]:
            if r.get("ratio") is not None:
                rows.append((f"{w['name']}: {r['label']}", r["ratio"]))
    width, bar_h, gap, left = 760, 18, 6, 360
    height = 40 + len(rows) * (bar_h + gap)
    top = max([r for _, r in rows] + [1.0])
    scale = (width - left - 60) / top
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             '<text x="10" y="20" font-size="14">peer time / offconvert time (above 1: offconvert is faster; stale rows left out)</text>']
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
    return "\n".join(parts) + "\n"


# --- writing and checking ----------------------------------------------------------------------

def generated(results):
    """{path: the text --render writes there}."""
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    return {README: spliced_readme(results, readme), RESULTS_MD: results_md(results), RATIOS_SVG: svg_chart(results)}


def write_all(results):
    for path, text in generated(results).items():
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


def check(results):
    """[(file, diff)] of every generated file that differs from what is on disk."""
    differing = []
    for path, text in generated(results).items():
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if current != text:
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(), "on disk", "--render", lineterm="", n=1)
            differing.append((os.path.relpath(path, ROOT), "\n".join(list(diff)[:60])))
    return differing
